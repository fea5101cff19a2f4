// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// How a session's stream ends: close_notify (clean), the stream below ending without it (a
/// truncation), or ending during the handshake (a failure).
@Suite struct ClosureTests {
    func established(split: Split = .whole) throws -> SessionPair {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server(), split: split)
        pair.run()
        try #require(pair.client.status == .established && pair.server.status == .established)
        return pair
    }

    @Test(arguments: Split.all)
    func closeNotifyEndsThePeersStreamCleanly(split: Split) throws {
        var pair = try established(split: split)
        pair.client.send(Array("last words".utf8))
        pair.client.finishSending()
        pair.run()
        #expect(pair.serverRead == Array("last words".utf8))
        #expect(pair.server.status == .ended(clean: true))
        // Only the client's direction ended: the server still sends, and the client still reads.
        pair.server.send(Array("reply".utf8))
        pair.run()
        #expect(pair.clientRead == Array("reply".utf8))
        #expect(pair.client.status == .established)
        pair.server.finishSending()
        pair.run()
        #expect(pair.client.status == .ended(clean: true))
    }

    @Test func closeNotifyIsSentOnceAndEndsSending() throws {
        var pair = try established()
        pair.client.finishSending()
        let closeNotify = SessionPair.take(&pair.client)
        #expect(!closeNotify.isEmpty)
        pair.client.finishSending()
        pair.client.send(Array("too late".utf8))
        #expect(pair.client.pendingOutputCount == 0)
    }

    @Test func endOfStreamWithoutCloseNotifyIsATruncation() throws {
        var pair = try established()
        pair.server.receiveEOF()
        #expect(pair.server.status == .ended(clean: false))
    }

    @Test func recordsBufferedAtTheEndAreReadFirst() throws {
        var pair = try established()
        pair.client.send(Array("in flight".utf8))
        let record = SessionPair.take(&pair.client)
        pair.server.receive(record)
        pair.server.receiveEOF()
        #expect(pair.server.status == .established)
        #expect(SessionPair.readAll(&pair.server) == Array("in flight".utf8))
        #expect(pair.server.status == .ended(clean: false))
    }

    @Test func aRecordCutShortByTheEndIsATruncation() throws {
        var pair = try established()
        pair.client.send(Array("cut short".utf8))
        let record = SessionPair.take(&pair.client)
        pair.server.receive(Array(record.dropLast(3)))
        #expect(SessionPair.readAll(&pair.server).isEmpty)
        pair.server.receiveEOF()
        #expect(SessionPair.readAll(&pair.server).isEmpty)
        #expect(pair.server.status == .ended(clean: false))
    }

    @Test func closeNotifyThenEndOfStreamStaysClean() throws {
        var pair = try established()
        pair.client.finishSending()
        pair.run()
        pair.server.receiveEOF()
        #expect(pair.server.status == .ended(clean: true))
    }

    @Test func bytesAfterCloseNotifyAreIgnored() throws {
        var pair = try established()
        pair.client.finishSending()
        pair.run()
        pair.server.receive(Array(repeating: 0x17, count: 1_000))
        #expect(pair.server.status == .ended(clean: true))
        #expect(pair.server.bufferedCiphertextCount == 0)
        #expect(SessionPair.readAll(&pair.server).isEmpty)
    }

    @Test func aTruncatedSessionCanStillSendToAPeerThatReads() throws {
        var pair = try established()
        pair.server.receiveEOF()
        pair.server.send(Array("goodbye".utf8))
        pair.server.finishSending()
        pair.run()
        #expect(pair.clientRead == Array("goodbye".utf8))
        #expect(pair.client.status == .ended(clean: true))
    }

    @Test(arguments: [0, 1, 50])
    func endOfStreamDuringTheHandshakeFails(clientHelloBytes: Int) throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        let hello = SessionPair.take(&pair.client)
        pair.server.receive(Array(hello.prefix(clientHelloBytes)))
        pair.server.receiveEOF()
        #expect(pair.server.tlsError?.kind == .handshakeFailed)
        #expect(pair.server.tlsError?.reason == "the peer closed the connection during the TLS handshake")
        pair.client.receiveEOF()
        #expect(pair.client.tlsError?.kind == .handshakeFailed)
    }

    @Test func finishSendingDuringTheHandshakeClosesAfterTheEarlyBytes() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.client.send(Array("early".utf8))
        pair.client.finishSending()
        pair.client.send(Array("after the finish".utf8))
        pair.run()
        #expect(pair.serverRead == Array("early".utf8))
        #expect(pair.server.status == .ended(clean: true))
    }

    @Test func partialWritesTakeTheOutputInPieces() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        var hello: [UInt8] = []
        let total = pair.client.pendingOutputCount
        while pair.client.pendingOutputCount > 0 {
            pair.client.withPendingOutput { chunk in
                hello += chunk.prefix(7)
                return min(7, chunk.count)
            }
        }
        #expect(hello.count == total)
        pair.client.withPendingOutput { _ in Issue.record("no output is left"); return 0 }
        pair.server.receive(hello)
        pair.run()
        #expect(pair.client.status == .established)
    }
}
#endif
