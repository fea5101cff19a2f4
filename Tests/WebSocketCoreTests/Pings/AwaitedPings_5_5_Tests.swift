// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// One outcome as `nextPingOutcome()` reports it, comparable.
struct PingEnded: Equatable, CustomStringConvertible {
    var id: Connection.PingID
    var outcome: Connection.PingOutcome
    var description: String { "\(id): \(outcome)" }
}

/// Every outcome not taken yet, oldest first.
func pingOutcomes(_ connection: inout Connection) -> [PingEnded] {
    var outcomes: [PingEnded] = []
    while let (id, outcome) = connection.nextPingOutcome() { outcomes.append(PingEnded(id: id, outcome: outcome)) }
    return outcomes
}

@Suite("Awaited pings: a pong answers its ping and every earlier one, timeouts, the close (RFC 6455 §5.5.2, §5.5.3)")
struct AwaitedPings_5_5_Tests {
    static func at(milliseconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .milliseconds(milliseconds)) }
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    /// A pong frame as the peer of `pinger` sends it (masked when the peer is a client).
    static func pong(_ payload: [UInt8], to pinger: Connection) -> [UInt8] {
        pinger.isClient ? frame(0xA, payload) : clientFrame(0xA, payload)
    }

    /// The payloads of the pings in `connection`'s output (which is taken).
    static func sentPings(_ connection: inout Connection) -> [[UInt8]] {
        decodeFrames(connection.takeOutput()).filter { $0.opcode == 0x9 }.map(\.payload)
    }

    static func pair(_ config: Connection.Configuration = Connection.Configuration(),
                     client isClient: Bool = true) throws -> (pinger: Connection, peer: Connection) {
        let (client, server) = try openPair(client: config, server: config)
        return isClient ? (client, server) : (server, client)
    }

    @Test("Default payloads: `ws` and a 6-byte counter, unique among awaited pings, never a keepalive counter",
          arguments: [true, false])
    func defaultPayloads(client isClient: Bool) throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = nil
        var (pinger, _) = try Self.pair(config, client: isClient)
        pinger.advanceTime(to: Self.at(0))
        var awaited: [[UInt8]] = []
        var keepalive: [[UInt8]] = []
        for round in 1...3 {
            _ = try pinger.sendPing(awaitingPongWithin: nil)
            _ = try pinger.sendPing(awaitingPongWithin: .seconds(100))
            awaited += Self.sentPings(&pinger)
            pinger.advanceTime(to: Self.at(30 * round))
            keepalive += Self.sentPings(&pinger)
        }
        #expect(awaited.count == 6 && keepalive.count == 3)
        #expect(Set(awaited).count == 6)
        #expect(awaited.allSatisfy { $0.count == 8 && $0.starts(with: Array("ws".utf8)) })
        #expect(awaited.first == Array("ws".utf8) + [0, 0, 0, 0, 0, 0])
        #expect(awaited.last == Array("ws".utf8) + [0, 0, 0, 0, 0, 5])
        #expect(Set(awaited).isDisjoint(with: keepalive))
        #expect(keepalive == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 3]])
    }

    @Test("A default payload skips a counter that a caller's awaited payload already holds")
    func defaultPayloadAvoidsCallersPayload() throws {
        var (pinger, _) = try Self.pair()
        let taken = Array("ws".utf8) + [0, 0, 0, 0, 0, 1]
        _ = try pinger.sendPing(taken, awaitingPongWithin: nil)  // takes counter 0 as its identifier
        _ = try pinger.sendPing(awaitingPongWithin: nil)
        let payloads = Self.sentPings(&pinger)
        #expect(payloads.count == 2)
        #expect(payloads[0] == taken)
        #expect(payloads[1] != taken && payloads[1].starts(with: Array("ws".utf8)))
    }

    @Test("Answered: the round trip runs from the time reported after the send to the last time reported before the pong is read; the pong is still an event",
          arguments: [true, false])
    func answeredWithRoundTrip(client isClient: Bool) throws {
        var (pinger, peer) = try Self.pair(client: isClient)
        pinger.advanceTime(to: Self.at(milliseconds: 1_000))
        let id = try pinger.sendPing(awaitingPongWithin: .seconds(5))
        // The ping waits for its clock: report the time at once. It counts as sent at that report,
        // and its timeout starts then, not at the report before the send.
        #expect(pinger.nextDeadline == Self.at(milliseconds: 1_000))
        pinger.advanceTime(to: Self.at(milliseconds: 1_050))
        #expect(pinger.nextDeadline == Self.at(milliseconds: 6_050))
        let wire = pinger.takeOutput()
        let payload = decodeFrames(wire).map(\.payload)
        peer.receive(wire)
        #expect(drain(&peer) == payload.map { .ping($0) })
        pinger.advanceTime(to: Self.at(milliseconds: 1_100))
        pinger.receive(peer.takeOutput())
        #expect(pingOutcomes(&pinger).isEmpty)  // nothing read yet
        pinger.advanceTime(to: Self.at(milliseconds: 1_250))
        #expect(drain(&pinger) == payload.map { .pong($0) })
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .answered(.milliseconds(200)))])
        #expect(pinger.nextDeadline == nil)
        #expect(pinger.awaitedPings.count == 0)
    }

    @Test("A pong read at the first report after the send (a loop that reports at the start of each turn): the round trip runs from the report before the send")
    func pongAtTheClockStart() throws {
        var (pinger, peer) = try Self.pair()
        pinger.advanceTime(to: Self.at(milliseconds: 1_000))
        let id = try pinger.sendPing(awaitingPongWithin: .seconds(5))
        _ = pump(&pinger, into: &peer)
        // The next turn: its time is reported, then the pong is read.
        pinger.advanceTime(to: Self.at(milliseconds: 1_040))
        #expect(pinger.nextDeadline == Self.at(milliseconds: 6_040))  // the timeout counts from this report
        pinger.receive(peer.takeOutput())
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .answered(.milliseconds(40)))])
    }

    @Test("A ping that ends before the time is reported asks for no report: answered unreported, or the connection aborted")
    func endedBeforeItsClock() throws {
        var (pinger, peer) = try Self.pair()
        pinger.advanceTime(to: Self.at(5))
        _ = try pinger.sendPing(awaitingPongWithin: .seconds(10))
        #expect(pinger.nextDeadline == Self.at(5))
        // Its pong is read before any report: nothing waits for the clock any more.
        _ = pump(&pinger, into: &peer)
        pinger.receive(peer.takeOutput())
        #expect(drain(&pinger).count == 1)
        #expect(pingOutcomes(&pinger).count == 1)
        #expect(pinger.nextDeadline == nil)

        // Sent before any report, then the connection aborted: closed, no report asked for.
        var (unclocked, _) = try Self.pair()
        _ = try unclocked.sendPing(awaitingPongWithin: nil)
        #expect(unclocked.nextDeadline == .zero)
        unclocked.abort()
        _ = drain(&unclocked)
        #expect(unclocked.nextDeadline == nil)
    }

    @Test("A pong for the third ping answers the first three, not the fourth; the fourth's pong answers it")
    func pongAnswersEarlierPings() throws {
        var (pinger, _) = try Self.pair()
        pinger.advanceTime(to: Self.at(10))
        var ids: [Connection.PingID] = []
        for _ in 0..<4 { ids.append(try pinger.sendPing(awaitingPongWithin: nil)) }
        #expect(Set(ids).count == 4)
        let payloads = Self.sentPings(&pinger)
        // Without timeouts, the pings still wait for their clock: report the time at once.
        #expect(pinger.nextDeadline == Self.at(10))
        pinger.advanceTime(to: Self.at(11))  // they count as sent now
        #expect(pinger.nextDeadline == nil)
        pinger.advanceTime(to: Self.at(13))
        pinger.receive(Self.pong(payloads[2], to: pinger))
        #expect(drain(&pinger) == [.pong(payloads[2])])
        #expect(pingOutcomes(&pinger) == ids[0..<3].map { PingEnded(id: $0, outcome: .answered(.seconds(2))) })
        #expect(pinger.awaitedPings.pending.map(\.id) == [ids[3]])
        // The pong of a ping already answered answers nothing now.
        pinger.receive(Self.pong(payloads[0], to: pinger))
        #expect(drain(&pinger) == [.pong(payloads[0])])
        #expect(pingOutcomes(&pinger).isEmpty)
        pinger.advanceTime(to: Self.at(14))
        pinger.receive(Self.pong(payloads[3], to: pinger))
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: ids[3], outcome: .answered(.seconds(3)))])
    }

    @Test("An unsolicited pong, or one with another payload, answers none; the keepalive still counts it")
    func unmatchedPongAnswersNone() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = .seconds(10)
        var (pinger, _) = try Self.pair(config)
        pinger.advanceTime(to: Self.at(0))
        let id = try pinger.sendPing(Array("mine".utf8), awaitingPongWithin: .seconds(60))
        _ = pinger.takeOutput()
        #expect(pinger.nextDeadline == Self.at(0))  // the ping waits for its clock
        pinger.advanceTime(to: Self.at(2))  // it counts as sent now: its deadline is 62
        #expect(pinger.nextDeadline == Self.at(30))
        pinger.advanceTime(to: Self.at(30))  // the keepalive ping goes out; its pong is due at 40
        let keepalive = Self.sentPings(&pinger)
        #expect(keepalive.count == 1)
        for payload in [[], Array("other".utf8), Array("min".utf8), Array("mine!".utf8)] {
            pinger.receive(Self.pong(payload, to: pinger))
            #expect(drain(&pinger) == [.pong(payload)])
        }
        #expect(pingOutcomes(&pinger).isEmpty)
        #expect(pinger.awaitedPings.pending.map(\.id) == [id])
        // Any pong answers the keepalive: the next keepalive ping is one interval from the time
        // reported after the pong was read (a pong is read outside `advanceTime`: report at once).
        #expect(pinger.nextDeadline == Self.at(30))
        pinger.advanceTime(to: Self.at(31))
        #expect(pinger.nextDeadline == Self.at(61))  // the keepalive's, before the ping's at 62
        #expect(pinger.awaitedPings.earliestDeadline == Self.at(62))
        #expect(pinger.state == .open)
    }

    @Test("A timeout ends only its ping; the connection stays open, nothing is sent, and a late pong answers nothing")
    func timeoutEndsOnlyThatPing() throws {
        var (pinger, _) = try Self.pair()
        pinger.advanceTime(to: Self.at(100))
        let short = try pinger.sendPing(awaitingPongWithin: .seconds(5))
        let long = try pinger.sendPing(awaitingPongWithin: nil)
        let payloads = Self.sentPings(&pinger)
        #expect(pinger.nextDeadline == Self.at(100))  // the pings wait for their clock
        pinger.advanceTime(to: Self.at(101))  // they count as sent now: the timeout ends at 106
        #expect(pinger.nextDeadline == Self.at(106))
        pinger.advanceTime(to: Self.at(105))
        #expect(pingOutcomes(&pinger).isEmpty)
        pinger.advanceTime(to: Self.at(106))
        #expect(pingOutcomes(&pinger) == [PingEnded(id: short, outcome: .timedOut)])
        #expect(pinger.state == .open)
        #expect(pinger.pendingOutputCount == 0)
        #expect(drain(&pinger).isEmpty)
        #expect(pinger.nextDeadline == nil)
        // The late pong of the timed-out ping: an event, and no outcome (the other ping was sent after it).
        pinger.receive(Self.pong(payloads[0], to: pinger))
        #expect(drain(&pinger) == [.pong(payloads[0])])
        #expect(pingOutcomes(&pinger).isEmpty)
        pinger.advanceTime(to: Self.at(108))
        pinger.receive(Self.pong(payloads[1], to: pinger))
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: long, outcome: .answered(.seconds(7)))])
    }

    @Test("nextDeadline: the earliest awaited ping's deadline among the phase's timers, and not once that ping ended")
    func nextDeadlineIncludesPings() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        var (pinger, _) = try Self.pair(config)
        pinger.advanceTime(to: Self.at(0))
        #expect(pinger.nextDeadline == Self.at(30))
        let ten = try pinger.sendPing(awaitingPongWithin: .seconds(10))
        // A ping sent since the last report waits for its clock: due at once, before the keepalive.
        #expect(pinger.nextDeadline == Self.at(0))
        pinger.advanceTime(to: Self.at(1))
        #expect(pinger.nextDeadline == Self.at(11))
        let five = try pinger.sendPing(awaitingPongWithin: .seconds(5))
        _ = try pinger.sendPing(awaitingPongWithin: .seconds(50))
        _ = try pinger.sendPing(awaitingPongWithin: nil)
        let payloads = Self.sentPings(&pinger)
        #expect(pinger.nextDeadline == Self.at(1))
        pinger.advanceTime(to: Self.at(2))  // the three count as sent now
        #expect(pinger.nextDeadline == Self.at(7))
        pinger.advanceTime(to: Self.at(8))
        #expect(pingOutcomes(&pinger) == [PingEnded(id: five, outcome: .timedOut)])
        #expect(pinger.nextDeadline == Self.at(11))
        pinger.receive(Self.pong(payloads[0], to: pinger))
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: ten, outcome: .answered(.seconds(7)))])
        #expect(pinger.nextDeadline == Self.at(30))  // the keepalive's, before the 50-second ping's (52)
        pinger.advanceTime(to: Self.at(30))
        _ = pinger.takeOutput()
        // The keepalive's pong is due at 50 (its default timeout, 20 s, from the time being reported),
        // before the 50-second ping's deadline at 52.
        #expect(pinger.nextDeadline == Self.at(50))
        #expect(pinger.awaitedPings.earliestDeadline == Self.at(52))
    }

    /// Ways a connection reaches `closed` while pings are awaited.
    enum Ending: String, CaseIterable, CustomStringConvertible {
        case closingHandshake, peersClose, abort, violation, endOfStream, keepaliveTimeout, closeTimeout
        var description: String { rawValue }
    }

    @Test("Every way into closed ends all awaited pings with the close status, in the order sent", arguments: Ending.allCases)
    func closedEndsAll(_ ending: Ending) throws {
        var config = Connection.Configuration()
        config.timeouts.close = .seconds(3)
        if ending == .keepaliveTimeout {
            config.timeouts.keepaliveInterval = .seconds(30)
            config.timeouts.keepaliveTimeout = .seconds(10)
        }
        var (pinger, peer) = try Self.pair(config)
        pinger.advanceTime(to: Self.at(0))
        let ids = [try pinger.sendPing(awaitingPongWithin: nil), try pinger.sendPing(awaitingPongWithin: .seconds(100)),
                   try pinger.sendPing(Array("x".utf8), awaitingPongWithin: .seconds(1_000))]
        _ = pinger.takeOutput()
        #expect(pinger.nextDeadline == Self.at(0))  // the pings wait for their clock
        pinger.advanceTime(to: Self.at(1))
        #expect(pinger.awaitedPings.earliestDeadline == Self.at(101))
        var events: [Connection.Event] = []
        switch ending {
        case .closingHandshake:
            try pinger.close()
            _ = pump(&pinger, into: &peer)
            events = pump(&peer, into: &pinger)
        case .peersClose:
            try peer.close(code: .goingAway)
            events = pump(&peer, into: &pinger)
        case .abort:
            pinger.abort()
            events = drain(&pinger)
        case .violation:
            pinger.receive(frame(0x1, Array("a".utf8), rsv: 0x40))
            events = drain(&pinger)
        case .endOfStream:
            pinger.receiveEOF()
            events = drain(&pinger)
        case .keepaliveTimeout:
            pinger.advanceTime(to: Self.at(30))
            pinger.advanceTime(to: Self.at(40))
            events = drain(&pinger)
        case .closeTimeout:
            try pinger.close()
            // The close timeout starts at the next time reported, not at the last one (1).
            #expect(pinger.nextDeadline == Self.at(1))
            pinger.advanceTime(to: Self.at(2))
            #expect(pinger.nextDeadline == Self.at(5))
            pinger.advanceTime(to: Self.at(4))
            #expect(drain(&pinger).isEmpty)
            pinger.advanceTime(to: Self.at(5))
            events = drain(&pinger)
        }
        guard case .closed(let status)? = events.last else { throw TestFailure("not closed: \(events)") }
        #expect(pingOutcomes(&pinger) == ids.map { PingEnded(id: $0, outcome: .connectionClosed(status)) })
        #expect(pinger.awaitedPings.count == 0)
        #expect(pinger.awaitedPings.earliestDeadline == nil)
        // Nothing more ends, whatever comes later.
        pinger.advanceTime(to: Self.at(2_000))
        #expect(pingOutcomes(&pinger).isEmpty)
    }

    @Test("A pong read while closing locally (our Close out, the peer's not yet in) answers its ping")
    func answeredWhileClosingLocally() throws {
        var (pinger, peer) = try Self.pair()
        pinger.advanceTime(to: Self.at(1))
        let id = try pinger.sendPing(awaitingPongWithin: nil)
        try pinger.close()
        // The ping and the close timeout wait for the next time reported.
        #expect(pinger.nextDeadline == Self.at(1))
        pinger.advanceTime(to: Self.at(2))
        #expect(pinger.nextDeadline == Self.at(7))  // the close timeout, 5 s from that report
        _ = pump(&pinger, into: &peer)  // the peer answers the ping, then the Close
        pinger.advanceTime(to: Self.at(3))
        let events = pump(&peer, into: &pinger)
        #expect(events.count == 3)  // the pong, the peer's Close, closed
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .answered(.seconds(1)))])
    }

    @Test("While closing remotely a ping may still be sent, as with ping(_:); it ends when our Close goes out")
    func sentWhileClosingRemotely() throws {
        var (pinger, peer) = try Self.pair()
        try pinger.sendFragment([1], kind: .binary, isFinal: false)
        _ = pump(&pinger, into: &peer)
        try peer.close()
        _ = pump(&peer, into: &pinger)
        #expect(pinger.state == .closing(initiatedBy: .remote))
        let id = try pinger.sendPing(awaitingPongWithin: .seconds(1))
        try pinger.sendFragment([2], kind: .binary, isFinal: true)
        let events = drain(&pinger)
        guard case .closed(let status)? = events.last else { throw TestFailure("not closed: \(events)") }
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .connectionClosed(status))])
    }

    @Test("Refused sends throw what ping(_:) throws in the same state, send nothing and await nothing")
    func refusedSendsRecordNothing() throws {
        // Before the handshake.
        var connecting = try Connection(role: .client(clientOptions()))
        let request = connecting.pendingOutputCount
        #expect(throws: Connection.UsageError.notOpen) { try connecting.ping([]) }
        #expect(throws: Connection.UsageError.notOpen) { _ = try connecting.sendPing(awaitingPongWithin: nil) }
        #expect(connecting.pendingOutputCount == request)

        // Open: a payload too large; the output buffer full.
        var config = Connection.Configuration()
        config.limits.maxBufferedOutput = 10
        var (open, _) = try Self.pair(config)
        let large = [UInt8](repeating: 7, count: 126)
        #expect(throws: Connection.UsageError.controlPayloadTooLarge) { try open.ping(large) }
        #expect(throws: Connection.UsageError.controlPayloadTooLarge) { _ = try open.sendPing(large, awaitingPongWithin: nil) }
        #expect(open.pendingOutputCount == 0)
        #expect(open.nextDeadline == nil)  // a refused ping waits for no clock
        _ = try open.sendPing([UInt8](repeating: 1, count: 125), awaitingPongWithin: nil)  // 125 bytes fit
        #expect(open.awaitedPings.count == 1)
        #expect(open.nextDeadline == .zero)  // this one does: report the time at once
        #expect(throws: Connection.UsageError.outputBufferFull) { try open.ping([]) }
        #expect(throws: Connection.UsageError.outputBufferFull) { _ = try open.sendPing(awaitingPongWithin: .seconds(1)) }
        #expect(open.awaitedPings.count == 1)
        _ = open.takeOutput()

        // Closing locally, then closed cleanly, then closed by a failure.
        var (closing, peer) = try Self.pair()
        try closing.close()
        let closeFrame = closing.pendingOutputCount
        #expect(throws: Connection.UsageError.closeAlreadySent) { try closing.ping([]) }
        #expect(throws: Connection.UsageError.closeAlreadySent) { _ = try closing.sendPing(awaitingPongWithin: nil) }
        #expect(closing.pendingOutputCount == closeFrame)
        _ = pump(&closing, into: &peer)
        _ = pump(&peer, into: &closing)
        #expect(throws: Connection.UsageError.closeAlreadySent) { try closing.ping([]) }
        #expect(throws: Connection.UsageError.closeAlreadySent) { _ = try closing.sendPing(awaitingPongWithin: nil) }
        var (aborted, _) = try Self.pair()
        aborted.abort()
        #expect(throws: Connection.UsageError.notOpen) { try aborted.ping([]) }
        #expect(throws: Connection.UsageError.notOpen) { _ = try aborted.sendPing(awaitingPongWithin: nil) }
        #expect(aborted.nextDeadline == nil)

        for var connection in [connecting, closing, aborted] {
            #expect(connection.awaitedPings.count == 0)
            #expect(connection.nextPingOutcome() == nil)
        }
        #expect(connecting.pendingOutputCount == request && aborted.pendingOutputCount == 0)
        #expect(open.nextPingOutcome() == nil)
    }

    @Test("Limits.maxAwaitedPings counts pings awaited and outcomes not taken; past it nothing is sent or stored")
    func limit() throws {
        var config = Connection.Configuration()
        config.limits.maxAwaitedPings = 3
        var (pinger, _) = try Self.pair(config)
        pinger.advanceTime(to: Self.at(0))
        for _ in 0..<3 { _ = try pinger.sendPing(awaitingPongWithin: .seconds(1)) }
        let payloads = Self.sentPings(&pinger)
        #expect(throws: Connection.UsageError.tooManyAwaitedPings) { _ = try pinger.sendPing(awaitingPongWithin: nil) }
        #expect(pinger.pendingOutputCount == 0)
        #expect(pinger.awaitedPings.pending.count == 3)
        // Answered but not taken: still counted.
        pinger.receive(Self.pong(payloads[1], to: pinger))
        _ = drain(&pinger)
        #expect(throws: Connection.UsageError.tooManyAwaitedPings) { _ = try pinger.sendPing(awaitingPongWithin: nil) }
        #expect(pingOutcomes(&pinger).count == 2)
        _ = try pinger.sendPing(awaitingPongWithin: nil)
        _ = try pinger.sendPing(awaitingPongWithin: nil)
        #expect(throws: Connection.UsageError.tooManyAwaitedPings) { _ = try pinger.sendPing(awaitingPongWithin: nil) }
        // A plain ping is not limited by it.
        try pinger.ping([1])
        #expect(Self.sentPings(&pinger).count == 3)
        // The default is 64.
        #expect(Connection.Limits().maxAwaitedPings == 64)
        var (defaults, _) = try Self.pair()
        for _ in 0..<64 { _ = try defaults.sendPing(awaitingPongWithin: nil) }
        #expect(throws: Connection.UsageError.tooManyAwaitedPings) { _ = try defaults.sendPing(awaitingPongWithin: nil) }
    }

    @Test("A limit of 0 or below allows no awaited ping", arguments: [0, -1])
    func limitZero(_ limit: Int) throws {
        var config = Connection.Configuration()
        config.limits.maxAwaitedPings = limit
        var (pinger, _) = try Self.pair(config)
        #expect(throws: Connection.UsageError.tooManyAwaitedPings) { _ = try pinger.sendPing(awaitingPongWithin: nil) }
        #expect(pinger.pendingOutputCount == 0)
        #expect(pinger.nextDeadline == nil)  // nothing waits for a clock
    }

    @Test("Pings sent before the first time report count as sent then, and their timeouts start then; until then nextDeadline is zero")
    func sentBeforeFirstTimeReport() throws {
        var (pinger, _) = try Self.pair()
        let first = try pinger.sendPing(awaitingPongWithin: .seconds(5))
        let second = try pinger.sendPing(awaitingPongWithin: .seconds(2))
        let payloads = Self.sentPings(&pinger)
        #expect(pinger.nextDeadline == .zero)  // no time reported yet: report one at once
        pinger.advanceTime(to: Self.at(100))
        #expect(pinger.nextDeadline == Self.at(102))
        pinger.advanceTime(to: Self.at(102))
        #expect(pingOutcomes(&pinger) == [PingEnded(id: second, outcome: .timedOut)])
        #expect(pinger.nextDeadline == Self.at(105))
        pinger.advanceTime(to: Self.at(milliseconds: 103_500))
        pinger.receive(Self.pong(payloads[0], to: pinger))
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: first, outcome: .answered(.milliseconds(3_500)))])
    }

    @Test("A timeout of zero ends the ping at the first time report; without any time reported, round trips are zero")
    func withoutTime() throws {
        var (pinger, _) = try Self.pair()
        let id = try pinger.sendPing(awaitingPongWithin: nil)
        let payloads = Self.sentPings(&pinger)
        pinger.receive(Self.pong(payloads[0], to: pinger))
        _ = drain(&pinger)
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .answered(.zero))])
        let zero = try pinger.sendPing(awaitingPongWithin: .zero)
        #expect(pinger.nextDeadline == .zero)  // it waits for its clock: report a time at once
        pinger.advanceTime(to: Self.at(7))
        #expect(pingOutcomes(&pinger) == [PingEnded(id: zero, outcome: .timedOut)])
    }

    @Test("Copying a connection forks its awaited pings")
    func copyForks() throws {
        var (pinger, _) = try Self.pair()
        pinger.advanceTime(to: Self.at(0))
        let id = try pinger.sendPing(awaitingPongWithin: .seconds(10))
        let payloads = Self.sentPings(&pinger)
        #expect(pinger.nextDeadline == Self.at(0))
        pinger.advanceTime(to: Self.at(1))  // the ping counts as sent now: it times out at 11
        var copy = pinger
        copy.advanceTime(to: Self.at(2))
        copy.receive(Self.pong(payloads[0], to: copy))
        _ = drain(&copy)
        #expect(pingOutcomes(&copy) == [PingEnded(id: id, outcome: .answered(.seconds(1)))])
        #expect(pingOutcomes(&pinger).isEmpty)
        pinger.advanceTime(to: Self.at(10))
        #expect(pingOutcomes(&pinger).isEmpty)
        pinger.advanceTime(to: Self.at(11))
        #expect(pingOutcomes(&pinger) == [PingEnded(id: id, outcome: .timedOut)])
        #expect(pingOutcomes(&copy).isEmpty)
    }

    @Test("Outcomes, descriptions and identifiers through the public members")
    func publicValues() throws {
        let status = Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)
        let closed = Connection.PingOutcome.connectionClosed(status)
        #expect(closed.connectionClosed == status)
        #expect(closed.answered == nil)
        #expect(Connection.PingOutcome.timedOut.connectionClosed == nil)
        #expect(Connection.PingOutcome.answered(.milliseconds(5)).answered == .milliseconds(5))
        #expect("\(Connection.PingOutcome.timedOut)" == "no pong within the timeout")
        #expect("\(closed)" == "the connection closed first: 1000 (normal closure)")
        #expect("\(Connection.PingID(3))" == "ping 3")
        #expect("\(Connection.UsageError.tooManyAwaitedPings)" == "too many awaited pings: their pongs or outcomes are pending")
        // `case .timedOut:` matches this type's member, not HandshakeFailure's (whose `~=` takes any Error).
        switch Connection.PingOutcome.timedOut {
        case .timedOut: break
        default: Issue.record("matched no member")
        }
    }

    @Test("The round trip in descriptions: seconds to the microsecond, no trailing zeros", arguments: [
        (Duration.milliseconds(250), "answered in 0.25 s"), (.seconds(3), "answered in 3 s"), (.zero, "answered in 0 s"),
        (.microseconds(1_000_001), "answered in 1.000001 s"), (.nanoseconds(999), "answered in 0 s"),
        (.milliseconds(-1_500), "answered in -1.5 s"),
    ])
    func roundTripDescription(_ roundTrip: Duration, _ expected: String) {
        #expect("\(Connection.PingOutcome.answered(roundTrip))" == expected)
    }}
