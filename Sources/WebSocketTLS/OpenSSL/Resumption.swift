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
//
// Server tickets are OpenSSL's (stateless, encrypted with the SSL_CTX's own key). The ticket
// callbacks add one thing: a ticket of a session whose client certificate was accepted by a trust
// evaluator's override carries a mark, and a marked ticket is never used (a full handshake asks the
// evaluator again). In TLS 1.3 such a session gets no ticket at all; in TLS 1.2 whether a ticket is
// sent is settled at the ClientHello, before the certificate is seen.

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

    /// (Server) No ticket for this session: a client certificate accepted by overriding its
    /// verification was this handshake's decision, and a resumption would trust it again unseen
    /// (and without ``TLSSession/trustOverride`` to say so). The tickets of TLS 1.3 go after the
    /// handshake and of TLS 1.2 with the server's last flight, both after the client's certificate.
    func issueNoTicket() {
        _ = SSL_set_num_tickets(sslPointer, 0)
    }

    /// Whether the handshake resumed a session (no certificate was sent nor verified).
    var isResumed: Bool {
        switch status {
        case .established, .ended: return SSL_session_reused(sslPointer) == 1
        case .establishing, .failed: return false
        }
    }
}

/// The mark of a ticket whose session was accepted by overriding a failed verification.
private let overriddenMark: [UInt8] = Array("trust-override".utf8)

/// OpenSSL's ticket generation callback (`SSL_CTX_set_session_ticket_cb`): marks the ticket of a
/// session accepted by an override. 1: go on.
let markTicket: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { ssl, _ in
    guard let ssl, let pointer = SSL_get_ex_data(ssl, SessionEngine.exDataIndex),
          Unmanaged<SessionEngine>.fromOpaque(pointer).takeUnretainedValue().trustOverride != nil,
          let session = SSL_get_session(ssl)
    else { return 1 }
    return overriddenMark.withUnsafeBytes { SSL_SESSION_set1_ticket_appdata(session, $0.baseAddress, $0.count) }
}

/// OpenSSL's ticket decryption callback: what OpenSSL does without one (use what decrypted, renew
/// what it says to, a full handshake for the rest), except that a marked ticket is not used.
let checkTicket: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, Int, Int32, UnsafeMutableRawPointer?) -> Int32 = {
    _, session, _, _, status, _ in
    switch status {
    case SSL_TICKET_SUCCESS, SSL_TICKET_SUCCESS_RENEW:
        var data: UnsafeMutableRawPointer? = nil
        var length = 0
        if let session, SSL_SESSION_get0_ticket_appdata(session, &data, &length) == 1, let data,
           UnsafeRawBufferPointer(start: data, count: length).elementsEqual(overriddenMark) {
            return SSL_TICKET_RETURN_IGNORE_RENEW
        }
        return status == SSL_TICKET_SUCCESS ? SSL_TICKET_RETURN_USE : SSL_TICKET_RETURN_USE_RENEW
    case SSL_TICKET_EMPTY, SSL_TICKET_NO_DECRYPT, SSL_TICKET_NONE:
        return SSL_TICKET_RETURN_IGNORE_RENEW
    default:
        return SSL_TICKET_RETURN_ABORT
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
