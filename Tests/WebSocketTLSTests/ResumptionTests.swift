// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// Session resumption: a client's `TLSSessionCache`, a server's `TLSSessionTickets`.
@Suite struct ResumptionTests {
    let pki = TestPKI.shared

    /// A client context with `cache` (a new one of 16 by default), at most `version`.
    static func client(cache: TLSSessionCache? = TLSSessionCache(capacity: 16), version: TLSVersion? = nil,
                       configure: (inout TLSConfiguration) -> Void = { _ in }) throws -> TLSContext {
        var configuration = Configurations.client()
        configuration.sessionCache = cache
        configuration.maximumVersion = version
        configure(&configuration)
        return try TLSContext(configuration)
    }

    static func server(_ tickets: TLSSessionTickets = .tls13(lifetime: .seconds(7_200)),
                       configure: (inout TLSConfiguration) -> Void = { _ in }) throws -> TLSContext {
        var configuration = Configurations.server()
        configuration.sessionTickets = tickets
        configure(&configuration)
        return try TLSContext(configuration)
    }

    /// A completed handshake and one message each way (the client reads the server's tickets).
    static func connect(_ client: TLSContext, _ server: TLSContext, serverName: String = "localhost", port: UInt16? = nil,
                        split: Split = .whole) throws -> SessionPair {
        var pair = SessionPair(client: try client.makeClientSession(serverName: serverName, port: port),
                               server: try server.makeServerSession(), split: split)
        pair.run()
        pair.client.send(Array("ping".utf8))
        pair.server.send(Array("pong".utf8))
        pair.run()
        #expect(pair.client.status == .established, "\(pair.client.status)")
        #expect(pair.server.status == .established, "\(pair.server.status)")
        #expect(pair.serverRead == Array("ping".utf8))
        #expect(pair.clientRead == Array("pong".utf8))
        return pair
    }

    @Test(arguments: Split.all)
    func aTLS13SessionIsResumedOnce(split: Split) throws {
        let cache = TLSSessionCache(capacity: 16)
        let client = try Self.client(cache: cache), server = try Self.server()
        let first = try Self.connect(client, server, split: split)
        #expect(!first.client.isResumed && !first.server.isResumed)
        #expect(first.client.negotiatedVersion == .v1_3)
        #expect(cache.count == 1)
        let second = try Self.connect(client, server, split: split)
        #expect(second.client.isResumed)
        #expect(second.server.isResumed)
        // The resumed session names the server it verified the first time.
        #expect(second.client.peerCertificateSubject == "CN=localhost")
        // Resuming took the ticket, and stored the one the resumed connection received.
        #expect(cache.count == 1)
        #expect(try Self.connect(client, server).client.isResumed)
    }

    @Test func aResumptionIsShorterThanAFullHandshake() throws {
        let client = try Self.client(), server = try Self.server()
        let full = try Self.connect(client, server)
        let resumed = try Self.connect(client, server)
        #expect(resumed.client.isResumed)
        // No certificate crosses: the server's flight is far shorter.
        #expect(resumed.serverWrote.count + pki.server.certificateDER.count < full.serverWrote.count,
                "\(resumed.serverWrote.count) vs \(full.serverWrote.count)")
    }

    @Test func tls12TicketsOnlyWhenTheServerTurnsThemOn() throws {
        let cache = TLSSessionCache(capacity: 16)
        let client = try Self.client(cache: cache, version: .v1_2)
        // The default: TLS 1.3 tickets only (a TLS 1.2 ticket holds the master secret).
        let tls13Only = try Self.server()
        #expect(try Self.connect(client, tls13Only).client.negotiatedVersion == .v1_2)
        #expect(cache.count == 0)
        #expect(try !Self.connect(client, tls13Only).client.isResumed)
        let both = try Self.server(.tls13AndTLS12(lifetime: .seconds(600)))
        #expect(try !Self.connect(client, both).client.isResumed)
        #expect(cache.count == 1)
        let resumed = try Self.connect(client, both)
        #expect(resumed.client.isResumed && resumed.server.isResumed)
        // A TLS 1.2 session may be offered again.
        #expect(try Self.connect(client, both).client.isResumed)
    }

    @Test func noCacheNoResumption() throws {
        let client = try Self.client(cache: nil), server = try Self.server()
        _ = try Self.connect(client, server)
        let second = try Self.connect(client, server)
        #expect(!second.client.isResumed && !second.server.isResumed)
    }

    @Test func aServerWithoutTicketsResumesNothing() throws {
        let cache = TLSSessionCache(capacity: 16)
        let client = try Self.client(cache: cache), server = try Self.server(.disabled)
        _ = try Self.connect(client, server)
        #expect(cache.count == 0)
        #expect(try !Self.connect(client, server).server.isResumed)
    }

    @Test func aSessionIsOnlyOfferedByTheContextThatMadeIt() throws {
        let cache = TLSSessionCache(capacity: 16)
        let server = try Self.server()
        let first = try Self.client(cache: cache)
        _ = try Self.connect(first, server)
        // The same configuration loaded again, and one trusting another CA as well: neither resumes.
        let again = try TLSContext(first.configuration)
        #expect(try !Self.connect(again, server).client.isResumed)
        let wider = try Self.client(cache: cache) { $0.trustRoots = .only([pki.ca.certificate, pki.otherCA.certificate]) }
        #expect(try !Self.connect(wider, server).client.isResumed)
        #expect(try Self.connect(first, server).client.isResumed)
    }

    @Test func sessionsAreKeptByNameAndPort() throws {
        let client = try Self.client(), server = try Self.server()
        _ = try Self.connect(client, server, serverName: "localhost", port: 443)
        #expect(try !Self.connect(client, server, serverName: "localhost", port: 8443).client.isResumed)
        #expect(try !Self.connect(client, server, serverName: "127.0.0.1", port: 443).client.isResumed)
        #expect(try Self.connect(client, server, serverName: "LOCALHOST", port: 443).client.isResumed)
    }

    @Test func theCacheIsBoundedAndDropsTheLeastRecentlyUsed() throws {
        let cache = TLSSessionCache(capacity: 2)
        let client = try Self.client(cache: cache), server = try Self.server()
        for name in ["localhost", "127.0.0.1", "::1"] { _ = try Self.connect(client, server, serverName: name) }
        #expect(cache.count == 2)
        #expect(try !Self.connect(client, server, serverName: "localhost").client.isResumed)
        #expect(try Self.connect(client, server, serverName: "::1").client.isResumed)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(try !Self.connect(client, server, serverName: "::1").client.isResumed)
        let none = TLSSessionCache(capacity: 0)
        _ = try Self.connect(try Self.client(cache: none), server)
        #expect(none.count == 0)
    }

    @Test func aSessionAcceptedByAnOverrideIsNotStored() throws {
        let cache = TLSSessionCache(capacity: 16)
        let client = try Self.client(cache: cache) {
            $0.trustEvaluator = try? .pinnedCertificates(sha256: [TestPKI.shared.selfSigned.fingerprint])
        }
        let server = try TLSContext(Configurations.server(pki.selfSigned))
        let pair = try Self.connect(client, server)
        #expect(pair.client.trustOverride != nil)
        #expect(cache.count == 0)
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func aClientCertificateAcceptedByAnOverrideIsNotResumed(version: TLSVersion) throws {
        let cache = TLSSessionCache(capacity: 16)
        let client = try Self.client(cache: cache, version: version) {
            $0.certificateChain = TestPKI.shared.clientFromOtherCA.certificate
            $0.privateKey = TestPKI.shared.clientFromOtherCA.key
        }
        let server = try Self.server(.tls13AndTLS12(lifetime: .seconds(600))) {
            $0.clientCertificates = .required(trustRoots: .only([TestPKI.shared.ca.certificate]))
            $0.trustEvaluator = TLSTrustEvaluator { _ in .acceptOverridingFailure(reason: "a known intruder") }
        }
        let first = try Self.connect(client, server)
        #expect(first.server.trustOverride?.reason == "a known intruder")
        // TLS 1.3: no ticket. TLS 1.2 settles on a ticket at the ClientHello, before the
        // certificate: one is sent, marked, and refused when offered.
        #expect(cache.count == (version == .v1_2 ? 1 : 0))
        let second = try Self.connect(client, server)
        #expect(!second.server.isResumed)
        #expect(second.server.trustOverride?.reason == "a known intruder")
    }

    @Test func aServerVerifyingClientsResumesTheirIdentity() throws {
        let client = try Self.client {
            $0.certificateChain = TestPKI.shared.client.certificate
            $0.privateKey = TestPKI.shared.client.key
        }
        let server = try Self.server { $0.clientCertificates = .required(trustRoots: .only([TestPKI.shared.ca.certificate])) }
        _ = try Self.connect(client, server)
        let resumed = try Self.connect(client, server)
        #expect(resumed.server.isResumed)
        #expect(resumed.server.peerCertificateSubject == "CN=test-client")
    }

    @Test func aSessionUnderAnAdditionalCertificateIsResumedUnderIt() throws {
        let client = try Self.client(), server = try Self.server {
            $0.additionalCertificates = [TLSServerCertificate(certificateChain: TestPKI.shared.alternative.certificate,
                                                              privateKey: TestPKI.shared.alternative.key)]
        }
        _ = try Self.connect(client, server, serverName: "alpha.example.test")
        let resumed = try Self.connect(client, server, serverName: "alpha.example.test")
        #expect(resumed.client.isResumed && resumed.server.isResumed)
        #expect(resumed.client.peerCertificateSubject == "CN=sni-alternative")
        #expect(resumed.server.requestedServerName == "alpha.example.test")
    }

    @Test func settingsOfTheOtherRoleAndBadLifetimesAreRefused() throws {
        var server = Configurations.server()
        server.sessionCache = TLSSessionCache()
        #expect(throws: WebSocketError.self) { try TLSContext(server) }
        var client = Configurations.client()
        client.sessionTickets = .disabled
        #expect(throws: WebSocketError.self) { try TLSContext(client) }
        for lifetime: Duration in [.zero, .milliseconds(1_500), .seconds(604_801)] {
            #expect(throws: WebSocketError.self) { try Self.server(.tls13(lifetime: lifetime)) }
        }
        _ = try Self.server(.tls13(lifetime: .seconds(604_800)))
    }
}
#endif
