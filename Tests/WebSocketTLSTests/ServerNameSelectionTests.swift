// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// `TLSConfiguration.additionalCertificates`: the server's certificate chosen by the client's
/// server name (SNI), the default for no name or an unknown one.
@Suite struct ServerNameSelectionTests {
    let pki = TestPKI.shared

    /// The leaf a server of `server` presents to a client asking for `serverName` (a DNS name is
    /// sent as SNI, an address is not), recorded by an evaluator that accepts whatever it sees.
    func servedLeaf(_ server: TLSConfiguration, serverName: String, version: TLSVersion? = nil) throws -> [UInt8]? {
        let recorder = RecordingEvaluator { _ in .acceptOverridingFailure(reason: "recording the leaf") }
        var client = Configurations.client()
        client.trustEvaluator = recorder.evaluator
        client.maximumVersion = version
        var pair = try SessionPair(client: client, server: server, serverName: serverName)
        pair.run()
        #expect(pair.client.status == .established, "\(serverName): \(pair.client.status)")
        #expect(pair.server.status == .established, "\(serverName): \(pair.server.status)")
        return recorder.evaluations.first?.certificateChain.first
    }

    /// The default (`localhost`), and `pki.alternative` chosen by the names it is valid for.
    func twoCertificates() -> TLSConfiguration {
        var server = Configurations.server()
        server.additionalCertificates = [TLSServerCertificate(certificateChain: pki.alternative.certificate,
                                                              privateKey: pki.alternative.key)]
        return server
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func theClientsNameChoosesTheCertificate(version: TLSVersion) throws {
        let server = twoCertificates()
        #expect(try servedLeaf(server, serverName: "alpha.example.test", version: version) == pki.alternative.certificateDER)
        #expect(try servedLeaf(server, serverName: "localhost", version: version) == pki.server.certificateDER)
    }

    @Test func namesAreComparedWithoutCaseAndWildcardsCoverOneLabel() throws {
        let server = twoCertificates()
        #expect(try servedLeaf(server, serverName: "ALPHA.Example.TEST") == pki.alternative.certificateDER)
        #expect(try servedLeaf(server, serverName: "x.beta.example.test") == pki.alternative.certificateDER)
        #expect(try servedLeaf(server, serverName: "X.BETA.example.test") == pki.alternative.certificateDER)
        // The wildcard covers one label: neither the domain itself nor two labels.
        #expect(try servedLeaf(server, serverName: "beta.example.test") == pki.server.certificateDER)
        #expect(try servedLeaf(server, serverName: "x.y.beta.example.test") == pki.server.certificateDER)
    }

    @Test func anUnknownNameOrNoNameGetsTheDefault() throws {
        let server = twoCertificates()
        #expect(try servedLeaf(server, serverName: "unknown.example.test") == pki.server.certificateDER)
        // An address is never sent as SNI.
        #expect(try servedLeaf(server, serverName: "127.0.0.1") == pki.server.certificateDER)
    }

    @Test func aVerifyingClientAcceptsTheChosenCertificate() throws {
        var pair = try SessionPair(client: Configurations.client(), server: twoCertificates(), serverName: "alpha.example.test")
        pair.run()
        #expect(pair.client.status == .established)
        #expect(pair.client.peerCertificateSubject == "CN=sni-alternative")
        #expect(pair.server.requestedServerName == "alpha.example.test")
    }

    @Test func explicitNamesReplaceTheCertificatesOwn() throws {
        var server = Configurations.server()
        server.additionalCertificates = [
            TLSServerCertificate(serverNames: ["api.example.test"], certificateChain: pki.fromOtherCA.certificate,
                                 privateKey: pki.fromOtherCA.key),
            TLSServerCertificate(serverNames: ["*.Example.TEST"], certificateChain: pki.alternative.certificate,
                                 privateKey: pki.alternative.key),
        ]
        // An exact name wins over an earlier wildcard, whatever the order.
        #expect(try servedLeaf(server, serverName: "api.example.test") == pki.fromOtherCA.certificateDER)
        #expect(try servedLeaf(server, serverName: "www.example.test") == pki.alternative.certificateDER)
        // The certificate's own names no longer count.
        #expect(try servedLeaf(server, serverName: "alpha.example.test") == pki.alternative.certificateDER)
        #expect(try servedLeaf(server, serverName: "x.beta.example.test") == pki.server.certificateDER)
    }

    @Test func anExactNameOfTheDefaultWinsOverAnAdditionalWildcard() throws {
        var server = Configurations.server()
        server.additionalCertificates = [TLSServerCertificate(serverNames: ["*.localhost", "localhost.example.test"],
                                                              certificateChain: pki.alternative.certificate,
                                                              privateKey: pki.alternative.key)]
        #expect(try servedLeaf(server, serverName: "localhost") == pki.server.certificateDER)
        #expect(try servedLeaf(server, serverName: "a.localhost") == pki.alternative.certificateDER)
    }

    @Test func badNamesAndKeysAreConfigurationErrors() throws {
        for name in ["", "*", "w*.example.test", "*.*.example.test", "a..example.test", "é.example.test"] {
            var server = Configurations.server()
            server.additionalCertificates = [TLSServerCertificate(serverNames: [name], certificateChain: pki.alternative.certificate,
                                                                  privateKey: pki.alternative.key)]
            #expect(throws: WebSocketError.self, "\(String(reflecting: name))") { try TLSContext(server) }
        }
        var mismatched = Configurations.server()
        mismatched.additionalCertificates = [TLSServerCertificate(certificateChain: pki.alternative.certificate, privateKey: pki.server.key)]
        let error = try #require(throws: WebSocketError.self) { try TLSContext(mismatched) }
        guard case .tls(let tls) = error else { Issue.record("\(error)"); return }
        #expect(tls.kind == .configuration)
        #expect(tls.reason.contains("does not match"))
        var client = Configurations.client()
        client.additionalCertificates = [TLSServerCertificate(certificateChain: pki.alternative.certificate, privateKey: pki.alternative.key)]
        #expect(throws: WebSocketError.self) { try TLSContext(client) }
    }
}
#endif
