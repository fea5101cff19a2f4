// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore

@Suite("Instants compare, add and convert as their durations do")
struct InstantTests {
    /// Durations on both sides of zero and of every 64-bit boundary of the attosecond count: whole
    /// seconds, nanoseconds, and attoseconds (through division), small and near the limits.
    static let durations: [Duration] = {
        var values: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(-1), .seconds(1), .seconds(-1),
                                  .seconds(Int64.max), .seconds(Int64.min), .nanoseconds(Int64.max), .nanoseconds(Int64.min),
                                  .seconds(18), .seconds(19), .seconds(-18), .seconds(-19),  // 2^64 attoseconds is about 18.4 s
                                  .seconds(1) / 1_000_000_000_000, .seconds(-1) / 1_000_000_000_000]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let seconds = Int64.random(in: -40...40, using: &random)
            let nanos = Int64.random(in: -999_999_999...999_999_999, using: &random)
            values.append(.seconds(seconds) + .nanoseconds(nanos))
            values.append(.nanoseconds(Int64.random(in: Int64.min...Int64.max, using: &random)))
        }
        return values
    }()

    @Test("< and == agree with Duration's for every pair")
    func ordering() {
        let values = Self.durations
        for a in values {
            for b in values {
                let x = Connection.Instant(sinceOrigin: a)
                let y = Connection.Instant(sinceOrigin: b)
                #expect((x < y) == (a < b), "\(a) < \(b)")
                #expect((x == y) == (a == b), "\(a) == \(b)")
                if x == y { #expect(x.hashValue == y.hashValue) }
            }
        }
    }

    @Test("+ agrees with Duration's for every pair whose sum is in range")
    func addition() {
        let values = Self.durations
        var added = 0
        for a in values {
            for b in values {
                // Pairs near Int64's limits in seconds are left out: their sum may be past the
                // range, where both trap.
                guard a.components.seconds.magnitude < 1 << 62, b.components.seconds.magnitude < 1 << 62 else { continue }
                let instant = Connection.Instant(sinceOrigin: a) + b
                #expect(instant.sinceOrigin == a + b, "\(a) + \(b)")
                added += 1
            }
        }
        #expect(added > 160_000)
        // The carry out of the low half, and the high half's limits, each with its sum worked out
        // by hand: Duration's `+` traps on the last two, whose halves both wrap and cancel (the
        // high halves' own sum is past Int64's range, the carry brings it back to Int64.min).
        let carries: [(Duration, Duration, Duration)] = [
            (Duration(_high: 0, low: .max), Duration(_high: 0, low: 1), Duration(_high: 1, low: 0)),
            (Duration(_high: -1, low: .max), Duration(_high: 0, low: 1), Duration(_high: 0, low: 0)),
            (Duration(_high: Int64.max - 1, low: .max), Duration(_high: 0, low: 1), Duration(_high: Int64.max, low: 0)),
            (Duration(_high: Int64.min, low: 5), Duration(_high: Int64.max, low: .max), Duration(_high: 0, low: 4)),
            (Duration(_high: Int64.max, low: 0), Duration(_high: Int64.min, low: .max), Duration(_high: -1, low: .max)),
            (Duration(_high: Int64.min, low: 1), Duration(_high: -1, low: .max), Duration(_high: Int64.min, low: 0)),
            (Duration(_high: -1, low: .max), Duration(_high: Int64.min, low: 1), Duration(_high: Int64.min, low: 0)),
        ]
        for (a, b, sum) in carries {
            #expect((Connection.Instant(sinceOrigin: a) + b).sinceOrigin == sum, "\(a) + \(b)")
            #expect((Connection.Instant(sinceOrigin: b) + a).sinceOrigin == sum, "\(b) + \(a)")
        }
    }

    @Test("An instant from seconds and nanoseconds is .seconds(s) + .nanoseconds(n)")
    func fromTimespec() {
        var pairs: [(Int64, Int64)] = [(0, 0), (0, 1), (1, 0), (0, 999_999_999), (18, 446_744_073), (18, 446_744_074),
                                       (-1, 999_999_999), (-18, -446_744_074), (Int64.max, 999_999_999),
                                       (Int64.max, Int64.max), (Int64.min, Int64.min), (Int64.min, 0), (Int64.max, Int64.min),
                                       (Int64.min, Int64.max), (1_733_580_000, 123_456_789)]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            pairs.append((Int64.random(in: Int64.min...Int64.max, using: &random), Int64.random(in: 0..<1_000_000_000, using: &random)))
            pairs.append((Int64.random(in: -1_000_000...1_000_000_000, using: &random),
                          Int64.random(in: Int64.min...Int64.max, using: &random)))
        }
        for (seconds, nanoseconds) in pairs {
            #expect(Connection.Instant(seconds: seconds, nanoseconds: nanoseconds).sinceOrigin
                        == .seconds(seconds) + .nanoseconds(nanoseconds), "\(seconds) s \(nanoseconds) ns")
        }
    }
}
