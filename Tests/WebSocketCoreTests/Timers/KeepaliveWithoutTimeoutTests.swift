// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Keepalive pings without a pong timeout")
struct KeepaliveWithoutTimeoutTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    @Test("With keepaliveTimeout nil: a ping every interval whether or not pongs come back, and the connection stays open")
    func pingsEveryIntervalWithoutTimeout() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = nil
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: Self.at(0))
        #expect(client.nextDeadline == Self.at(30))
        var counters: [[UInt8]] = []
        for tick in [30, 60, 90] {
            client.advanceTime(to: Self.at(tick))
            let frames = decodeFrames(client.takeOutput())
            #expect(frames.map(\.opcode) == [0x9])
            counters += frames.map(\.payload)
            // No pong timer: the next deadline is the next ping, one interval on.
            #expect(client.nextDeadline == Self.at(tick + 30))
        }
        #expect(counters == [[0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0, 0, 3]])
        #expect(client.state == .open)
        #expect(drain(&client).isEmpty)
    }
}

@Suite("Reporting a time when no timer is due")
struct QuietTimeTests {
    @Test("A time before every deadline changes nothing but the time: no output, the deadlines stay, and a timer started next counts from the next report")
    func quietReports() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.close = .seconds(5)
        var (client, _) = try openPair(client: config)
        client.advanceTime(to: TimersTests.at(0))
        #expect(client.nextDeadline == TimersTests.at(30))
        for tick in [1, 10, 29] {
            client.advanceTime(to: TimersTests.at(tick))
            #expect(client.takeOutput().isEmpty)
            #expect(client.nextDeadline == TimersTests.at(30))
            #expect(drain(&client).isEmpty)
        }
        // The close timer counts from the next time reported, asked for at once (29 is the last one).
        try client.close()
        #expect(client.nextDeadline == TimersTests.at(29))
        client.advanceTime(to: TimersTests.at(29))
        #expect(client.nextDeadline == TimersTests.at(34))
        // Earlier than the last report: ignored, as before.
        client.advanceTime(to: TimersTests.at(20))
        #expect(client.nextDeadline == TimersTests.at(34))
        client.advanceTime(to: TimersTests.at(33))
        #expect(client.state == .closing(initiatedBy: .local))
        client.advanceTime(to: TimersTests.at(34))
        guard case .closed(let status) = client.state else {
            Issue.record("not closed at the close timeout: \(client.state)")
            return
        }
        #expect(status.failure == .closeTimeout)
    }
}
