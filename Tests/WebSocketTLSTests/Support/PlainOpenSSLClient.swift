// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import COpenSSL

/// A TLS client made directly with OpenSSL's C API over memory BIOs, for what the library's own
/// client never does: offer no ALPN, or other protocols than `http/1.1`. It verifies nothing.
final class PlainOpenSSLClient {
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer

    /// - Parameters:
    ///   - alpn: the ALPN list in wire form (length-prefixed names), or nil for none.
    ///   - tls12: at most TLS 1.2 (where renegotiation exists), and renegotiation allowed.
    init(alpn: [UInt8]?, tls12: Bool = false) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { fatalError("OpenSSL client") }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        if tls12 {
            _ = shim_SSL_CTX_set_max_proto_version(context, TLS1_2_VERSION)
            _ = SSL_CTX_clear_options(context, shim_SSL_OP_NO_RENEGOTIATION())
        }
        // Made after the context's settings, which it copies.
        guard let ssl = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            fatalError("OpenSSL client")
        }
        if let alpn { _ = alpn.withUnsafeBufferPointer { SSL_set_alpn_protos(ssl, $0.baseAddress, UInt32($0.count)) } }
        _ = shim_BIO_set_mem_eof_return(input, -1)
        SSL_set_bio(ssl, input, output)
        SSL_set_connect_state(ssl)
        self.context = context
        self.ssl = ssl
        self.input = input
        self.output = output
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Runs the handshake as far as it goes; whether it completed.
    @discardableResult
    func advance() -> Bool {
        defer { ERR_clear_error() }
        return SSL_do_handshake(ssl) == 1
    }

    /// Starts a renegotiation (TLS 1.2): a new ClientHello on the established connection.
    func renegotiate() -> Bool {
        defer { ERR_clear_error() }
        return SSL_renegotiate(ssl) == 1
    }

    /// Sends application data.
    func send(_ bytes: [UInt8]) {
        defer { ERR_clear_error() }
        _ = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
    }

    /// Reads application data (and runs whatever handshake is under way).
    func read() -> [UInt8] {
        defer { ERR_clear_error() }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        return count > 0 ? Array(buffer[..<Int(count)]) : []
    }

    func receive(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { BIO_write(input, $0.baseAddress, Int32($0.count)) }
    }

    func takeOutput() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(output)))
        guard !bytes.isEmpty else { return [] }
        _ = bytes.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32($0.count)) }
        return bytes
    }
}
#endif
