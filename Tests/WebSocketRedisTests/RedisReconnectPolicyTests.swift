// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketRedis

@Suite("RedisReconnectPolicy: truncated exponential backoff with jitter")
struct RedisReconnectPolicyTests {
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    @Test("Without jitter the waits double from the initial delay up to the maximum")
    func doubling() {
        let policy = RedisReconnectPolicy(initialDelay: .milliseconds(100), factor: 2, maximumDelay: .seconds(1), jitter: 0)
        var generator = Connection.SeededGenerator(seed: 1)
        let delays = (1...7).map { Self.seconds(policy.delay(beforeAttempt: $0, using: &generator)) }
        let expected = [0.1, 0.2, 0.4, 0.8, 1, 1, 1]
        for (delay, want) in zip(delays, expected) {
            #expect(abs(delay - want) < 1e-9, "\(delays)")
        }
    }

    @Test("Jitter shortens a wait by at most its fraction, never lengthens it")
    func jitterBounds() {
        let policy = RedisReconnectPolicy(initialDelay: .milliseconds(100), factor: 2, maximumDelay: .seconds(5), jitter: 0.2)
        var generator = Connection.SeededGenerator(seed: 2)
        for attempt in 1...40 {
            let unjittered = min(0.1 * Double(1 << min(attempt - 1, 20)), 5)
            let delay = Self.seconds(policy.delay(beforeAttempt: attempt, using: &generator))
            #expect(delay <= unjittered + 1e-9 && delay >= unjittered * 0.8 - 1e-9, "attempt \(attempt): \(delay)")
        }
    }

    @Test("A zero initial delay stays zero however many attempts; growth past a Double is the maximum")
    func edges() {
        var generator = Connection.SeededGenerator(seed: 3)
        let immediate = RedisReconnectPolicy(initialDelay: .zero, factor: 2, maximumDelay: .seconds(5), jitter: 0.2)
        // 2^1,999 overflows: 0 × ∞ was NaN, which the cap turned into the maximum.
        #expect(immediate.delay(beforeAttempt: 2_000, using: &generator) == .zero)
        let growing = RedisReconnectPolicy(initialDelay: .milliseconds(100), factor: 2, maximumDelay: .seconds(5), jitter: 0)
        #expect(growing.delay(beforeAttempt: 100_000, using: &generator) == .seconds(5))
        let shrinking = RedisReconnectPolicy(initialDelay: .milliseconds(300), factor: 0.5, maximumDelay: .seconds(5), jitter: 0)
        #expect(shrinking.delay(beforeAttempt: 9, using: &generator) == .milliseconds(300))
    }
}
