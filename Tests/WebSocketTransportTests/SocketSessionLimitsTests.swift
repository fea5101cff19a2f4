// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: a server connection's lifetime and idle limits, on a clock the test steps")
struct SocketSessionLimitsTests {
    /// A server session with `limits` (its lifetime drawn from `sample`), opened at `openedAt`, and
    /// its open peer client.
    static func opened(_ limits: LifetimeLimits, sample: UInt64 = 0,
                       at openedAt: Connection.Instant = .zero) throws -> (session: SocketSession, client: ConnectionPipeline) {
        let pipeline = try ConnectionPipeline.server(configuration: Connection.Configuration(), transport: TransportOptions())
        var session = SocketSession(accepted: pipeline, settings: SessionRig.settings(), limits: limits, lifetimeSample: sample)
        session.advanceTime(to: .zero)
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: SessionRig.url),
                                                   configuration: Connection.Configuration(), transport: TransportOptions())
        client.advanceTime(to: .zero)
        session.read(from: &client, at: openedAt)
        guard case .decide? = session.pullAll().first else { throw PipelineTestFailure("no request") }
        session.respond(to: .accept())
        guard case .event(.open)? = session.pullAll().first else { throw PipelineTestFailure("not open") }
        // The limits start at the next time reported: at once.
        #expect(session.nextDeadline == openedAt)
        session.advanceTime(to: openedAt)
        session.write(to: &client, at: openedAt)
        guard case .handshakeCompleted? = client.pullEvents().first else { throw PipelineTestFailure("no 101") }
        return (session, client)
    }

    /// The Close frame the client received, if any.
    static func closeReceived(by client: inout ConnectionPipeline, from session: inout SocketSession,
                              at now: Connection.Instant) -> Connection.CloseFrame? {
        session.write(to: &client, at: now)
        for event in client.pullEvents() {
            if case .closeReceived(let frame) = event { return frame }
        }
        return nil
    }

    @Test("A lifetime is the maximum less a fraction of the jitter given by the sample: a tenth of the maximum by default")
    func lifetimeDrawn() {
        let hour = LifetimeLimits(maxLifetime: .seconds(3600))
        #expect(hour.lifetime(sample: 0) == .seconds(3600))
        #expect(hour.lifetime(sample: 1 << 63) == .seconds(3420))
        // The largest sample stays just short of the whole jitter.
        let shortest = hour.lifetime(sample: .max)
        #expect(shortest.map { $0 > .seconds(3240) && $0 < .milliseconds(3_240_001) } == true, "\(String(describing: shortest))")
        let jittered = LifetimeLimits(maxLifetime: .seconds(100), lifetimeJitter: .seconds(40))
        #expect(jittered.lifetime(sample: 1 << 62) == .seconds(90))
        // A jitter longer than the lifetime takes it at most to nothing; none draws nothing.
        #expect(LifetimeLimits(maxLifetime: .seconds(10), lifetimeJitter: .seconds(50)).lifetime(sample: 1 << 63) == .seconds(5))
        #expect(LifetimeLimits(maxLifetime: .seconds(10), lifetimeJitter: .zero).lifetime(sample: .max) == .seconds(10))
        #expect(LifetimeLimits(maxLifetime: .seconds(10), lifetimeJitter: .zero).randomSample == 0)
        #expect(LifetimeLimits(idleTimeout: .seconds(10)).lifetime(sample: .max) == nil)
        #expect(LifetimeLimits(idleTimeout: .seconds(10)).randomSample == 0)
        #expect(LifetimeLimits().isEnabled == false)
    }

    @Test("At the end of its lifetime, counted from the opening, the connection is closed with 1001; not a moment before")
    func lifetimeEnds() throws {
        var (session, client) = try Self.opened(LifetimeLimits(maxLifetime: .seconds(60), lifetimeJitter: .seconds(10)),
                                                sample: 1 << 63, at: at(1000))
        #expect(session.nextDeadline == at(56_000))
        session.timerFired(at: at(55_999))
        #expect(Self.closeReceived(by: &client, from: &session, at: at(55_999)) == nil)
        session.timerFired(at: at(56_000))
        #expect(Self.closeReceived(by: &client, from: &session, at: at(56_000))
                == Connection.CloseFrame(code: .goingAway, reason: "connection lifetime reached"))
        // The closing handshake's own timer runs now (from the next report), not the lifetime.
        session.advanceTime(to: at(56_000))
        #expect(session.nextDeadline == at(61_000))
    }

    @Test("Idle: each read puts the deadline back; silence for the whole timeout closes with 1001 \"idle timeout\"")
    func idleTimeout() throws {
        var (session, client) = try Self.opened(LifetimeLimits(idleTimeout: .seconds(10)))
        #expect(session.nextDeadline == at(10_000))
        try peerSends(&client, to: &session, at: at(4000)) { connection throws(Connection.UsageError) in try connection.send(text: "hi") }
        _ = session.pullAll()
        #expect(session.nextDeadline == at(14_000))
        // A timer set for the old deadline fires: nothing to do yet.
        session.timerFired(at: at(10_000))
        #expect(Self.closeReceived(by: &client, from: &session, at: at(10_000)) == nil)
        #expect(session.nextDeadline == at(14_000))
        // A pong counts as input too.
        try peerSends(&client, to: &session, at: at(13_000)) { connection throws(Connection.UsageError) in try connection.pong([1]) }
        _ = session.pullAll()
        session.timerFired(at: at(14_000))
        #expect(Self.closeReceived(by: &client, from: &session, at: at(14_000)) == nil)
        // Sending does not: the peer must say something.
        try session.send(.text("anyone there?"))
        session.timerFired(at: at(23_000))
        let frame = Self.closeReceived(by: &client, from: &session, at: at(23_000))
        #expect(frame == Connection.CloseFrame(code: .goingAway, reason: "idle timeout"))
    }

    @Test("The limits count from the first time reported after the opening: a decision that took a while does not eat into them")
    func slowDecision() throws {
        let pipeline = try ConnectionPipeline.server(configuration: Connection.Configuration(), transport: TransportOptions())
        var session = SocketSession(accepted: pipeline, settings: SessionRig.settings(), limits: LifetimeLimits(idleTimeout: .seconds(3)))
        session.advanceTime(to: .zero)
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: SessionRig.url),
                                                   configuration: Connection.Configuration(), transport: TransportOptions())
        client.advanceTime(to: .zero)
        session.read(from: &client, at: .zero)
        guard case .decide? = session.pullAll().first else { throw PipelineTestFailure("no request") }
        // The decision comes 8 s later (a handler on a busy queue); the next report is then.
        session.respond(to: .accept())
        guard case .event(.open)? = session.pullAll().first else { throw PipelineTestFailure("not open") }
        session.timerFired(at: at(8000))
        #expect(session.nextDeadline == at(11_000))
        session.write(to: &client, at: at(8000))
        #expect(!client.pullEvents().contains { if case .closeReceived = $0 { true } else { false } })
    }

    @Test("Read in place, a read counts as input at the time reported just before it")
    func idleInPlace() throws {
        var (session, client) = try Self.opened(LifetimeLimits(idleTimeout: .seconds(10)))
        #expect(session.readsInPlace)
        try client.connection.send(text: "in place")
        client.update()
        var bytes = client.takeSocketOutput()
        session.advanceTime(to: at(7000))
        var texts: [String] = []
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while let next = session.nextAction(readingInPlace: raw, from: &offset) {
                if case .message(.text, let payload) = next { texts.append(String(decoding: payload, as: UTF8.self)) }
            }
        }
        #expect(texts == ["in place"])
        #expect(session.nextDeadline == at(17_000))
    }

    @Test("Read in place, a peer's Close starts the linger from the time reported for the read: no report of its own is asked for, through either pull")
    func closeReadInPlaceArmsLinger() throws {
        for shortPullFirst in [false, true] {
            var (session, client) = try Self.opened(LifetimeLimits(idleTimeout: .seconds(100)))
            try client.connection.close()
            client.update()
            var bytes = client.takeSocketOutput()
            session.advanceTime(to: at(7000))
            var closed = false
            bytes.withUnsafeMutableBytes { raw in
                var offset = 0
                if shortPullFirst {
                    // The Close is left for the general pull.
                    #expect(session.nextMessage(readingInPlace: raw, from: &offset) == nil)
                    #expect(offset == 0)
                }
                while let next = session.nextAction(readingInPlace: raw, from: &offset) {
                    if case .message = next { Issue.record("a message from a Close") }
                }
                closed = offset == raw.count
            }
            #expect(closed)
            // The default linger, 2 s from the read's report (before the idle limit), not "report at once".
            #expect(session.nextDeadline == at(9000))
        }
    }

    @Test("The short pull of whole messages (nextMessage) counts a read as input, as the general pull does, and the meter counts its messages; what it leaves (a control frame and after), the general pull gives, in order")
    func idleInPlaceShortPull() throws {
        var (session, client) = try Self.opened(LifetimeLimits(idleTimeout: .seconds(10)))
        let storage = ServerMeter.Storage()
        session.meter = storage.meter
        try client.connection.send(text: "one")
        try client.connection.send(binary: [1, 2, 3])
        try client.connection.ping([9])
        try client.connection.send(text: "after the ping")
        client.update()
        var bytes = client.takeSocketOutput()
        session.advanceTime(to: at(7000))
        var short: [String] = [], all: [String] = []
        var actions = 0
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while true {
                if let (kind, payload) = session.nextMessage(readingInPlace: raw, from: &offset) {
                    short.append(kind == .text ? String(decoding: payload, as: UTF8.self) : "\(Array(payload))")
                    all.append(short[short.count - 1])
                    continue
                }
                guard let next = session.nextAction(readingInPlace: raw, from: &offset) else { break }
                switch next {
                case .message(let kind, let payload):
                    all.append(kind == .text ? String(decoding: payload, as: UTF8.self) : "\(Array(payload))")
                case .action: actions += 1
                }
            }
            #expect(offset == raw.count)
        }
        // The whole messages before the ping by the short pull; the ping (the connection's own:
        // answered, no action for the consumer) and what follows it by the general one, in order.
        #expect(short == ["one", "[1, 2, 3]"])
        #expect(all == ["one", "[1, 2, 3]", "after the ping"])
        #expect(actions == 0)
        #expect(session.nextDeadline == at(17_000))
        #expect(ServerMeter.sum([storage.meter]).messagesReceived == 3)
        session.write(to: &client, at: at(7000))
        #expect(client.pullEvents().contains(.pong([9])))
    }

    @Test("Both limits: the earlier one closes; once the peer started the closing handshake, neither does")
    func limitsStopWhenClosing() throws {
        var (session, client) = try Self.opened(LifetimeLimits(maxLifetime: .seconds(30), lifetimeJitter: .zero,
                                                               idleTimeout: .seconds(20)))
        #expect(session.nextDeadline == at(20_000))
        try peerSends(&client, to: &session, at: at(15_000)) { connection throws(Connection.UsageError) in try connection.send(text: "x") }
        _ = session.pullAll()
        #expect(session.nextDeadline == at(30_000))
        try peerSends(&client, to: &session, at: at(16_000)) { connection throws(Connection.UsageError) in
            try connection.close(code: .normalClosure, reason: "bye")
        }
        _ = session.pullAll()
        session.timerFired(at: at(30_000))
        session.write(to: &client, at: at(30_000))
        let closes = client.pullEvents().compactMap { event -> Connection.CloseCode? in
            if case .closeReceived(let frame) = event { frame.code } else { nil }
        }
        // The echo of the client's Close, and no Close of the server's own.
        #expect(closes == [.normalClosure])
        #expect(session.limits.deadline == nil)
    }

    /// The stored deadline (kept as the state changes) against the deadline worked out from the state
    /// itself, over random steps of the limits' own life: every combination of limits, the time
    /// reported, input, the open, and the limits switched off for a closing handshake.
    @Test func storedDeadlineFollowsTheState() {
        func expected(_ timers: LimitTimers) -> Connection.Instant? {
            switch timers.state {
            case .off, .awaitingOpen: return nil
            case .starting: return timers.lastReport
            case .running(let end, let idle, let last):
                let silence = idle.map { last + $0 }
                guard let end else { return silence }
                guard let silence else { return end }
                return min(end, silence)
            }
        }
        var random = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let limits = LifetimeLimits(maxLifetime: Bool.random(using: &random) ? .seconds(Int.random(in: 1...50, using: &random)) : nil,
                                        lifetimeJitter: Bool.random(using: &random) ? .seconds(5) : nil,
                                        idleTimeout: Bool.random(using: &random) ? .seconds(Int.random(in: 1...20, using: &random)) : nil)
            var timers = LimitTimers(limits, sample: UInt64.random(in: 0...UInt64.max, using: &random))
            var now = 0
            #expect(timers.deadline == expected(timers), "round \(round), at the start")
            for step in 0..<40 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: timers.start()
                case 1, 2, 3:
                    now += Int.random(in: 0...3_000, using: &random)
                    timers.report(Connection.Instant(sinceOrigin: .milliseconds(now)))
                case 4, 5:
                    timers.inputUnstamped = true
                case 6, 7:
                    timers.received(at: Connection.Instant(sinceOrigin: .milliseconds(now)))
                case 8:
                    if case .running = timers.state, Int.random(in: 0..<4, using: &random) == 0 { timers.state = .off }
                default:
                    now += Int.random(in: 0...20_000, using: &random)
                    timers.report(Connection.Instant(sinceOrigin: .milliseconds(now)))
                }
                #expect(timers.deadline == expected(timers), "round \(round), step \(step)")
            }
        }
    }
}
