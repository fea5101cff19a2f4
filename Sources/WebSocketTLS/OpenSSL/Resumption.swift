// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketTransport
internal import COpenSSL

// Client resumption. OpenSSL hands every session that a server's ticket made resumable to
// `storeNewSession` (TLS 1.3 tickets come after the handshake, while the session reads), which
// stores it in the context's TLSSessionCache under the session's key: the context's identity, the
// name verified and the port. A new client session takes the one under its own key before its
// ClientHello is written (SSL_set_session). OpenSSL checks the rest: a session of another version,
// or one the server refuses, makes a full handshake.

/// A resumable `SSL_SESSION`, holding one reference to it.
///
/// `@unchecked Sendable`: OpenSSL never changes a session once it is resumable, and its reference
/// counts are atomic; offering it (`SSL_set_session`) only reads it.
final class CachedSession: @unchecked Sendable {
    let pointer: OpaquePointer
    /// TLS 1.3: offered once only (RFC 8446 §C.4).
    let isSingleUse: Bool

    /// Takes over one reference to `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        isSingleUse = SSL_SESSION_get_protocol_version(pointer) >= TLS1_3_VERSION
    }

    deinit {
        SSL_SESSION_free(pointer)
    }
}

extension SessionEngine {
    /// (Client) Offers the session cached for this engine's key, if there is one.
    func offerCachedSession() {
        guard let key = cacheKey, let cache = contextCache, let cached = cache.take(for: key) else { return }
        // A failure only means a full handshake.
        if SSL_set_session(sslPointer, cached.pointer) != 1 { OpenSSLErrorQueue.clear() }
    }

    /// Whether the handshake resumed a session (no certificate was sent nor verified).
    var isResumed: Bool {
        switch status {
        case .established, .ended: return SSL_session_reused(sslPointer) == 1
        case .establishing, .failed: return false
        }
    }
}

/// OpenSSL's new session callback (`SSL_CTX_sess_set_new_cb`), on a client whose configuration has
/// a session cache: 0 lets OpenSSL keep (and later drop) the reference it gives.
let storeNewSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
    guard let ssl, let session, let pointer = SSL_get_ex_data(ssl, SessionEngine.exDataIndex) else { return 0 }
    let engine = Unmanaged<SessionEngine>.fromOpaque(pointer).takeUnretainedValue()
    // A certificate accepted by overriding its verification was this connection's decision, and
    // would be trusted again without being seen: never resumed.
    guard SSL_SESSION_is_resumable(session) == 1, engine.trustOverride == nil,
          let key = engine.cacheKey, let cache = engine.contextCache
    else { return 0 }
    // A copy: OpenSSL marks the connection's own session unresumable when the connection is freed
    // without having sent close_notify (which TLS 1.2 and 1.3 do not ask for), while a WebSocket
    // often ends with the socket's close.
    guard let copy = SSL_SESSION_dup(session) else { return 0 }
    cache.store(CachedSession(taking: copy), for: key)
    return 0
}
#endif
