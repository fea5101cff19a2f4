// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore

@Suite("Instants compare as their durations do")
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
}
