// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// Your decision on a peer's certificate chain, made during the handshake once OpenSSL's own
/// verification has given its verdict: a client's on the server, a server's on a client's
/// certificate. Set it as ``TLSConfiguration/trustEvaluator``.
///
/// ```swift
/// // Accept the server only if the default verification passed AND its leaf is one we know.
/// configuration.trustEvaluator = TLSTrustEvaluator { trust in
///     guard knownLeaves.contains(trust.certificateChain[0]) else { return .reject(reason: "not a known leaf") }
///     return .accept          // never widens trust: a failed default verdict still fails
/// }
/// ```
///
/// The closure sees the chain as the peer sent it, the name verified, and the default verdict, and
/// returns a ``TLSTrustDecision``. Trust is never widened by accident: ``TLSTrustDecision/accept``
/// accepts only what the default verification passed, and accepting a chain it failed takes
/// ``TLSTrustDecision/acceptOverridingFailure(reason:)``, whose reason the session keeps
/// (``TLSSession/trustOverride``). Pins (``TLSConfiguration/pinnedPublicKeys``) are checked after
/// the evaluator accepts.
///
/// The closure runs on the thread that called the session (inside `receive`, where the handshake
/// moves on), once per handshake, and may run for many sessions at once: it must decide from what
/// it is given, quickly, without blocking and without calling into the session.
///
/// Equality is identity: an evaluator equals itself and its copies, never another evaluator made
/// from the same closure (closures cannot be compared). So two ``TLSConfiguration``s are equal only
/// when they hold the same evaluator, or none.
public struct TLSTrustEvaluator: Sendable, Hashable {
    private final class Closure: Sendable {
        let evaluate: @Sendable (TLSPeerTrust) -> TLSTrustDecision

        init(_ evaluate: @escaping @Sendable (TLSPeerTrust) -> TLSTrustDecision) {
            self.evaluate = evaluate
        }
    }

    private let closure: Closure

    /// An evaluator that decides with `evaluate`.
    public init(_ evaluate: @escaping @Sendable (TLSPeerTrust) -> TLSTrustDecision) {
        closure = Closure(evaluate)
    }

    /// The evaluator's decision on `trust` (what a session asks it; call it yourself to test an
    /// evaluator).
    public func evaluate(_ trust: TLSPeerTrust) -> TLSTrustDecision {
        closure.evaluate(trust)
    }

    /// Whether `lhs` and `rhs` are the same evaluator (one made by the same `init` call).
    public static func == (lhs: TLSTrustEvaluator, rhs: TLSTrustEvaluator) -> Bool {
        lhs.closure === rhs.closure
    }

    /// Hashes the evaluator's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(closure))
    }
}

extension TLSTrustEvaluator {
    /// Accepts exactly the peers whose leaf certificate is one of these, by the SHA-256 digest of its
    /// DER encoding (`openssl x509 -in cert.pem -outform der | openssl dgst -sha256`, or the hex of
    /// `openssl x509 -in cert.pem -noout -fingerprint -sha256`), whatever the default verification
    /// said: a self-signed certificate, one whose name does not match, or an expired one is
    /// accepted, overriding the failure (``TLSSession/trustOverride`` says so), as SSH accepts a
    /// known host key. Any other leaf is rejected, even one the default verification passed; the
    /// reason gives its fingerprint.
    ///
    /// For a development server with a self-signed certificate you hold: it keeps the connection to
    /// that one certificate, where ``CertificateVerification/disabledInsecurely`` accepts any.
    ///
    /// - Parameter fingerprints: SHA-256 digests, 32 bytes each.
    /// - Throws: ``WebSocketTransport/WebSocketError/tls(_:)`` with
    ///   ``WebSocketTransport/TLSError/Kind/configuration`` when there are none, or one is not 32 bytes.
    public static func pinnedCertificates(sha256 fingerprints: [[UInt8]]) throws(WebSocketError) -> TLSTrustEvaluator {
        guard !fingerprints.isEmpty else {
            throw .tls(TLSError(.configuration, reason: "pinnedCertificates needs at least one SHA-256 fingerprint"))
        }
        if let bad = fingerprints.first(where: { $0.count != 32 }) {
            throw .tls(TLSError(.configuration, reason: "a SHA-256 certificate fingerprint is 32 bytes, not \(bad.count)"))
        }
        let pinned = Set(fingerprints)
        return TLSTrustEvaluator { trust in
            guard let leaf = trust.certificateChain.first else { return .reject(reason: "the peer sent no certificate") }
            guard let digest = CertificateDigest.sha256(leaf) else {
                return .reject(reason: "this build cannot compute SHA-256 fingerprints")
            }
            let hex = digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            guard pinned.contains(digest) else {
                return .reject(reason: "the leaf certificate's SHA-256 fingerprint \(hex) is not one of the \(pinned.count) pinned")
            }
            return .acceptOverridingFailure(reason: "the leaf certificate's SHA-256 fingerprint \(hex) is pinned")
        }
    }
}

/// What a ``TLSTrustEvaluator`` decides on: the peer's chain, the name it was verified as, and the
/// default verification's verdict.
public struct TLSPeerTrust: Sendable, Hashable {
    /// The certificates the peer sent, as DER, the leaf first, in the order sent (the rest is
    /// whatever the peer chose to send: intermediates, maybe its root, maybe certificates that have
    /// nothing to do with the leaf). Never empty when a session asks.
    public var certificateChain: [[UInt8]]
    /// (Client) The host name or IP address the server was verified as (what
    /// ``TLSContext/makeClientSession(serverName:port:)`` was given); `nil` on a server.
    public var serverName: String?
    /// The verdict of the verification the configuration asks for (trust roots, validity period,
    /// name), without the evaluator and before the pins.
    public var defaultVerdict: TLSVerificationVerdict

    /// A value to test an evaluator with; sessions make their own.
    public init(certificateChain: [[UInt8]], serverName: String?, defaultVerdict: TLSVerificationVerdict) {
        self.certificateChain = certificateChain
        self.serverName = serverName
        self.defaultVerdict = defaultVerdict
    }
}

/// What the default verification (OpenSSL's, as the configuration sets it up) said about a chain.
public enum TLSVerificationVerdict: Sendable, Hashable {
    /// The chain leads to a trusted root, is valid now, and (client) is issued for the name.
    case passed
    /// The chain failed, as the session would report it without an evaluator: the first failure
    /// found, of kind ``WebSocketTransport/TLSError/Kind/unknownIssuer``,
    /// ``WebSocketTransport/TLSError/Kind/nameMismatch(expected:)``,
    /// ``WebSocketTransport/TLSError/Kind/expired``, ``WebSocketTransport/TLSError/Kind/notYetValid``
    /// or ``WebSocketTransport/TLSError/Kind/invalidCertificate``, with OpenSSL's reason.
    case failed(TLSError)
}

/// A ``TLSTrustEvaluator``'s answer.
public enum TLSTrustDecision: Sendable, Hashable {
    /// Accept the chain if the default verification passed it. Never more: for a chain it failed,
    /// the handshake fails with that failure, exactly as without an evaluator. The answer of an
    /// evaluator that only adds conditions.
    case accept
    /// Accept the chain even though the default verification failed it: a self-signed certificate
    /// you know, a name you accept under another name. This widens trust, so it says so: the session
    /// keeps the failure and `reason` (``TLSSession/trustOverride``). For a chain that passed, the
    /// same as ``accept``.
    case acceptOverridingFailure(reason: String)
    /// Refuse the chain: the handshake fails with ``WebSocketTransport/TLSError/Kind/invalidCertificate``
    /// whose reason is `"rejected by the trust evaluator: "` and `reason` (and the default failure,
    /// if there was one). The peer gets a `bad_certificate` alert, or the default failure's alert.
    case reject(reason: String)
}

/// A default verification failure that a ``TLSTrustEvaluator`` overrode
/// (``TLSTrustDecision/acceptOverridingFailure(reason:)``), for the record.
public struct TLSTrustOverride: Sendable, Hashable {
    /// What the default verification found.
    public var failure: TLSError
    /// Why the evaluator accepted anyway, in its words.
    public var reason: String

    /// An override of `failure` for `reason`.
    public init(failure: TLSError, reason: String) {
        self.failure = failure
        self.reason = reason
    }
}
