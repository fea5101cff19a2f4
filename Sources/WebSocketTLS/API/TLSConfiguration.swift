// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// Everything a ``TLSContext`` needs: its role, whom it trusts, what it presents, and its limits. A
/// value: build one, then make a context from it.
///
/// ```swift
/// // A client that trusts the system's roots and a private CA, and pins the server's key.
/// var client = TLSConfiguration.client()
/// client.trustRoots = .systemAnd([.file("/etc/company/ca.pem")])
/// client.pinnedPublicKeys = ["sha256/jO7uKBUmwnAxWzIHaCQmY4OCbavvGfA8I7pRnmwXeIs="]
/// let context = try TLSContext(client)
///
/// // A server.
/// let server = try TLSContext(.server(certificateChain: .file("fullchain.pem"), privateKey: .file("key.pem")))
/// ```
///
/// Secure by default: a client verifies the server's chain against the system's roots and its name
/// (or IP address); both sides speak TLS 1.2 or 1.3 only, never renegotiate, and offer or select
/// ALPN `http/1.1`. See docs/guide-tls.md.
public struct TLSConfiguration: Sendable, Hashable {
    /// Which end of the connection a context serves.
    public enum Role: Sendable, Hashable {
        /// Connects (`wss://` URLs).
        case client
        /// Accepts connections and presents a certificate.
        case server
    }

    /// Which end of the connection this configures: set by ``client()`` or
    /// ``server(certificateChain:privateKey:)``.
    public let role: Role

    /// (Client) The authorities that verify the server's chain. Default ``TLSTrustRoots/system``.
    public var trustRoots: TLSTrustRoots = .system

    /// (Client) Whether the server is verified. Default ``CertificateVerification/full``.
    public var certificateVerification: CertificateVerification = .full

    /// (Client) Public keys, one of which the server's verified chain must hold, each
    /// `sha256/BASE64`: the SHA-256 digest of a certificate's DER SubjectPublicKeyInfo, in padded
    /// base64 (the form of HPKP, RFC 7469 §2.4, OkHttp and SocketRocket). Default none.
    ///
    /// Pins are checked in addition to the chain's validation, never instead of it: a chain that does
    /// not verify fails with its own error whatever its keys; one that verifies but holds no pinned
    /// key (leaf, intermediate or root) fails with ``WebSocketTransport/TLSError/Kind/pinMismatch``. Pin a backup key
    /// too, or a key rotation locks your clients out. Pins need ``CertificateVerification/full``.
    ///
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst
    /// -sha256 -binary | base64` prints a certificate's pin.
    public var pinnedPublicKeys: [String] = []

    /// Your decision on the peer's chain, after the default verification and before the pins: a
    /// client's on the server, a server's on a client's certificate (which needs
    /// ``clientCertificates``; it is asked only when the client sends one). Default none.
    ///
    /// It adds to verification and cannot turn it off by accident:
    /// ``TLSTrustDecision/accept`` keeps a failed default verdict, overriding one takes
    /// ``TLSTrustDecision/acceptOverridingFailure(reason:)``, and it needs
    /// ``CertificateVerification/full`` (with verification disabled it would decide nothing).
    /// ``TLSTrustEvaluator/pinnedCertificates(sha256:)`` accepts a self-signed certificate you
    /// know by its fingerprint. See ``TLSTrustEvaluator``.
    ///
    /// An evaluator compares by identity (closures cannot be compared): configurations holding two
    /// evaluators made from the same closure are not equal.
    public var trustEvaluator: TLSTrustEvaluator? = nil

    /// **Unsafe**: writes every session's secrets, in the NSS key log format (`SSLKEYLOGFILE`), so
    /// that Wireshark can decrypt a capture. Anyone who reads the log can decrypt every session it
    /// covers. Default none; for debugging only. See ``TLSKeyLog``.
    public var unsafeKeyLog: TLSKeyLog? = nil

    /// The certificate chain presented to the peer, the leaf first: a server's (required), or a
    /// client's for mutual TLS (optional; set ``privateKey`` with it). Default none for a client.
    public var certificateChain: PEMSource?

    /// The private key of ``certificateChain``'s leaf; it must match the leaf's public key.
    public var privateKey: PEMSource?

    /// (Server) More certificates, chosen by the name the client asks for (SNI, RFC 6066 §3): a
    /// client that asks for a name one of them serves gets it; a client that sends no name, or a
    /// name none of them serves, gets ``certificateChain``, the default. Default none.
    ///
    /// Names are compared without regard to case; names valid for the default certificate and an
    /// additional one go to the first that names them exactly, then to the first whose wildcard
    /// (`*.example.com`) covers them, the default first. Everything else (versions, client
    /// certificates, tickets, the key log) is the configuration's, for every certificate: a session
    /// resumed under one name may be resumed under another, so they must not differ in whom they
    /// trust. See ``TLSServerCertificate``.
    public var additionalCertificates: [TLSServerCertificate] = []

    /// (Server) Whether the server issues session tickets, which let a client resume a session
    /// with a shorter handshake. Default ``TLSSessionTickets/tls13(lifetime:)`` of 2 hours: TLS 1.3
    /// tickets only, whose resumptions keep forward secrecy. See ``TLSSessionTickets``.
    public var sessionTickets: TLSSessionTickets = .tls13(lifetime: .seconds(7_200))

    /// (Client) Where sessions are kept for resumption: a session the server gave a ticket for is
    /// resumed by the next ``TLSContext/makeClientSession(serverName:port:)`` for the same name and
    /// port of the same context. Default none: every connection makes a full handshake.
    ///
    /// A cache compares by identity, and may be shared by several contexts: a session is only
    /// offered again by the context that made it. See ``TLSSessionCache``.
    public var sessionCache: TLSSessionCache? = nil

    /// (Server) Whether clients must present a certificate, and whom it must chain to. Default
    /// ``ClientCertificatePolicy/none``.
    public var clientCertificates: ClientCertificatePolicy = .none

    /// The lowest version negotiated. Default ``TLSVersion/v1_2``; ``TLSVersion/v1_3`` refuses peers
    /// that only speak 1.2.
    public var minimumVersion: TLSVersion = .v1_2

    /// The highest version negotiated (`nil`: the highest there is). Only for tests and fuzzing,
    /// which need a peer that cannot speak 1.3.
    @_spi(Testing) public var maximumVersion: TLSVersion? = nil

    /// The session limits. Default ``TLSLimits/init()``.
    public var limits = TLSLimits()

    private init(role: Role) {
        self.role = role
    }

    /// A client configuration: verification on, against the system's roots.
    public static func client() -> TLSConfiguration {
        TLSConfiguration(role: .client)
    }

    /// A server configuration presenting `certificateChain` (the leaf first, then its intermediates)
    /// with the leaf's `privateKey`.
    public static func server(certificateChain: PEMSource, privateKey: PEMSource) -> TLSConfiguration {
        var configuration = TLSConfiguration(role: .server)
        configuration.certificateChain = certificateChain
        configuration.privateKey = privateKey
        return configuration
    }
}

/// Whether a client verifies the server it connects to.
public enum CertificateVerification: Sendable, Hashable {
    /// The chain must lead to one of ``TLSConfiguration/trustRoots``, be valid now, and be issued
    /// for the name or IP address connected to (no partial wildcards such as `w*.example.com`).
    case full
    /// No verification: any certificate is accepted, so anyone on the path can read and change the
    /// traffic. For development against a self-signed server only; trust its CA with
    /// ``TLSTrustRoots/only(_:)`` instead whenever you can. The server name is still sent (SNI).
    case disabledInsecurely
}

/// (Server) Whether a client must present a certificate (mutual TLS), and the authorities it must
/// chain to.
///
/// ```swift
/// configuration.clientCertificates = .required(trustRoots: .only([.file("clients-ca.pem")]))
/// ```
public enum ClientCertificatePolicy: Sendable, Hashable {
    /// No certificate is asked for.
    case none
    /// A certificate is asked for; a client without one is accepted, a client whose certificate does
    /// not verify is not. ``TLSSession/peerCertificateSubject`` says who it was.
    case optional(trustRoots: TLSTrustRoots)
    /// A client without a verified certificate fails the handshake
    /// (``WebSocketTransport/TLSError/Kind/peerCertificateRequired`` when it sent none).
    case required(trustRoots: TLSTrustRoots)
}
