// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// The contexts of the TLS targets, made once: the session under test in each configuration the
/// input selects, and the real peers of the man-in-the-middle mode (which log their keys to the
/// recorder, for comparison with the session under test's).
enum TLSFuzzContexts {
    /// Limits a few KiB of input cross (the ciphertext limit is raised to one record whatever it is
    /// set to).
    static var tightLimits: TLSLimits {
        var limits = TLSLimits()
        limits.maxHandshakeBytes = 3_000
        limits.maxCertificateChainBytes = 2_000
        limits.maxBufferedCiphertext = 1_000
        limits.maxBufferedPlaintext = 1_024
        limits.maxPendingOutput = 4_096
        return limits
    }

    /// Under test: the server (``variant``: client certificates required) or the client (``variant``:
    /// the CA's key pinned), with the default or the tight limits; with ``trust``, the recorder's
    /// evaluator and key log as well (a server then asks for client certificates, optionally unless
    /// ``variant``).
    static func underTest(server: Bool, tight: Bool, variant: Bool, trust: Bool) -> TLSContext {
        underTestContexts[(server ? 8 : 0) | (tight ? 4 : 0) | (variant ? 2 : 0) | (trust ? 1 : 0)]
    }

    /// The peer of a session under test in the man-in-the-middle mode.
    static func peer(ofServer: Bool, withCertificate: Bool, tls12: Bool) -> TLSContext {
        switch (ofServer, withCertificate, tls12) {
        case (true, false, false): return peerClient
        case (true, false, true): return peerClient12
        case (true, true, false): return peerClientWithCertificate
        case (true, true, true): return peerClientWithCertificate12
        case (false, _, false): return peerServer
        case (false, _, true): return peerServer12
        }
    }

    /// The cache of the resuming clients, emptied before each input that uses it.
    static let sessionCache = TLSSessionCache(capacity: 4)

    /// The resumption and server name mode (script flags 0x08 and 0x10): a client with
    /// ``sessionCache``, TLS 1.2 at most with `tls12`.
    static func resumingClient(tls12: Bool) -> TLSContext { tls12 ? resumingClient12 : resumingClient13 }

    /// The same mode's server: the `localhost` certificate, and `alt.fuzz.test`'s for clients that
    /// ask for that name; TLS 1.2 at most with `tls12`.
    static func namedServer(tls12: Bool) -> TLSContext { tls12 ? namedServer12 : namedServer13 }

    private static let pki = TLSFuzzPKI.shared

    private static var caRoots: TLSTrustRoots { .only([.bytes(pki.ca.certificate)]) }

    /// A server; `keyLog`, its sink (the recorder's, of the session under test or of the peer).
    private static func server(tight: Bool, mutual: Bool, maximum12: Bool = false, trust: Bool = false,
                               keyLog: TLSKeyLog? = TLSFuzzRecorder.shared.peerKeyLog) -> TLSContext {
        var configuration = TLSConfiguration.server(certificateChain: .bytes(pki.server.certificate), privateKey: .bytes(pki.server.key))
        if tight { configuration.limits = tightLimits }
        if mutual { configuration.clientCertificates = .required(trustRoots: caRoots) }
        if maximum12 { configuration.maximumVersion = .v1_2 }
        if trust {
            if !mutual { configuration.clientCertificates = .optional(trustRoots: caRoots) }
            configuration.trustEvaluator = TLSFuzzRecorder.shared.evaluator
        }
        configuration.unsafeKeyLog = keyLog
        return make(configuration)
    }

    private static func client(tight: Bool, pinned: Bool, certificate: Bool = false, maximum12: Bool = false, trust: Bool = false,
                               keyLog: TLSKeyLog? = TLSFuzzRecorder.shared.peerKeyLog) -> TLSContext {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = caRoots
        if tight { configuration.limits = tightLimits }
        if pinned { configuration.pinnedPublicKeys = [pki.caPin] }
        if maximum12 { configuration.maximumVersion = .v1_2 }
        if certificate {
            configuration.certificateChain = .bytes(pki.client.certificate)
            configuration.privateKey = .bytes(pki.client.key)
        }
        if trust { configuration.trustEvaluator = TLSFuzzRecorder.shared.evaluator }
        configuration.unsafeKeyLog = keyLog
        return make(configuration)
    }

    private static func make(_ configuration: TLSConfiguration) -> TLSContext {
        do throws(WebSocketError) {
            return try TLSContext(configuration)
        } catch {
            fatalError("fuzz TLS context: \(error)")
        }
    }

    /// By ``underTest(server:tight:variant:trust:)``'s index. Only the trust contexts log keys (to
    /// the recorder's lines of the session under test).
    private static let underTestContexts: [TLSContext] = (0..<16).map { index in
        let (isServer, tight, variant, trust) = (index & 8 != 0, index & 4 != 0, index & 2 != 0, index & 1 != 0)
        let keyLog = trust ? TLSFuzzRecorder.shared.underTestKeyLog : nil
        return isServer ? server(tight: tight, mutual: variant, trust: trust, keyLog: keyLog)
            : client(tight: tight, pinned: variant, trust: trust, keyLog: keyLog)
    }
    private static let resumingClient13 = resuming(tls12: false)
    private static let resumingClient12 = resuming(tls12: true)
    private static let namedServer13 = named(tls12: false)
    private static let namedServer12 = named(tls12: true)

    private static func resuming(tls12: Bool) -> TLSContext {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = caRoots
        configuration.sessionCache = sessionCache
        if tls12 { configuration.maximumVersion = .v1_2 }
        return make(configuration)
    }

    private static func named(tls12: Bool) -> TLSContext {
        var configuration = TLSConfiguration.server(certificateChain: .bytes(pki.server.certificate), privateKey: .bytes(pki.server.key))
        configuration.additionalCertificates = [TLSServerCertificate(certificateChain: .bytes(pki.alternative.certificate),
                                                                     privateKey: .bytes(pki.alternative.key))]
        if tls12 { configuration.maximumVersion = .v1_2 }
        return make(configuration)
    }

    private static let peerClient = client(tight: false, pinned: false)
    private static let peerClient12 = client(tight: false, pinned: false, maximum12: true)
    private static let peerClientWithCertificate = client(tight: false, pinned: false, certificate: true)
    private static let peerClientWithCertificate12 = client(tight: false, pinned: false, certificate: true, maximum12: true)
    private static let peerServer = server(tight: false, mutual: false)
    private static let peerServer12 = server(tight: false, mutual: false, maximum12: true)
}
