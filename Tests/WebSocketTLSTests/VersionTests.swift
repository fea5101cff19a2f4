// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// TLS 1.2 and 1.3 only, and what happens when the two sides share none.
@Suite struct VersionTests {
    @Test func noCommonVersion() throws {
        var client = Configurations.client()
        client.maximumVersion = .v1_2
        var server = Configurations.server()
        server.minimumVersion = .v1_3
        var pair = try SessionPair(client: client, server: server)
        pair.run()
        #expect(pair.server.tlsError?.kind == .protocolVersion)
        #expect(pair.client.tlsError?.kind == .protocolVersion)
    }

    @Test func aClientRequiringTLS13MeetsATLS12Server() throws {
        var client = Configurations.client()
        client.minimumVersion = .v1_3
        var server = Configurations.server()
        server.maximumVersion = .v1_2
        var pair = try SessionPair(client: client, server: server)
        pair.run()
        #expect(pair.client.tlsError?.kind == .protocolVersion)
        #expect(pair.server.tlsError?.kind == .protocolVersion)
    }

    @Test(arguments: Split.all)
    func tls12HandshakeAndEcho(split: Split) throws {
        var client = Configurations.client()
        client.maximumVersion = .v1_2
        var pair = try SessionPair(client: client, server: Configurations.server(), split: split)
        pair.run()
        #expect(pair.client.negotiatedVersion == .v1_2)
        #expect(pair.client.negotiatedApplicationProtocol == "http/1.1")
        pair.client.send(Array("over 1.2".utf8))
        pair.run()
        #expect(pair.serverRead == Array("over 1.2".utf8))
    }

    @Test func aMaximumBelowTheMinimumIsRefused() {
        var client = Configurations.client()
        client.minimumVersion = .v1_3
        client.maximumVersion = .v1_2
        #expect(throws: WebSocketError.self) { try TLSContext(client) }
    }

    @Test func versionsAreOrdered() {
        #expect(TLSVersion.v1_2 < .v1_3)
        #expect(TLSVersion.v1_3.description == "TLS 1.3")
    }
}
#endif
