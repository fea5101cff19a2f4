// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore

@Suite("Time as an input: handshake, keepalive and close timers")
struct TimersTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    @Test("The opening handshake times out")
    func handshakeTimeout() throws {
        var config = Connection.Configuration()
        config.timeouts.handshake = .seconds(5)
        var server = try Connection(role: .server, configuration: config)
        server.advanceTime(to: Self.at(100))
        #expect(server.nextDeadline == Self.at(105))
        server.receive(Array("GET / HTTP/1.1\r\n".utf8))
        server.advanceTime(to: Self.at(104))
        #expect(drain(&server).isEmpty)
        server.advanceTime(to: Self.at(105))
        let events = drain(&server)
        #expect(events.first == .handshakeFailed(.timedOut))
        #expect(server.shouldCloseTransport)
        // Nothing to drain from a peer that was silent for the whole handshake: no linger.
        #expect(server.transportDirective == .close)
    }

    @Test("A connection made with the time (an adapter's accept) is one made, then told the time: the same deadline, events, state and output through a whole handshake, a timeout, or a timeout of zero",
          arguments: [Duration?.none, .seconds(5), .zero, .seconds(-1)], [false, true])
    func madeWithTheTime(handshake: Duration?, client isClient: Bool) throws {
        var config = Connection.Configuration()
        config.timeouts.handshake = handshake
        let role: Connection.Role = isClient ? .client(clientOptions()) : .server
        var made = try Connection(role: role, configuration: config, random: Connection.SeededGenerator(seed: 7),
                                  reportingTime: Self.at(100))
        var told = try Connection(role: role, configuration: config, random: Connection.SeededGenerator(seed: 7))
        told.advanceTime(to: Self.at(100))
        // Not a pending timer (which would ask for a report at once): armed from the time given.
        if let handshake, handshake > .zero {
            #expect(made.nextDeadline == Self.at(100) + handshake)
            #expect(made.recomputedDeadline == made.nextDeadline)
        }
        // A timeout of zero or less is due by the time given: the next report ends the handshake, as
        // the first report did.
        if let handshake, handshake <= .zero { #expect(made.nextDeadline.map { $0 <= Self.at(100) } == true) }
        made.advanceTime(to: Self.at(100))
        #expect(made.nextDeadline == told.nextDeadline)
        #expect(drain(&made) == drain(&told))
        #expect(made.state == told.state)
        #expect(made.takeOutput() == told.takeOutput())
        guard made.state == .connecting else { return }
        // Half a request at 104, then nothing: both time out at 105, or neither does.
        let half = Array(isClient ? "HTTP/1.1 101 Switching".utf8 : "GET / HTTP/1.1\r\n".utf8)
        for time in [104, 105] {
            if time == 104 {
                made.receive(half)
                told.receive(half)
            }
            made.advanceTime(to: Self.at(time))
            told.advanceTime(to: Self.at(time))
            let events = drain(&made)
            #expect(events == drain(&told))
            #expect(made.state == told.state && made.nextDeadline == told.nextDeadline)
            #expect(events.contains(.handshakeFailed(.timedOut)) == (time == 105 && handshake != nil))
        }
    }

    @Test("Timers start at the first time report, and ask for it: before any, the next deadline is the origin")
    func pendingUntilFirstReport() throws {
        var client = try Connection(role: .client(clientOptions()))
        #expect(client.nextDeadline == .zero)
        client.advanceTime(to: Self.at(1000))
        #expect(client.nextDeadline == Self.at(1010))
    }

    @Test("close() long after the last time report gets its whole close timeout (the timer counts from the next report)")
    func closeLongAfterTheLastReport() throws {
        var config = Connection.Configuration()
        config.timeouts.close = .seconds(3)
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: Self.at(0))
        #expect(client.nextDeadline == nil)
        // 60 s later, unreported: the caller closes. The timer asks for the time at once.
        try client.close()
        #expect(client.nextDeadline == Self.at(0))
        client.advanceTime(to: Self.at(60))
        #expect(client.state == .closing(initiatedBy: .local))
        #expect(client.nextDeadline == Self.at(63))
        client.advanceTime(to: Self.at(62))
        #expect(drain(&client).isEmpty)
        client.advanceTime(to: Self.at(63))
        #expect(drain(&client) == [.closed(Connection.CloseStatus(code: .abnormalClosure, reason: "close handshake timed out",
                                                       wasClean: false, failure: .closeTimeout))])
    }

    @Test("A peer's Close after an unreported idle gets the whole linger, counted from the next report")
    func lingerAfterAnUnreportedIdle() throws {
        var config = Connection.Configuration()
        config.timeouts.linger = .seconds(2)
        var (client, server) = try openPair(server: config)
        server.advanceTime(to: Self.at(0))
        // 3 s of silence, unreported; then the client's Close: the server answers and lingers.
        try client.close()
        _ = pump(&client, into: &server)
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: nil))
        #expect(server.nextDeadline == Self.at(0))
        server.advanceTime(to: Self.at(3))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(5)))
        server.advanceTime(to: Self.at(4))
        #expect(server.transportDirective == .halfCloseAndDrain(deadline: Self.at(5)))
        server.advanceTime(to: Self.at(5))
        #expect(server.transportDirective == .close)
    }

    @Test("Keepalive: a ping every interval; a pong keeps the connection alive")
    func keepaliveAnswered() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = .seconds(10)
        var (client, server) = try openPair(client: config)
        client.advanceTime(to: Self.at(0))
        #expect(client.nextDeadline == Self.at(30))
        client.advanceTime(to: Self.at(30))
        let ping = client.takeOutput()
        #expect(decodeFrames(ping).map(\.opcode) == [0x9])
        #expect(client.nextDeadline == Self.at(40))
        server.receive(ping)
        _ = drain(&server)
        client.receive(server.takeOutput())
        client.advanceTime(to: Self.at(35))
        #expect(drain(&client).count == 1)  // the pong
        // The next ping counts from the time reported after the pong, which is asked for at once.
        #expect(client.nextDeadline == Self.at(35))
        client.advanceTime(to: Self.at(35))
        #expect(client.nextDeadline == Self.at(65))
        client.advanceTime(to: Self.at(50))
        #expect(client.state == .open)
    }

    @Test("Keepalive pings carry a counter, 8 bytes big-endian, one more per ping, in both roles", arguments: [true, false])
    func keepaliveCounter(client isClient: Bool) throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        let (client, server) = try openPair(client: config, server: config)
        var pinging = isClient ? client : server
        var peer = isClient ? server : client
        var payloads: [[UInt8]] = []
        pinging.advanceTime(to: Self.at(0))
        for ping in 1...2 {
            pinging.advanceTime(to: Self.at(30 * ping))
            let wire = pinging.takeOutput()
            let frames = decodeFrames(wire)
            #expect(frames.map(\.opcode) == [0x9])
            payloads += frames.map(\.payload)
            // The next ping waits for the pong.
            peer.receive(wire)
            _ = drain(&peer)
            _ = pump(&peer, into: &pinging)
            // The pong arrives at once: the next ping counts from then.
            pinging.advanceTime(to: Self.at(30 * ping))
        }
        #expect(payloads == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2]])
    }

    @Test("Keepalive: no pong in time fails the connection with 1011 on the wire and 1006 locally")
    func keepaliveTimeout() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = .seconds(10)
        var (_, server) = try openPair(server: config)
        server.advanceTime(to: Self.at(0))
        server.advanceTime(to: Self.at(30))
        _ = server.takeOutput()
        server.advanceTime(to: Self.at(39))
        #expect(server.state == .open)
        server.advanceTime(to: Self.at(40))
        let status = Connection.CloseStatus(code: .abnormalClosure, reason: "keepalive timeout", wasClean: false, failure: .keepaliveTimeout)
        #expect(drain(&server) == [.closed(status)])
        #expect(decodeFrames(server.takeOutput()).map(closeCode) == [1011])
        #expect(server.shouldCloseTransport)
    }

    @Test("A close handshake the peer never finishes times out")
    func closeTimeout() throws {
        var config = Connection.Configuration()
        config.timeouts.close = .seconds(3)
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: Self.at(10))
        try client.close()
        #expect(client.nextDeadline == Self.at(10))
        client.advanceTime(to: Self.at(10))
        #expect(client.nextDeadline == Self.at(13))
        client.advanceTime(to: Self.at(13))
        #expect(drain(&client) == [.closed(Connection.CloseStatus(code: .abnormalClosure, reason: "close handshake timed out",
                                                       wasClean: false, failure: .closeTimeout))])
        #expect(client.shouldCloseTransport)
    }

    @Test("A client stops waiting for the server to close the transport after the close timeout")
    func clientTransportWait() throws {
        var config = Connection.Configuration()
        config.timeouts.close = .seconds(2)
        var (client, server) = try openPair(client: config)
        client.advanceTime(to: Self.at(0))
        try client.close()
        _ = pump(&client, into: &server)
        _ = pump(&server, into: &client)
        #expect(!client.shouldCloseTransport)
        client.advanceTime(to: Self.at(0))
        #expect(client.nextDeadline == Self.at(2))
        client.advanceTime(to: Self.at(1))
        #expect(!client.shouldCloseTransport)
        client.advanceTime(to: Self.at(2))
        #expect(client.shouldCloseTransport)
    }

    @Test("Time going backwards is ignored")
    func monotonic() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(5)
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: Self.at(10))
        client.advanceTime(to: Self.at(3))
        #expect(client.nextDeadline == Self.at(15))
    }
}

@Suite("Connection.Instant and clocks that count nanoseconds")
struct InstantNanosecondsTests {
    @Test("Nanoseconds in and out round-trip; before the origin is 0, beyond the range saturates, nothing traps")
    func nanoseconds() {
        for value: UInt64 in [0, 1, 999, 1_000_000_000, 1_234_567_890_123, UInt64(Int64.max)] {
            #expect(Connection.Instant(nanosecondsSinceOrigin: value).nanosecondsSinceOrigin == value)
        }
        #expect(Connection.Instant(nanosecondsSinceOrigin: .max).sinceOrigin == .nanoseconds(Int64.max))
        #expect(Connection.Instant(sinceOrigin: .milliseconds(-1)).nanosecondsSinceOrigin == 0)
        #expect(Connection.Instant(sinceOrigin: .nanoseconds(-1)).nanosecondsSinceOrigin == 0)
        #expect(Connection.Instant(sinceOrigin: .seconds(Int64.max)).nanosecondsSinceOrigin == .max)
        // A deadline from a reported time and a timeout comes back exact.
        let deadline = Connection.Instant(nanosecondsSinceOrigin: 5_000_000_123) + .seconds(3)
        #expect(deadline.nanosecondsSinceOrigin == 8_000_000_123)
    }
}

@Suite("nextDeadline is stored: kept equal to what the timers give, read without copying the connection")
struct StoredDeadlineTests {
    @Test("Through random sends, pings, awaited pings, reads, time and closes, in both roles, the stored deadline is the computed one",
          arguments: [1, 2, 3, 4] as [UInt64])
    func keptEqual(seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(5)
        config.timeouts.keepaliveTimeout = .seconds(2)
        config.timeouts.close = .seconds(3)
        var (client, server) = try openPair(client: config, server: config, seed: seed)
        var now = Connection.Instant(sinceOrigin: .seconds(1))
        func check(_ connection: Connection, _ step: Int) {
            #expect(connection.nextDeadline == connection.recomputedDeadline, "seed \(seed), step \(step)")
        }
        for step in 0..<300 {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: try? client.send(text: "a")
            case 1: try? server.send(binary: [1, 2])
            case 2: _ = try? client.sendPing([3], awaitingPongWithin: .seconds(Int64.random(in: 1...4, using: &rng)))
            case 3: try? server.ping([4])
            case 4: _ = pump(&client, into: &server)
            case 5: _ = pump(&server, into: &client)
            case 6:
                now = now + .milliseconds(Int64.random(in: 0...4_000, using: &rng))
                if Bool.random(using: &rng) { client.advanceTime(to: now) } else { server.advanceTime(to: now) }
                _ = drain(&client)
                _ = drain(&server)
                while client.nextPingOutcome() != nil {}
            case 7 where step > 250: try? client.close()
            case 8 where step > 280: server.receiveEOF()
            default: break
            }
            check(client, step)
            check(server, step)
        }
    }
}
