// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// (Server) Whether a server issues session tickets (RFC 8446 §4.6.1, RFC 5077), which let a client
/// resume a session with a shorter handshake: no certificate is sent nor verified.
///
/// A ticket is the session's secret, encrypted with a key that only the ``TLSContext`` holds, in
/// memory (OpenSSL makes it at random with each context, and with each ``TLSContext/reload(_:)``).
/// Who steals that key can pose as the server to a client that resumes with a ticket it encrypted,
/// until the ticket's lifetime ends, and in TLS 1.2 decrypt every session whose ticket they
/// recorded. Hence the default, ``tls13(lifetime:)`` of 2 hours:
///
/// - TLS 1.3 resumptions keep forward secrecy: the server accepts only those that make a new
///   (EC)DHE exchange (`psk_dhe_ke`, RFC 8446 §4.2.9), so a stolen ticket key never decrypts
///   recorded traffic.
/// - TLS 1.2 tickets hold the master secret itself: ``tls13AndTLS12(lifetime:)`` turns them on,
///   and then the ticket key should be rotated, by reloading the context, at least as often as
///   the lifetime.
/// - A ticket is accepted only by the context (and reload) that issued it, and is refused after
///   `lifetime`: a reload, which may change the certificates and whom the server trusts, makes every
///   earlier ticket useless, and its clients make a full handshake.
///
/// No early data (0-RTT) is ever accepted: it could be replayed.
public enum TLSSessionTickets: Sendable, Hashable {
    /// No tickets: every connection makes a full handshake.
    case disabled
    /// TLS 1.3 tickets (one per handshake), valid for `lifetime` (whole seconds, at least 1, at
    /// most 7 days: RFC 8446 §4.6.1); TLS 1.2 sessions are not resumable.
    case tls13(lifetime: Duration)
    /// TLS 1.3 tickets, and TLS 1.2 tickets too (RFC 5077), valid for `lifetime`. TLS 1.2
    /// resumption has no forward secrecy between the ticket key and the sessions: rotate the key by
    /// reloading the context.
    case tls13AndTLS12(lifetime: Duration)

    /// The lifetime, `nil` when disabled.
    var lifetime: Duration? {
        switch self {
        case .disabled: return nil
        case .tls13(let lifetime), .tls13AndTLS12(let lifetime): return lifetime
        }
    }
}
