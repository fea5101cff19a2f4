// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

// Theory of operation
//
// A session is an `SSL` over two memory BIOs: `input` holds ciphertext from the peer, `output` the
// ciphertext for it. It owns no socket, thread or clock.
//
// 1. `receive` checks the limits, then appends to `input`. During the handshake it runs
//    `SSL_do_handshake` at once, since the handshake answers (its output) must be ready after the
//    call; once established, records are decrypted only when the layer above reads, straight into
//    its buffer, so plaintext is never held here beyond OpenSSL's one record.
// 2. OpenSSL never sees the end of the stream: `input` always answers "retry", and the session
//    decides. An end during the handshake is a failure; after it, once every buffered record is
//    read, it is a truncation (`.ended(clean: false)`) unless the peer's close_notify came first.
//    OpenSSL's own verdict on a truncation would be fatal and queue an alert, while the peer may
//    still be reading our half of the connection.
// 3. Bytes sent before the handshake completes wait in `earlyPlaintext` and are encrypted once it
//    does, before a close_notify asked for meanwhile.
// 4. Every entry point clears OpenSSL's per-thread error queue before calling it and reads it right
//    after (OpenSSLErrorQueue): the session may move between threads.
// 5. `.ended` and `.failed` are final, except that an ended session that fails to send fails.

/// The OpenSSL side of a ``TLSSession``.
///
/// `@unchecked Sendable`: an `SSL` may be used by one thread at a time, never by two at once. A
/// session is a ``TransportLayer``, which its owner (a connection's pipeline) calls from one thread
/// at a time and moves between threads only under a lock, as it does the connection itself.
final class SessionEngine: @unchecked Sendable {
    /// Kept alive for the `SSL_CTX` the `SSL` shares, and the verification callback's pins.
    private let context: NativeContext
    private let ssl: OpaquePointer
    /// Owned by `ssl` (`SSL_set_bio`), freed with it.
    private let input: OpaquePointer
    private let output: OpaquePointer
    let isClient: Bool
    /// (Client) The name or address verified, as given: the expected name of a name mismatch.
    let expectedName: String?
    private let limits: TLSLimits

    private(set) var status: TransportLayerStatus = .establishing
    /// Set by the verification callback (PeerVerification): why the peer's chain was refused, when
    /// the evaluator or the pins refused it, and the failure an evaluator overrode.
    var trustRejection: TLSError?
    var trustOverride: TLSTrustOverride?
    /// (Client, with a session cache) Where this session's resumable sessions are stored.
    var cacheKey: TLSSessionCache.Key?
    private var handshakeBytesReceived = 0
    private var earlyPlaintext: [UInt8] = []
    private var finishRequested = false
    private var inputEnded = false

    /// A client session verifying the server as `serverName` (at `port`, for the session cache);
    /// its ClientHello is ready at once, offering a cached session when there is one.
    static func client(_ context: NativeContext, serverName: String, port: UInt16?) throws(WebSocketError) -> SessionEngine {
        let name = try ServerName(validating: serverName)
        let engine = try SessionEngine(context: context, expectedName: serverName)
        try engine.configureClient(name)
        if context.sessionCache != nil {
            let host = switch name {
            case .dns(let host): host.lowercased()
            case .ipAddress(let address): address
            }
            engine.cacheKey = TLSSessionCache.Key(context: context.identity, serverName: host, port: port)
            engine.offerCachedSession()
        }
        engine.call { $0.advanceHandshake() }
        return engine
    }

    /// A server session.
    static func server(_ context: NativeContext) throws(WebSocketError) -> SessionEngine {
        let engine = try SessionEngine(context: context, expectedName: nil)
        SSL_set_accept_state(engine.ssl)
        return engine
    }

    private init(context: NativeContext, expectedName: String?) throws(WebSocketError) {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let ssl = SSL_new(context.pointer) else {
            throw .tls(TLSError(.handshakeFailed, reason: "cannot create a TLS session: " + OpenSSLErrorQueue.drainDescription()))
        }
        let input = BIO_new(BIO_s_mem()), output = BIO_new(BIO_s_mem())
        guard let input, let output else {
            // Only out of memory: free what was made.
            BIO_free(input)
            BIO_free(output)
            SSL_free(ssl)
            throw .tls(TLSError(.handshakeFailed, reason: "cannot create a TLS session's buffers"))
        }
        // An empty input means "no bytes yet": the end of the stream is the session's to judge.
        _ = shim_BIO_set_mem_eof_return(input, -1)
        _ = shim_BIO_set_mem_eof_return(output, -1)
        SSL_set_bio(ssl, input, output)
        self.context = context
        self.ssl = ssl
        self.input = input
        self.output = output
        isClient = context.role == .client
        self.expectedName = expectedName
        limits = context.limits
        // For the verification callback, which OpenSSL gives the `SSL`, not the session. The
        // session owns the `SSL`, so the address outlives every call that can use it.
        guard SSL_set_ex_data(ssl, Self.exDataIndex, Unmanaged.passUnretained(self).toOpaque()) == 1 else {
            throw .tls(TLSError(.handshakeFailed, reason: "cannot create a TLS session: " + OpenSSLErrorQueue.drainDescription()))
        }
    }

    /// The index of the `SSL` ex-data that holds the session: 0, the application's (as
    /// `SSL_set_app_data`), since nothing else here uses a session's ex-data.
    static let exDataIndex: Int32 = 0

    deinit {
        SSL_free(ssl)
    }

    private func configureClient(_ name: ServerName) throws(WebSocketError) {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        SSL_set_connect_state(ssl)
        if case .dns(let host) = name, shim_SSL_set_tlsext_host_name(ssl, host) != 1 {
            throw .tlsConfiguration("cannot send the server name \(String(reflecting: host))")
        }
        guard context.verifiesPeer else { return }
        guard let parameters = SSL_get0_param(ssl) else { throw .tlsConfiguration("no verification parameters") }
        X509_VERIFY_PARAM_set_hostflags(parameters, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        let status: Int32
        switch name {
        case .dns(let host): status = X509_VERIFY_PARAM_set1_host(parameters, host, host.utf8.count)
        case .ipAddress(let address): status = X509_VERIFY_PARAM_set1_ip_asc(parameters, address)
        }
        guard status == 1 else { throw .tlsConfiguration("cannot verify the server as \(String(reflecting: expectedName ?? ""))") }
    }

    /// Runs `body` between two clears of OpenSSL's error queue.
    private func call<T>(_ body: (SessionEngine) -> T) -> T {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        return body(self)
    }

    // MARK: Input

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, !inputEnded, status.isOpen else { return }
        call { $0.receiveOpen(bytes) }
    }

    private func receiveOpen(_ bytes: UnsafeRawBufferPointer) {
        if pendingOutputCount > limits.maxPendingOutput {
            return fail(.limitExceeded, "the peer keeps sending while \(pendingOutputCount) bytes of output to it are not taken "
                            + "(TLSLimits.maxPendingOutput \(limits.maxPendingOutput))")
        }
        let establishing = status == .establishing
        if establishing {
            // `handshakeBytesReceived` never exceeds the limit, so the subtraction cannot overflow.
            let budget = limits.maxHandshakeBytes - handshakeBytesReceived
            if bytes.count > budget {
                // The handshake reads what the budget allows first: it may end inside it (what follows
                // is then application data), or fail on a record there, as it would have with the
                // bytes arriving one by one. Only a handshake still under way once the budget is
                // spent is over the limit: the outcome does not depend on how the bytes were split.
                if budget > 0 { receiveOpen(UnsafeRawBufferPointer(rebasing: bytes[..<budget])) }
                switch status {
                case .established: return receiveOpen(UnsafeRawBufferPointer(rebasing: bytes[budget...]))
                case .ended, .failed: return
                case .establishing: break
                }
                return fail(.limitExceeded, "the peer sent more than \(limits.maxHandshakeBytes) bytes during the TLS handshake "
                                + "(TLSLimits.maxHandshakeBytes)")
            }
            handshakeBytesReceived += bytes.count
        }
        let ciphertextLimit = limits.effectiveMaxBufferedCiphertext
        guard bytes.count <= ciphertextLimit - bufferedCiphertextCount else {
            return fail(.limitExceeded, "more than \(ciphertextLimit) bytes received and not yet read "
                            + "(TLSLimits.maxBufferedCiphertext)")
        }
        guard append(bytes) else {
            return fail(establishing ? .handshakeFailed : .protocolError,
                        "cannot buffer received bytes: " + OpenSSLErrorQueue.drainDescription())
        }
        if establishing { advanceHandshake() }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(min(bytes.count - offset, 1 << 30))
            let written = BIO_write(input, base + offset, chunk)
            guard written == chunk else { return false }
            offset += Int(chunk)
        }
        return true
    }

    func receiveEOF() {
        guard !inputEnded else { return }
        inputEnded = true
        call { engine in
            switch engine.status {
            case .establishing:
                engine.fail(.handshakeFailed, "the peer closed the connection during the TLS handshake")
            case .established where engine.bufferedCiphertextCount == 0 && SSL_has_pending(engine.ssl) == 0:
                engine.status = .ended(clean: false)
            case .established, .ended, .failed:
                // Records still buffered are read first; the end is reported after them.
                break
            }
        }
    }

    private func advanceHandshake() {
        let result = SSL_do_handshake(ssl)
        guard result != 1 else { return handshakeCompleted() }
        let code = SSL_get_error(ssl, result)
        guard code != SSL_ERROR_WANT_READ, code != SSL_ERROR_WANT_WRITE else { return }
        fail(classify(code, errors: OpenSSLErrorQueue.drain()))
    }

    private func handshakeCompleted() {
        status = .established
        if !earlyPlaintext.isEmpty {
            let bytes = earlyPlaintext
            earlyPlaintext = []
            bytes.withUnsafeBytes { encrypt($0) }
        }
        if finishRequested, status == .established { sendCloseNotify() }
    }

    /// Decrypts into `buffer` what has arrived; 0 when nothing is ready.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        switch status {
        case .establishing, .failed: return 0
        case .established, .ended: break
        }
        return call { engine in
            let result = SSL_read(engine.ssl, base, Int32(clamping: buffer.count))
            if result > 0 { return min(Int(result), buffer.count) }
            let code = SSL_get_error(engine.ssl, result)
            guard engine.status == .established else { return 0 }
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                if engine.inputEnded { engine.status = .ended(clean: false) }
            case SSL_ERROR_ZERO_RETURN:
                engine.status = .ended(clean: true)
            default:
                engine.fail(engine.classify(code, errors: OpenSSLErrorQueue.drain()))
            }
            return 0
        }
    }

    // MARK: Output

    func send(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, !finishRequested else { return }
        switch status {
        case .failed:
            return
        case .establishing:
            guard bytes.count <= limits.maxBufferedPlaintext - earlyPlaintext.count else {
                return call { $0.fail(.limitExceeded, "more than \($0.limits.maxBufferedPlaintext) bytes sent before the TLS "
                                        + "handshake completed (TLSLimits.maxBufferedPlaintext)") }
            }
            earlyPlaintext.append(contentsOf: bytes)
        case .established, .ended:
            call { $0.encrypt(bytes) }
        }
    }

    private func encrypt(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(min(bytes.count - offset, 1 << 20))
            let result = SSL_write(ssl, base + offset, chunk)
            guard result > 0 else {
                return fail(classify(SSL_get_error(ssl, result), errors: OpenSSLErrorQueue.drain()))
            }
            offset += Int(result)
        }
    }

    func finishSending() {
        guard !finishRequested else { return }
        finishRequested = true
        switch status {
        case .established, .ended: call { $0.sendCloseNotify() }
        // Sent when the handshake completes, after the bytes sent before it.
        case .establishing: break
        case .failed: break
        }
    }

    private func sendCloseNotify() {
        // 0 (sent, the peer's not yet received) and 1 (both) are both fine; a failure means the
        // session is past sending, which the next read reports if it matters.
        _ = SSL_shutdown(ssl)
    }

    var pendingOutputCount: Int { Int(clamping: BIO_ctrl_pending(output)) }

    func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = shim_BIO_get_mem_data(output, &data)
        guard length > 0, let data else { return }
        let count = Int(length)
        let written = write(UnsafeRawBufferPointer(start: data, count: count))
        discardOutput(min(max(written, 0), count))
    }

    /// Removes `count` bytes from the front of `output`: a memory BIO can only be read from.
    private func discardOutput(_ count: Int) {
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(byteCount: min(count, 16 << 10), alignment: 1) { scratch in
            var left = count
            while left > 0, let base = scratch.baseAddress {
                let read = BIO_read(output, base, Int32(min(left, scratch.count)))
                guard read > 0 else { return }
                left -= Int(read)
            }
        }
    }

    // MARK: State

    var bufferedCiphertextCount: Int { Int(clamping: BIO_ctrl_pending(input)) }
    var bufferedPlaintextCount: Int { earlyPlaintext.count }

    func fail(_ kind: TLSError.Kind, _ reason: String) {
        fail(TLSError(kind, reason: reason))
    }

    func fail(_ error: TLSError) {
        if case .failed = status { return }
        status = .failed(.tls(error))
        // Nothing more is read: what was buffered would only take memory.
        earlyPlaintext = []
        _ = shim_BIO_reset(input)
    }

    /// OpenSSL's handshake state, for telling a peer that never spoke TLS from one that did.
    var awaitingPeersFirstMessage: Bool {
        let state = SSL_get_state(ssl)
        return isClient ? state == TLS_ST_CW_CLNT_HELLO : state == TLS_ST_BEFORE
    }

    var verifyResult: Int { SSL_get_verify_result(ssl) }

    var verifiesPeer: Bool { context.verifiesPeer }

    var contextCache: TLSSessionCache? { context.sessionCache }

    var sslPointer: OpaquePointer { ssl }
}

extension TransportLayerStatus {
    /// Whether the layer still reads: establishing or established.
    var isOpen: Bool {
        switch self {
        case .establishing, .established: return true
        case .ended, .failed: return false
        }
    }
}
#endif
