// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The phase after the peer's Close arrived while we were sending a fragmented message (RFC 6455
/// §5.5.1: the reply may wait for the end of our message), and the misuse errors around closing.
@Suite("Closing while our fragmented message is going out, and misuse once closed (§5.5.1, §7)")
struct ClosingRemotelyTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    /// A pair whose server has sent the first fragment of a text message and then read the client's
    /// Close (1001 "bye"): the server is closing, initiated by the peer; its output holds the fragment.
    static func serverClosingRemotely(server config: Connection.Configuration = Connection.Configuration()) throws -> (client: Connection, server: Connection) {
        var (client, server) = try openPair(server: config)
        try server.sendFragment(Array("part one".utf8), kind: .text, isFinal: false)
        try client.close(code: .goingAway, reason: "bye")
        let events = pump(&client, into: &server)
        #expect(events == [.closeReceived(Connection.CloseFrame(code: .goingAway, reason: "bye"))])
        #expect(server.state == .closing(initiatedBy: .remote))
        return (client, server)
    }

    @Test("close() while the reply waits: our Close goes out now, the message is abandoned, the status is the peer's")
    func closeAnswersAtOnce() throws {
        var (client, server) = try Self.serverClosingRemotely()
        try server.close(code: .normalClosure, reason: "done")
        let status = Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true)
        #expect(server.state == .closed(status))
        #expect(drain(&server) == [.closed(status)])
        let output = server.takeOutput()
        let frames = decodeFrames(output)
        #expect(frames.map(\.opcode) == [0x1, 0x8])
        #expect(frames.first?.fin == false)
        #expect(frames.last.flatMap(closeCode) == 1000)
        #expect(frames.last.map { Array($0.payload.dropFirst(2)) } == Array("done".utf8))
        // The client, waiting in closingLocally, completes its closing handshake on that Close.
        client.receive(output)
        #expect(drain(&client).last == .closed(Connection.CloseStatus(code: .normalClosure, reason: "done", wasClean: true)))
        // Once closed, nothing more: a second close, new data and the abandoned message's end.
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.close() }
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.send(text: "late") }
        #expect(server.pendingOutputCount == 0)
    }

    @Test("The close timer runs out before our last fragment: the reply goes out anyway, a clean close with the peer's code")
    func closeTimerSendsTheReply() throws {
        var config = Connection.Configuration()
        config.timeouts.close = .seconds(5)
        var (_, server) = try Self.serverClosingRemotely(server: config)
        server.advanceTime(to: Self.at(100))
        #expect(server.nextDeadline == Self.at(105))
        _ = server.takeOutput()
        server.advanceTime(to: Self.at(104))
        #expect(server.state == .closing(initiatedBy: .remote))
        #expect(server.pendingOutputCount == 0)
        server.advanceTime(to: Self.at(105))
        let status = Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true)
        #expect(drain(&server) == [.closed(status)])
        // The reply echoes the peer's code (RFC 6455 §5.5.1), with no reason of ours.
        let frames = decodeFrames(server.takeOutput())
        #expect(frames.map(\.opcode) == [0x8])
        #expect(frames.first.flatMap(closeCode) == 1001)
        // The message we were sending is over: its last fragment is refused.
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.sendFragment(Array("two".utf8), kind: .text, isFinal: true) }
    }

    @Test("After a failed connection: close and ping say notOpen, not closeAlreadySent; so does the end of our message")
    func misuseAfterFailure() throws {
        var (_, server) = try openPair()
        try server.sendFragment(Array("part one".utf8), kind: .binary, isFinal: false)
        server.receive(frame(0x1, Array("unmasked".utf8)))  // a client frame must be masked
        let events = drain(&server)
        guard case .protocolViolation(let violation)? = events.first else { throw TestFailure("\(events)") }
        #expect(violation == Connection.ProtocolViolation(.unmaskedFrame))
        let before = server.pendingOutputCount
        #expect(throws: Connection.UsageError.notOpen) { try server.close() }
        #expect(throws: Connection.UsageError.notOpen) { try server.ping() }
        #expect(throws: Connection.UsageError.notOpen) { try server.pong() }
        #expect(throws: Connection.UsageError.notOpen) { try server.sendFragment([1, 2], kind: .binary, isFinal: true) }
        #expect(throws: Connection.UsageError.notOpen) { try server.send(binary: [1]) }
        #expect(server.pendingOutputCount == before)
    }

    @Test("Our Close in the middle of our fragmented message: its next fragment says closeAlreadySent and sends nothing")
    func fragmentAfterOurClose() throws {
        var (_, server) = try openPair()
        try server.sendFragment(Array("part one".utf8), kind: .text, isFinal: false)
        try server.close()
        let before = server.pendingOutputCount
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.sendFragment(Array("two".utf8), kind: .text, isFinal: true) }
        #expect(server.pendingOutputCount == before)
        #expect(decodeFrames(server.takeOutput()).map(\.opcode) == [0x1, 0x8])
    }

    @Test("After a clean close: a ping says closeAlreadySent")
    func pingAfterCleanClose() throws {
        var (client, server) = try openPair()
        try client.close()
        _ = pump(&client, into: &server)
        #expect(server.state == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.ping() }
        #expect(throws: Connection.UsageError.closeAlreadySent) { try server.pong() }
    }

    @Test("Before the handshake completes: pings, pongs and closes say notOpen and queue nothing")
    func controlBeforeOpen() throws {
        var client = try Connection(role: .client(clientOptions()))
        let request = client.takeOutput()
        #expect(!request.isEmpty)
        #expect(throws: Connection.UsageError.notOpen) { try client.ping() }
        #expect(throws: Connection.UsageError.notOpen) { try client.pong() }
        #expect(throws: Connection.UsageError.notOpen) { try client.close() }
        var server = try Connection(role: .server)
        #expect(throws: Connection.UsageError.notOpen) { try server.ping([1]) }
        #expect(client.pendingOutputCount == 0)
        #expect(server.pendingOutputCount == 0)
        #expect(client.state == .connecting)
    }
}
