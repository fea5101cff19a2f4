// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why a TLS session failed, or could not be set up: what a user must know to fix it (an unknown
/// issuer, a name that does not match, an expired certificate), with the TLS library's own reason.
///
/// ```swift
/// catch WebSocketError.tls(let error) where error.kind == .unknownIssuer {
///     print("the server's certificate is not signed by a CA we trust:", error)
/// }
/// ```
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of TLS failure.
    public enum Kind: Sendable, Hashable {
        /// The peer's certificate chain does not lead to a trusted root (a private CA that was not
        /// added, a self-signed certificate, a missing intermediate).
        case unknownIssuer
        /// The server's certificate is not valid for the name or address we connected to; the name
        /// we checked.
        case nameMismatch(expected: String)
        /// A certificate in the chain has expired.
        case expired
        /// A certificate in the chain is not valid yet (or the local clock is wrong).
        case notYetValid
        /// The chain is trusted, but no certificate in it has one of the pinned public keys.
        case pinMismatch
        /// A certificate is malformed, revoked, used for the wrong purpose, or otherwise refused
        /// (also: a trust evaluator of yours rejected the chain, its reason in ``TLSError/reason``).
        case invalidCertificate
        /// (Server) The client sent no certificate, and client certificates are required.
        case peerCertificateRequired
        /// No protocol version both sides accept (TLS 1.2 is the minimum here).
        case protocolVersion
        /// The peer does not speak TLS (plain HTTP, or garbage, sent to a TLS port; a TLS server
        /// that answered in clear text).
        case notTLS
        /// The peer sent a fatal alert, or the handshake failed for another reason.
        case handshakeFailed
        /// The peer broke the TLS protocol after the handshake (a bad record, a renegotiation).
        case protocolError
        /// The peer exceeded a limit of the session: a handshake larger than allowed, records that
        /// pile up unread.
        case limitExceeded
        /// The local configuration is unusable: a certificate or key that does not load, a key that
        /// does not match its certificate, a pin that is not `sha256/BASE64`.
        case configuration
        /// TLS is not available in this build or on this platform.
        case unavailable
    }

    /// What went wrong.
    public var kind: Kind
    /// Details from the TLS library (OpenSSL's reason string), or ours; may be empty.
    public var reason: String

    /// An error of the given kind; `reason` defaults to none.
    public init(_ kind: Kind, reason: String = "") {
        self.kind = kind
        self.reason = reason
    }

    /// One line, e.g. `certificate is not valid for "example.com" (hostname mismatch)`.
    public var description: String {
        let what: String
        switch kind {
        case .unknownIssuer: what = "certificate is not signed by a trusted authority"
        case .nameMismatch(let name): what = "certificate is not valid for \(String(reflecting: name))"
        case .expired: what = "certificate has expired"
        case .notYetValid: what = "certificate is not valid yet"
        case .pinMismatch: what = "certificate chain has none of the pinned public keys"
        case .invalidCertificate: what = "certificate refused"
        case .peerCertificateRequired: what = "the client sent no certificate, and one is required"
        case .protocolVersion: what = "no TLS version both sides accept"
        case .notTLS: what = "the peer does not speak TLS"
        case .handshakeFailed: what = "TLS handshake failed"
        case .protocolError: what = "TLS protocol error"
        case .limitExceeded: what = "TLS limit exceeded"
        case .configuration: what = "unusable TLS configuration"
        case .unavailable: what = "TLS is not available"
        }
        return reason.isEmpty ? "TLS: " + what : "TLS: \(what) (\(reason))"
    }
}
