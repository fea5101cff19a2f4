// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// The handshake and application data between a client and a server session, at every split of
/// the byte stream.
@Suite struct HandshakeTests {
    @Test(arguments: Split.all)
    func handshakeAndEchoAtEverySplit(split: Split) throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server(), split: split)
        #expect(pair.client.status == .establishing)
        #expect(pair.client.pendingOutputCount > 0, "the ClientHello is ready at creation")
        pair.run()
        #expect(pair.client.status == .established)
        #expect(pair.server.status == .established)

        let message = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        pair.client.send(message)
        pair.run()
        #expect(pair.serverRead == message)
        pair.server.send(pair.serverRead)
        pair.run()
        #expect(pair.clientRead == message)
    }

    @Test func negotiatesHTTP11AndTLS13() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.run()
        #expect(pair.client.negotiatedApplicationProtocol == "http/1.1")
        #expect(pair.server.negotiatedApplicationProtocol == "http/1.1")
        #expect(pair.client.negotiatedVersion == .v1_3)
        #expect(pair.server.negotiatedVersion == .v1_3)
        #expect(pair.server.requestedServerName == "localhost")
    }

    @Test func bytesSentDuringTheHandshakeGoOutOnceItCompletes() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.client.send(Array("early".utf8))
        #expect(pair.client.bufferedPlaintextCount == 5)
        pair.run()
        #expect(pair.client.bufferedPlaintextCount == 0)
        #expect(pair.serverRead == Array("early".utf8))
    }
}
#endif
