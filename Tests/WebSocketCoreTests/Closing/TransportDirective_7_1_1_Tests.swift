// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// What the connection tells its caller to do with the transport once it is closed (RFC 6455 §7.1.1):
/// the server closes first, the client waits for it, and whoever closes first half-closes and drains
/// so that a reset cannot destroy the last frames.
@Suite("Closing the transport (§7.1.1): keep open, await the peer, half-close and drain, close")
struct TransportDirectiveTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    static func config(linger: Duration? = .seconds(2), close: Duration? = .seconds(5)) -> Connection.Configuration {
        var configuration = Connection.Configuration()
        configuration.timeouts.linger = linger
        configuration.timeouts.close = close
        return configuration
    }

    @Test("Open connections keep the transport open")
    func openKeepsTransport() throws {
        let (client, server) = try openPair()
        #expect(client.transportDirective == .keepOpen)
        #expect(server.transportDirective == .keepOpen)
        #expect(!client.shouldCloseTransport && !server.shouldCloseTransport)
    }

    @Test("A clean close: the server half-closes and drains until the linger deadline; the client awaits the server")
    func cleanClose() throws {
        var (client, server) = try openPair(client: Self.config(), server: Self.config())
        client.advanceTime(to: Self.at(10))
        server.advanceTime(to: Self.at(10))
        try client.close()
        pump(&client, into: &server)
        // The linger starts at the next time report, which the server is asked for at once.
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: nil))
        #expect(server.shouldCloseTransport)
        #expect(server.nextDeadline == Self.at(10))
        server.advanceTime(to: Self.at(10))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(12)))
        #expect(server.nextDeadline == Self.at(12))
        pump(&server, into: &client)
        #expect(client.transportDirective == .awaitPeerClose)
        #expect(!client.shouldCloseTransport)
        #expect(client.nextDeadline == Self.at(10))
        client.advanceTime(to: Self.at(10))
        #expect(client.nextDeadline == Self.at(15))

        // What the peer sends while draining is discarded, not buffered.
        server.receive(clientFrame(0x1, Array("late".utf8)))
        #expect(server.bufferedInputCount == 0)
        #expect(drain(&server).isEmpty)

        // The client sees the server's FIN and closes; the server sees the client's and closes.
        client.receiveEOF()
        #expect(client.transportDirective == .close)
        server.receiveEOF()
        #expect(server.transportDirective == .close)
        #expect(server.nextDeadline == nil)
    }

    @Test("Draining ends at the linger deadline, awaiting at the close timer")
    func timersEndTheWait() throws {
        var (client, server) = try openPair(client: Self.config(), server: Self.config())
        client.advanceTime(to: Self.at(0))
        server.advanceTime(to: Self.at(0))
        try server.close(code: .goingAway)
        pump(&server, into: &client)
        pump(&client, into: &server)
        // Both were asked for the time at once, and report it.
        client.advanceTime(to: Self.at(0))
        server.advanceTime(to: Self.at(0))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(2)))
        server.advanceTime(to: Self.at(1))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(2)))
        server.advanceTime(to: Self.at(2))
        #expect(server.transportDirective == .close)

        #expect(client.transportDirective == .awaitPeerClose)
        client.advanceTime(to: Self.at(4))
        #expect(client.transportDirective == .awaitPeerClose)
        client.advanceTime(to: Self.at(5))
        #expect(client.transportDirective == .close)
    }

    @Test("A client that fails the connection half-closes and drains too, so that its Close frame arrives")
    func clientFailureDrains() throws {
        var (client, _) = try openPair(client: Self.config())
        client.advanceTime(to: Self.at(0))
        client.receive(frame(0x1, [0xFF]))  // invalid UTF-8
        let events = drain(&client)
        #expect(events.last.map { if case .closed = $0 { true } else { false } } == true)
        #expect(decodeFrames(client.takeOutput()).compactMap(closeCode) == [1007])
        #expect(client.transportDirective == .halfCloseAndDrain(deadline: nil))
        client.advanceTime(to: Self.at(0))
        #expect(client.transportDirective == .halfCloseAndDrain(deadline: Self.at(2)))
    }

    @Test("A server's refusal of the opening handshake is drained too")
    func refusalDrains() throws {
        var server = try Connection(role: .server, configuration: Self.config())
        server.advanceTime(to: Self.at(0))
        server.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))  // not an upgrade: 400
        _ = drain(&server)
        #expect(server.pendingOutputCount > 0)
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: nil))
        server.advanceTime(to: Self.at(0))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(2)))
    }

    @Test("Once the input has ended, the transport closes at once")
    func endOfStreamCloses() throws {
        var (client, server) = try openPair(client: Self.config(), server: Self.config())
        server.receiveEOF()
        _ = drain(&server)
        #expect(server.transportDirective == .close)
        // A Close reply to a peer that closed only its sending side is still written first.
        try client.close()
        var other = try openPair(server: Self.config()).server
        other.receive(client.takeOutput())
        other.receiveEOF()
        _ = drain(&other)
        #expect(other.transportDirective == .close)
    }

    @Test("abort() closes at once and drops pending output, even while draining or awaiting")
    func abortCloses() throws {
        var (client, server) = try openPair(client: Self.config(), server: Self.config())
        client.advanceTime(to: Self.at(0))
        try client.send(text: "unsent")
        client.abort()
        #expect(client.pendingOutputCount == 0)
        #expect(client.transportDirective == .close)

        try server.close()
        #expect(server.pendingOutputCount > 0)
        var peer = try openPair().client
        peer.receive(server.takeOutput())
        _ = drain(&peer)
        server.receive(peer.takeOutput())
        _ = drain(&server)
        server.advanceTime(to: Self.at(0))
        guard case .halfCloseAndDrain = server.transportDirective else {
            throw TestFailure("not draining: \(server.transportDirective)")
        }
        server.abort()
        #expect(server.transportDirective == .close)
        guard case .closed(let status) = server.state else { throw TestFailure("not closed") }
        #expect(status.wasClean)  // the handshake had finished; abort changes only the transport
    }

    @Test("Without a linger timeout the transport closes at once")
    func noLinger() throws {
        var (client, server) = try openPair(client: Self.config(linger: nil), server: Self.config(linger: nil))
        try client.close()
        pump(&client, into: &server)
        #expect(server.transportDirective == .close)
        pump(&server, into: &client)
        #expect(client.transportDirective == .awaitPeerClose)  // the client still waits for the server
    }
}
