// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

/// Reads certificates and keys from ``PEMSource``s, with errors that name the source.
enum PEMLoading {
    /// Every certificate of `source`, in order (the caller frees each with `X509_free`).
    ///
    /// - Parameter purpose: what the certificates are for, in errors ("the certificate chain").
    static func certificates(from source: PEMSource, purpose: String) throws(WebSocketError) -> [OpaquePointer] {
        let outcome: Result<[OpaquePointer], WebSocketError> = withBIO(source, purpose: purpose) { bio in
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, refusePassword, nil) {
                certificates.append(certificate)
            }
            // The loop ends at the end of the text (PEM_R_NO_START_LINE) or at a malformed block.
            let last = ERR_peek_last_error()
            if last != 0, !(shim_ERR_GET_LIB(last) == ERR_LIB_PEM && shim_ERR_GET_REASON(last) == PEM_R_NO_START_LINE) {
                certificates.forEach { X509_free($0) }
                return .failure(.tlsConfiguration("cannot read \(purpose) from \(source)"))
            }
            OpenSSLErrorQueue.clear()
            guard !certificates.isEmpty else {
                return .failure(.tls(TLSError(.configuration, reason: "no PEM certificate in \(source) (\(purpose))")))
            }
            return .success(certificates)
        }
        return try outcome.get()
    }

    /// The private key of `source` (the caller frees it with `EVP_PKEY_free`).
    static func privateKey(from source: PEMSource) throws(WebSocketError) -> OpaquePointer {
        let outcome: Result<OpaquePointer, WebSocketError> = withBIO(source, purpose: "the private key") { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassword, nil) else {
                return .failure(.tlsConfiguration("cannot read a private key from \(source) (an encrypted key is not supported)"))
            }
            return .success(key)
        }
        return try outcome.get()
    }

    /// Runs `body` with a BIO reading `source`. A memory BIO reads the bytes in place, so it must not
    /// outlive this call.
    private static func withBIO<T>(_ source: PEMSource, purpose: String,
                                   _ body: (OpaquePointer) -> Result<T, WebSocketError>) -> Result<T, WebSocketError> {
        switch source {
        case .file(let path):
            guard let bio = BIO_new_file(path, "r") else {
                return .failure(.tlsConfiguration("cannot open \(source) (\(purpose))"))
            }
            defer { BIO_free(bio) }
            return body(bio)
        case .bytes(let bytes):
            guard bytes.count <= Int(Int32.max) else {
                return .failure(.tls(TLSError(.configuration, reason: "\(source) is too large (\(purpose))")))
            }
            return bytes.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                    return .failure(.tlsConfiguration("cannot read \(source) (\(purpose))"))
                }
                defer { BIO_free(bio) }
                return body(bio)
            }
        }
    }
}

/// OpenSSL's default password callback prompts on the terminal, which would block a server that
/// was given an encrypted key: this one answers "no password", so the key fails to load instead.
private let refusePassword: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
    _, _, _, _ in 0
}
#endif
