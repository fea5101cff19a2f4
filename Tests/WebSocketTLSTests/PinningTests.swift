// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// Public-key pins (`sha256/BASE64` of the SubjectPublicKeyInfo), checked on top of the chain's
/// verification.
@Suite struct PinningTests {
    let pki = TestPKI.shared

    func handshake(pins: [String], presenting identity: TestIdentity? = nil, chain: PEMSource? = nil,
                   trusting roots: [TestIdentity]? = nil) throws -> SessionPair {
        let identity = identity ?? pki.server
        var client = Configurations.client(trusting: roots ?? [pki.ca])
        client.pinnedPublicKeys = pins
        let server = TLSConfiguration.server(certificateChain: chain ?? identity.certificate, privateKey: identity.key)
        var pair = try SessionPair(client: client, server: server)
        pair.run()
        return pair
    }

    @Test func theLeafsPinMatches() throws {
        let pair = try handshake(pins: [pki.server.pin])
        #expect(pair.client.status == .established)
        #expect(pair.server.status == .established)
    }

    @Test func anyCertificateOfTheVerifiedChainMayMatch() throws {
        let chain = PEMSource.bytes(pki.intermediateChainPEM)
        for pin in [pki.viaIntermediate.pin, pki.intermediate.pin, pki.ca.pin] {
            #expect(try handshake(pins: [pin], presenting: pki.viaIntermediate, chain: chain).client.status == .established)
        }
    }

    @Test func onePinOfSeveralIsEnough() throws {
        #expect(try handshake(pins: [pki.otherCA.pin, pki.server.pin]).client.status == .established)
    }

    @Test func noPinnedKeyInTheChainIsAPinMismatch() throws {
        let pair = try handshake(pins: [pki.otherCA.pin, pki.client.pin])
        #expect(pair.client.tlsError?.kind == .pinMismatch)
        #expect(pair.server.tlsError?.kind == .handshakeFailed)
        #expect(pair.server.status != .established)
    }

    @Test func aPinNeverMakesAnUntrustedChainAcceptable() throws {
        // The pin matches the server's key, but its CA is not trusted: the chain's own error wins.
        let pair = try handshake(pins: [pki.fromOtherCA.pin], presenting: pki.fromOtherCA)
        #expect(pair.client.tlsError?.kind == .unknownIssuer)
        let expired = try handshake(pins: [pki.expired.pin], presenting: pki.expired)
        #expect(expired.client.tlsError?.kind == .expired)
    }

    @Test func aPinNeverExcusesANameMismatch() throws {
        var client = Configurations.client()
        client.pinnedPublicKeys = [pki.server.pin]
        var pair = try SessionPair(client: client, server: Configurations.server(), serverName: "example.com")
        pair.run()
        #expect(pair.client.tlsError?.kind == .nameMismatch(expected: "example.com"))
    }

    @Test(arguments: [
        "sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=",                      // another hash
        "sha256/",                                               // nothing
        "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",      // unpadded
        "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", // 36 bytes
        "sha256/!AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",     // not base64
        "SHA256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",     // prefix case
        " sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",    // space
    ])
    func malformedPinsAreConfigurationErrors(pin: String) throws {
        var client = Configurations.client()
        client.pinnedPublicKeys = [pki.server.pin, pin]
        #expect {
            try TLSContext(client)
        } throws: { error in
            guard case WebSocketError.tls(let tls) = error else { return false }
            return tls.kind == .configuration && tls.reason.contains(String(reflecting: pin))
        }
    }

    @Test func aWellFormedPinOfZerosParses() throws {
        var client = Configurations.client()
        client.pinnedPublicKeys = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
        _ = try TLSContext(client)
    }
}
#endif
