// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// Client certificates: a server that asks for one, a client that presents one.
@Suite struct MutualTLSTests {
    let pki = TestPKI.shared

    func handshake(policy: ClientCertificatePolicy, presenting identity: TestIdentity?,
                   clientMaximum: TLSVersion? = nil) throws -> SessionPair {
        try SessionPair.mutual(policy: policy, presenting: identity, clientMaximum: clientMaximum)
    }

    static let testRoots = TLSTrustRoots.only([TestPKI.shared.ca.certificate])

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func requiredCertificatePresented(version: TLSVersion) throws {
        let pair = try handshake(policy: .required(trustRoots: Self.testRoots), presenting: pki.client, clientMaximum: version)
        #expect(pair.client.status == .established)
        #expect(pair.server.status == .established)
        #expect(pair.server.peerCertificateSubject == "CN=test-client")
        #expect(pair.server.negotiatedVersion == version)
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func requiredCertificateMissing(version: TLSVersion) throws {
        let pair = try handshake(policy: .required(trustRoots: Self.testRoots), presenting: nil, clientMaximum: version)
        #expect(pair.server.tlsError?.kind == .peerCertificateRequired)
        // TLS 1.2 fails the client's handshake; TLS 1.3 tells the client after its handshake
        // completed, with an alert it reads: a handshake failure either way.
        #expect(pair.client.tlsError?.kind == .handshakeFailed)
        if version == .v1_3 {
            #expect(pair.client.tlsError?.reason.contains("requires a client certificate") == true)
        }
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func clientCertificateFromAnUntrustedCA(version: TLSVersion) throws {
        let pair = try handshake(policy: .required(trustRoots: Self.testRoots), presenting: pki.clientFromOtherCA,
                                 clientMaximum: version)
        #expect(pair.server.tlsError?.kind == .unknownIssuer)
        #expect(pair.client.tlsError?.kind == .handshakeFailed)
        #expect(pair.client.tlsError?.reason.contains("refused our certificate") == true)
    }

    @Test func optionalCertificateAbsent() throws {
        let pair = try handshake(policy: .optional(trustRoots: Self.testRoots), presenting: nil)
        #expect(pair.server.status == .established)
        #expect(pair.server.peerCertificateSubject == nil)
    }

    @Test func optionalCertificatePresented() throws {
        let pair = try handshake(policy: .optional(trustRoots: Self.testRoots), presenting: pki.client)
        #expect(pair.server.status == .established)
        #expect(pair.server.peerCertificateSubject == "CN=test-client")
    }

    @Test func optionalCertificateThatDoesNotVerifyIsRefused() throws {
        let pair = try handshake(policy: .optional(trustRoots: Self.testRoots), presenting: pki.clientFromOtherCA)
        #expect(pair.server.tlsError?.kind == .unknownIssuer)
    }

    @Test func noneAsksForNothing() throws {
        let pair = try handshake(policy: .none, presenting: pki.client)
        #expect(pair.server.status == .established)
        #expect(pair.server.peerCertificateSubject == nil)
    }
}
#endif
