// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketTLS

/// The contexts of the TLS targets, made once: the session under test in each configuration the
/// control byte selects, and the real peers of the man-in-the-middle mode.
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
    /// the CA's key pinned), with the default or the tight limits.
    static func underTest(server: Bool, tight: Bool, variant: Bool) -> TLSContext {
        switch (server, tight, variant) {
        case (true, false, false): return serverDefault
        case (true, true, false): return serverTight
        case (true, false, true): return serverMutual
        case (true, true, true): return serverMutualTight
        case (false, false, false): return clientDefault
        case (false, true, false): return clientTight
        case (false, false, true): return clientPinned
        case (false, true, true): return clientPinnedTight
        }
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

    private static let pki = TLSFuzzPKI.shared

    private static func server(tight: Bool, mutual: Bool, maximum12: Bool = false) -> TLSContext {
        var configuration = TLSConfiguration.server(certificateChain: .bytes(pki.server.certificate), privateKey: .bytes(pki.server.key))
        if tight { configuration.limits = tightLimits }
        if mutual { configuration.clientCertificates = .required(trustRoots: .only([.bytes(pki.ca.certificate)])) }
        if maximum12 { configuration.maximumVersion = .v1_2 }
        return make(configuration)
    }

    private static func client(tight: Bool, pinned: Bool, certificate: Bool = false, maximum12: Bool = false) -> TLSContext {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only([.bytes(pki.ca.certificate)])
        if tight { configuration.limits = tightLimits }
        if pinned { configuration.pinnedPublicKeys = [pki.caPin] }
        if maximum12 { configuration.maximumVersion = .v1_2 }
        if certificate {
            configuration.certificateChain = .bytes(pki.client.certificate)
            configuration.privateKey = .bytes(pki.client.key)
        }
        return make(configuration)
    }

    private static func make(_ configuration: TLSConfiguration) -> TLSContext {
        do throws(WebSocketError) {
            return try TLSContext(configuration)
        } catch {
            fatalError("fuzz TLS context: \(error)")
        }
    }

    private static let serverDefault = server(tight: false, mutual: false)
    private static let serverTight = server(tight: true, mutual: false)
    private static let serverMutual = server(tight: false, mutual: true)
    private static let serverMutualTight = server(tight: true, mutual: true)
    private static let clientDefault = client(tight: false, pinned: false)
    private static let clientTight = client(tight: true, pinned: false)
    private static let clientPinned = client(tight: false, pinned: true)
    private static let clientPinnedTight = client(tight: true, pinned: true)
    private static let peerClient = client(tight: false, pinned: false)
    private static let peerClient12 = client(tight: false, pinned: false, maximum12: true)
    private static let peerClientWithCertificate = client(tight: false, pinned: false, certificate: true)
    private static let peerClientWithCertificate12 = client(tight: false, pinned: false, certificate: true, maximum12: true)
    private static let peerServer = server(tight: false, mutual: false)
    private static let peerServer12 = server(tight: false, mutual: false, maximum12: true)
}
