// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Closing handshake (§5.5.1, §7)")
struct Closing_7_Tests {
    @Test("Client-initiated close: server echoes the code and closes the transport first; the client waits for it")
    func clientInitiated() throws {
        var (client, server) = try openPair()
        try client.close(code: .goingAway, reason: "bye")
        #expect(client.state == .closing(initiatedBy: .local))
        let serverEvents = pump(&client, into: &server)
        let status = Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true)
        #expect(serverEvents == [.closeReceived(Connection.CloseFrame(code: .goingAway, reason: "bye")), .closed(status)])
        #expect(server.shouldCloseTransport)
        let reply = server.takeOutput()
        #expect(decodeFrames(reply).map(closeCode) == [1001])
        client.receive(reply)
        #expect(drain(&client) == [.closeReceived(Connection.CloseFrame(code: .goingAway)), .closed(Connection.CloseStatus(code: .goingAway, reason: "", wasClean: true))])
        // RFC 6455 §7.1.1: the client waits for the server to close the TCP connection.
        #expect(!client.shouldCloseTransport)
        client.receiveEOF()
        #expect(client.shouldCloseTransport)
        #expect(drain(&client).isEmpty)
    }

    @Test("Server-initiated close: the client replies and waits; the server closes on the reply")
    func serverInitiated() throws {
        var (client, server) = try openPair()
        try server.close(code: Connection.CloseCode(rawValue: 4000), reason: "app")
        let clientEvents = pump(&server, into: &client)
        #expect(clientEvents == [.closeReceived(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000), reason: "app")),
                                 .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4000), reason: "app", wasClean: true))])
        #expect(!client.shouldCloseTransport)
        let serverEvents = pump(&client, into: &server)
        #expect(serverEvents.last == .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4000), reason: "", wasClean: true)))
        #expect(server.shouldCloseTransport)
    }

    @Test("An empty Close frame is answered with an empty one and reported as 1005")
    func emptyClose() throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x8, []))
        #expect(drain(&server) == [.closeReceived(Connection.CloseFrame(code: .noStatusReceived)),
                                   .closed(Connection.CloseStatus(code: .noStatusReceived, reason: "", wasClean: true))])
        #expect(decodeFrames(server.takeOutput()) == [DecodedFrame(fin: true, opcode: 0x8, masked: false, payload: [])])
    }

    @Test("A Close inside a fragmented message is answered normally (Autobahn 7.1.5 wants 1000)")
    func closeInsideFragmentedMessage() throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x1, Array("frag".utf8), fin: false) + clientFrame(0x8, [0x03, 0xE8]) + clientFrame(0x0, Array("ment".utf8)))
        let events = drain(&server)
        #expect(events == [.closeReceived(Connection.CloseFrame(code: .normalClosure)), .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))])
        #expect(decodeFrames(server.takeOutput()).map(closeCode) == [1000])
    }

    @Test("No data after our Close; a second close throws; misuse changes nothing")
    func sendAfterClose() throws {
        var (client, _) = try openPair()
        try client.close()
        let before = client.pendingOutputCount
        #expect(throws: Connection.UsageError.closeAlreadySent) { try client.send(text: "late") }
        #expect(throws: Connection.UsageError.closeAlreadySent) { try client.send(binary: [1]) }
        #expect(throws: Connection.UsageError.closeAlreadySent) { try client.close() }
        #expect(throws: Connection.UsageError.closeAlreadySent) { try client.ping() }
        #expect(client.pendingOutputCount == before)
        #expect(client.state == .closing(initiatedBy: .local))
    }

    @Test("Invalid close codes and reasons are refused locally")
    func invalidLocalClose() throws {
        var (client, _) = try openPair()
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            #expect(throws: Connection.UsageError.invalidCloseCode(Connection.CloseCode(rawValue: code))) { try client.close(code: Connection.CloseCode(rawValue: code)) }
        }
        #expect(throws: Connection.UsageError.closeReasonTooLong) { try client.close(reason: String(repeating: "x", count: 124)) }
        try client.close(reason: String(repeating: "x", count: 123))
        #expect(throws: Connection.UsageError.controlPayloadTooLarge) {
            var (c, _) = try openPair()
            try c.ping([UInt8](repeating: 0, count: 126))
        }
    }

    @Test("Frames still arrive between our Close and the peer's")
    func dataWhileClosingLocally() throws {
        var (client, server) = try openPair()
        try server.close()
        try client.send(text: "in flight")
        let events = pump(&client, into: &server)
        #expect(events == [.text("in flight")])
        #expect(server.state == .closing(initiatedBy: .local))
    }

    @Test("The peer's Close during our fragmented message: the reply waits for the last fragment (§5.5.1)")
    func closeDuringOutgoingFragments() throws {
        var (client, server) = try openPair()
        try server.sendFragment(Array("part one ".utf8), kind: .text, isFinal: false)
        try client.close(code: .normalClosure)
        _ = pump(&client, into: &server)
        #expect(server.state == .closing(initiatedBy: .remote))
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.send(text: "new message") }
        try server.sendFragment(Array("part two".utf8), kind: .text, isFinal: true)
        #expect(server.state == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
        let frames = decodeFrames(server.takeOutput())
        #expect(frames.map(\.opcode) == [0x1, 0x0, 0x8])
    }

    @Test("End of stream while open is an abnormal closure (1006)")
    func endOfStream() throws {
        var (client, _) = try openPair()
        client.receive([0x81, 0x05, 0x48])
        client.receiveEOF()
        #expect(drain(&client) == [.closed(Connection.CloseStatus(code: .abnormalClosure, reason: "connection closed without a close frame",
                                                       wasClean: false, failure: .unexpectedEndOfStream))])
        #expect(client.shouldCloseTransport)
    }

    @Test("Frames before end of stream are delivered first")
    func eventsBeforeEOF() throws {
        var (client, _) = try openPair()
        client.receive([0x81, 0x02, 0x68, 0x69])
        client.receiveEOF()
        let events = drain(&client)
        #expect(events.first == .text("hi"))
        #expect(events.count == 2)
    }
}

@Suite("Aborting a connection")
struct AbortTests {
    @Test("abort() ends an open connection at once with 1006, sends nothing, and is idempotent")
    func abortOpen() throws {
        var (client, _) = try openPair()
        client.abort()
        #expect(client.pendingOutputCount == 0)
        #expect(drain(&client) == [.closed(Connection.CloseStatus(code: .abnormalClosure, reason: "aborted", wasClean: false, failure: .aborted))])
        #expect(client.shouldCloseTransport)
        client.abort()
        #expect(drain(&client).isEmpty)
        #expect(throws: Connection.UsageError.notOpen) { try client.send(text: "x") }
    }

    @Test("abort() during the handshake and while closing")
    func abortOtherPhases() throws {
        var connecting = try Connection(role: .client(clientOptions()))
        connecting.abort()
        #expect(connecting.shouldCloseTransport)
        var (client, _) = try openPair()
        try client.close()
        client.abort()
        guard case .closed(let status) = client.state else { throw TestFailure("not closed") }
        #expect(status.failure == .aborted)
    }
}
