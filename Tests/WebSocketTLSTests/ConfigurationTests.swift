// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Glibc
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// What a TLSContext refuses to load, and how it says so.
@Suite struct ConfigurationTests {
    let pki = TestPKI.shared

    /// The configuration error `body` throws, or a recorded issue.
    func configurationError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> TLSError? {
        do {
            try body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch {
            guard case WebSocketError.tls(let tls) = error, tls.kind == .configuration else {
                Issue.record("not a configuration error: \(error)", sourceLocation: sourceLocation)
                return nil
            }
            return tls
        }
        return nil
    }

    @Test func aTrustEvaluatorNeedsVerification() {
        var client = TLSConfiguration.client()
        client.certificateVerification = .disabledInsecurely
        client.trustEvaluator = TLSTrustEvaluator { _ in .accept }
        #expect(configurationError { _ = try TLSContext(client) }?.reason.contains("trustEvaluator needs certificate verification") == true)
        // A server's decides on client certificates, which it must ask for.
        var server = Configurations.server()
        server.trustEvaluator = TLSTrustEvaluator { _ in .accept }
        #expect(configurationError { _ = try TLSContext(server) }?.reason.contains("clientCertificates") == true)
    }

    @Test func pinnedCertificatesNeedWholeFingerprints() {
        for fingerprints in [[], [[UInt8](repeating: 1, count: 20)], [pki.selfSigned.fingerprint, [0]]] {
            #expect(configurationError { _ = try TLSTrustEvaluator.pinnedCertificates(sha256: fingerprints) } != nil)
        }
    }

    @Test func aMissingFileIsNamed() {
        let error = configurationError { _ = try TLSContext(.server(certificateChain: .file("/nonexistent/chain.pem"),
                                                                      privateKey: pki.server.key)) }
        #expect(error?.reason.contains("\"/nonexistent/chain.pem\"") == true)
        #expect(error?.reason.contains("No such file or directory") == true)
    }

    @Test func filesLoad() throws {
        let directory = "/tmp/websocket-tls-tests-\(Int.random(in: 0...Int.max))"
        let chain = directory + "-chain.pem", key = directory + "-key.pem", ca = directory + "-ca.pem"
        try write(pki.server.certificatePEM, to: chain)
        try write(pki.server.keyPEM, to: key)
        try write(pki.ca.certificatePEM, to: ca)
        defer { for path in [chain, key, ca] { unlink(path) } }
        var client = TLSConfiguration.client()
        client.trustRoots = .only([.file(ca)])
        var pair = try SessionPair(client: client, server: .server(certificateChain: .file(chain), privateKey: .file(key)))
        pair.run()
        #expect(pair.client.status == .established)
    }

    @Test func pemThatIsNotACertificate() {
        let error = configurationError { _ = try TLSContext(.server(certificateChain: .pem("hello"), privateKey: pki.server.key)) }
        #expect(error?.reason.contains("no PEM certificate") == true)
        let truncated = Array(pki.server.certificatePEM.dropLast(40))
        let second = configurationError { _ = try TLSContext(.server(certificateChain: .bytes(truncated), privateKey: pki.server.key)) }
        #expect(second?.reason.contains("cannot read the certificate chain") == true)
    }

    @Test func aKeyThatDoesNotMatchItsCertificate() {
        let error = configurationError { _ = try TLSContext(.server(certificateChain: pki.server.certificate, privateKey: pki.client.key)) }
        #expect(error?.reason.contains("does not match") == true)
        #expect(error?.reason.contains("key values mismatch") == true)
    }

    @Test func aKeyThatIsNotPEM() {
        let error = configurationError { _ = try TLSContext(.server(certificateChain: pki.server.certificate, privateKey: .pem("nope"))) }
        #expect(error?.reason.contains("cannot read a private key") == true)
    }

    @Test func anEncryptedKeyFailsWithoutAskingForAPassword() {
        let error = configurationError { _ = try TLSContext(.server(certificateChain: pki.server.certificate,
                                                                      privateKey: .bytes(pki.encryptedServerKeyPEM))) }
        #expect(error?.reason.contains("encrypted key") == true)
    }

    @Test func trustRootsThatDoNotLoad() {
        var client = TLSConfiguration.client()
        client.trustRoots = .systemAnd([.file("/nonexistent/ca.pem")])
        let error = configurationError { _ = try TLSContext(client) }
        #expect(error?.reason.contains("/nonexistent/ca.pem") == true)
    }

    @Test func sessionsOfTheOtherRole() throws {
        let client = try TLSContext(Configurations.client())
        let server = try TLSContext(Configurations.server())
        #expect(configurationError { _ = try client.makeServerLayer() }?.reason.contains("client TLS context") == true)
        #expect(configurationError { _ = try server.makeClientLayer(serverName: "localhost") }?.reason.contains("server TLS context") == true)
        #expect(try client.makeClientLayer(serverName: "localhost").status == .establishing)
        #expect(try server.makeServerLayer().status == .establishing)
    }

    @Test func settingsOfTheOtherRoleAreRefused() {
        var server = Configurations.server()
        server.pinnedPublicKeys = [pki.server.pin]
        #expect(configurationError { _ = try TLSContext(server) } != nil)
        server = Configurations.server()
        server.trustRoots = .only([pki.ca.certificate])
        #expect(configurationError { _ = try TLSContext(server) }?.reason.contains("clientCertificates") == true)
        server = Configurations.server()
        server.certificateVerification = .disabledInsecurely
        #expect(configurationError { _ = try TLSContext(server) } != nil)
        server = Configurations.server()
        server.privateKey = nil
        #expect(configurationError { _ = try TLSContext(server) } != nil)
        var client = Configurations.client()
        client.clientCertificates = .required(trustRoots: .system)
        #expect(configurationError { _ = try TLSContext(client) }?.reason.contains("server setting") == true)
    }

    @Test func aClientCertificateNeedsItsKey() {
        var client = Configurations.client()
        client.certificateChain = pki.client.certificate
        #expect(configurationError { _ = try TLSContext(client) }?.reason.contains("without its private key") == true)
        client.certificateChain = nil
        client.privateKey = pki.client.key
        #expect(configurationError { _ = try TLSContext(client) }?.reason.contains("without a certificate chain") == true)
    }

    @Test func pinsNeedVerification() {
        var client = Configurations.client()
        client.certificateVerification = .disabledInsecurely
        client.pinnedPublicKeys = [pki.server.pin]
        #expect(configurationError { _ = try TLSContext(client) }?.reason.contains("need certificate verification") == true)
    }

    @Test(arguments: ["", "exa mple.com", "example.com\0.evil", "bücher.example", "::zz", "1::2::3", ".", String(repeating: "a", count: 254)])
    func unusableServerNames(name: String) throws {
        let context = try TLSContext(Configurations.client())
        let error = configurationError { _ = try context.makeClientSession(serverName: name) }
        #expect(error?.reason.contains("server name") == true)
    }

    @Test func errorsDescribeThemselves() {
        let error = TLSError(.nameMismatch(expected: "example.com"), reason: "hostname mismatch")
        #expect(WebSocketError.tls(error).description == "TLS: certificate is not valid for \"example.com\" (hostname mismatch)")
        #expect(PEMSource.bytes([1, 2, 3]).description == "PEM bytes (3 bytes)")
    }

    private func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw TLSError(.configuration, reason: "cannot write \(path)") }
        defer { fclose(file) }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }
}
#endif
