// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// A client's verification of the server: the chain, the validity period, the name or address.
@Suite struct VerificationTests {
    let pki = TestPKI.shared

    /// Runs a handshake of a client verifying `serverName` against a server presenting `chain`.
    func handshake(serverName: String = "localhost", presenting identity: TestIdentity? = nil,
                   chain: PEMSource? = nil, client: TLSConfiguration = Configurations.client()) throws -> SessionPair {
        let identity = identity ?? pki.server
        let server = TLSConfiguration.server(certificateChain: chain ?? identity.certificate, privateKey: identity.key)
        var pair = try SessionPair(client: client, server: server, serverName: serverName)
        pair.run()
        return pair
    }

    @Test func trustedChainAndName() throws {
        let pair = try handshake()
        #expect(pair.client.status == .established)
        #expect(pair.client.peerCertificateSubject == "CN=localhost")
    }

    @Test func certificateFromAnotherCAIsAnUnknownIssuer() throws {
        let pair = try handshake(presenting: pki.fromOtherCA)
        #expect(pair.client.tlsError?.kind == .unknownIssuer)
        #expect(pair.client.tlsError?.reason.contains("unable to get local issuer certificate") == true)
        // The server learns it from the client's alert.
        #expect(pair.server.tlsError?.kind == .handshakeFailed)
        #expect(pair.server.tlsError?.reason.contains("unknown ca") == true)
    }

    @Test func selfSignedCertificateIsAnUnknownIssuer() throws {
        let pair = try handshake(presenting: pki.otherCA)
        #expect(pair.client.tlsError?.kind == .unknownIssuer)
        #expect(pair.client.tlsError?.reason.contains("self-signed") == true)
    }

    @Test func systemRootsDoNotTrustThePrivateCA() throws {
        var client = TLSConfiguration.client()
        client.trustRoots = .system
        #expect(try handshake(client: client).client.tlsError?.kind == .unknownIssuer)
        client.trustRoots = .systemAnd([pki.ca.certificate])
        #expect(try handshake(client: client).client.status == .established)
    }

    @Test func rootsReplacedDoNotTrustAnotherCA() throws {
        let client = Configurations.client(trusting: [pki.otherCA])
        #expect(try handshake(client: client).client.tlsError?.kind == .unknownIssuer)
    }

    @Test func nameMismatchNamesTheExpectedName() throws {
        let pair = try handshake(serverName: "example.com")
        #expect(pair.client.tlsError?.kind == .nameMismatch(expected: "example.com"))
        #expect(pair.client.tlsError?.reason == "hostname mismatch")
        #expect(pair.server.status != .established)
    }

    @Test func expiredCertificate() throws {
        let pair = try handshake(presenting: pki.expired)
        #expect(pair.client.tlsError?.kind == .expired)
        #expect(pair.client.tlsError?.reason == "certificate has expired")
    }

    @Test func certificateNotYetValid() throws {
        let pair = try handshake(presenting: pki.notYetValid)
        #expect(pair.client.tlsError?.kind == .notYetValid)
        #expect(pair.client.tlsError?.reason == "certificate is not yet valid")
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func ipAddressesAreVerifiedAndNotSentAsSNI(address: String) throws {
        let pair = try handshake(serverName: address)
        #expect(pair.client.status == .established)
        #expect(pair.server.status == .established)
        #expect(pair.server.requestedServerName == nil)
    }

    @Test(arguments: ["127.0.0.2", "::2"])
    func anotherIPAddressIsAMismatch(address: String) throws {
        let pair = try handshake(serverName: address)
        #expect(pair.client.tlsError?.kind == .nameMismatch(expected: address))
        #expect(pair.client.tlsError?.reason == "IP address mismatch")
    }

    @Test func anAddressMatchesOnlyAnIPAddressEntry() throws {
        // The certificate holds "127.0.0.1" as a DNS name (and as its CN), not as an iPAddress.
        let pair = try handshake(serverName: "127.0.0.1", presenting: pki.addressAsName)
        #expect(pair.client.tlsError?.kind == .nameMismatch(expected: "127.0.0.1"))
    }

    @Test func aTrailingDotIsNotPartOfTheName() throws {
        let pair = try handshake(serverName: "localhost.")
        #expect(pair.client.status == .established)
        #expect(pair.server.requestedServerName == "localhost")
    }

    @Test func wildcards() throws {
        #expect(try handshake(serverName: "a.wild.test", presenting: pki.wildcards).client.status == .established)
        // A wildcard covers one label only.
        #expect(try handshake(serverName: "a.b.wild.test", presenting: pki.wildcards).client.tlsError?.kind
                    == .nameMismatch(expected: "a.b.wild.test"))
        // Partial wildcards are refused (X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS).
        #expect(try handshake(serverName: "www.example.test", presenting: pki.wildcards).client.tlsError?.kind
                    == .nameMismatch(expected: "www.example.test"))
    }

    @Test func intermediateServedWithTheLeaf() throws {
        let chain = PEMSource.bytes(pki.intermediateChainPEM)
        #expect(try handshake(presenting: pki.viaIntermediate, chain: chain).client.status == .established)
        // Without its intermediate, the leaf does not lead to the root.
        let alone = try handshake(presenting: pki.viaIntermediate)
        #expect(alone.client.tlsError?.kind == .unknownIssuer)
    }

    @Test func disabledVerificationAcceptsAnyServerAndStillSendsSNI() throws {
        var client = TLSConfiguration.client()
        client.certificateVerification = .disabledInsecurely
        let pair = try handshake(presenting: pki.fromOtherCA, client: client)
        #expect(pair.client.status == .established)
        #expect(pair.server.requestedServerName == "localhost")
        // Nothing was verified, so nothing is reported as the server's identity.
        #expect(pair.client.peerCertificateSubject == nil)
        let expired = try handshake(serverName: "example.com", presenting: pki.expired, client: client)
        #expect(expired.client.status == .established)
        #expect(expired.server.requestedServerName == "example.com")
    }
}
#endif
