// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// `TLSContext.reload(_:)`: new sessions get the new configuration, sessions made before keep
/// theirs, and a reload that fails changes nothing.
@Suite(.onTestThreads) struct ReloadTests {
    let pki = TestPKI.shared

    static func connect(_ client: TLSConfiguration, _ server: TLSContext) throws -> SessionPair {
        var pair = SessionPair(client: try TLSContext(client).makeClientSession(serverName: "localhost"),
                               server: try server.makeServerSession())
        pair.run()
        return pair
    }

    /// `pair` still carries a message each way.
    static func stillWorks(_ pair: inout SessionPair, _ text: String) {
        pair.clientRead = []
        pair.serverRead = []
        pair.client.send(Array(text.utf8))
        pair.server.send(Array(text.utf8))
        pair.run()
        #expect(pair.serverRead == Array(text.utf8))
        #expect(pair.clientRead == Array(text.utf8))
    }

    @Test func newSessionsGetTheNewCertificateAndOpenOnesGoOn() throws {
        let context = try TLSContext(Configurations.server(pki.server))
        var open = try Self.connect(Configurations.client(), context)
        #expect(open.client.status == .established)
        // A session made before the reload, whose handshake has not even started.
        var early = SessionPair(client: try TLSContext(Configurations.client()).makeClientSession(serverName: "localhost"),
                                server: try context.makeServerSession())
        try context.reload(Configurations.server(pki.fromOtherCA))
        #expect(context.configuration.certificateChain == pki.fromOtherCA.certificate)
        Self.stillWorks(&open, "after the reload")
        early.run()
        #expect(early.client.peerCertificateSubject == "CN=localhost")
        #expect(early.client.status == .established)
        // New sessions present the other CA's certificate: a client trusting only the first CA refuses it.
        let refused = try Self.connect(Configurations.client(), context)
        #expect(refused.client.tlsError?.kind == .unknownIssuer)
        let accepted = try Self.connect(Configurations.client(trusting: [pki.otherCA]), context)
        #expect(accepted.client.status == .established)
    }

    @Test func aFailedReloadKeepsTheOldCertificate() throws {
        let context = try TLSContext(Configurations.server(pki.server))
        var open = try Self.connect(Configurations.client(), context)
        let mismatched = TLSConfiguration.server(certificateChain: pki.fromOtherCA.certificate, privateKey: pki.server.key)
        let missing = TLSConfiguration.server(certificateChain: .file("/nonexistent/cert.pem"), privateKey: .file("/nonexistent/key.pem"))
        for (configuration, words) in [(mismatched, "does not match"), (missing, "/nonexistent/cert.pem")] {
            let error = try #require(throws: WebSocketError.self) { try context.reload(configuration) }
            guard case .tls(let tls) = error else { Issue.record("\(error)"); continue }
            #expect(tls.kind == .configuration)
            #expect(tls.reason.contains(words), "\(tls.reason)")
            #expect(context.configuration.certificateChain == pki.server.certificate)
            #expect(try Self.connect(Configurations.client(), context).client.status == .established)
        }
        Self.stillWorks(&open, "after two failed reloads")
        #expect(throws: WebSocketError.self) { try context.reload(Configurations.client()) }
    }

    @Test func aReloadEndsEveryTicketIssuedBefore() throws {
        let clientContext = try ResumptionTests.client(), server = try ResumptionTests.server()
        _ = try ResumptionTests.connect(clientContext, server)
        #expect(try ResumptionTests.connect(clientContext, server).client.isResumed)
        try server.reload(server.configuration)
        let afterReload = try ResumptionTests.connect(clientContext, server)
        #expect(!afterReload.client.isResumed && !afterReload.server.isResumed)
        // The ticket of the full handshake after the reload works again.
        #expect(try ResumptionTests.connect(clientContext, server).client.isResumed)
    }

    @Test func aClientReloadDropsItsCachedSessions() throws {
        let clientContext = try ResumptionTests.client(), server = try ResumptionTests.server()
        _ = try ResumptionTests.connect(clientContext, server)
        try clientContext.reload(clientContext.configuration)
        #expect(try !ResumptionTests.connect(clientContext, server).client.isResumed)
    }

    @Test func reloadingWhileOtherThreadsMakeSessions() async throws {
        let context = try TLSContext(Configurations.server(pki.server))
        let configurations = [Configurations.server(pki.server),
                              TLSConfiguration.server(certificateChain: .bytes(pki.intermediateChainPEM), privateKey: pki.viaIntermediate.key)]
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<20 {
                        if worker == 0 {
                            try? context.reload(configurations[round % 2])
                        } else if var pair = try? Self.connect(Configurations.client(), context) {
                            pair.run()
                            #expect(pair.client.status == .established, "\(pair.client.status)")
                        }
                    }
                }
            }
        }
    }
}
#endif
