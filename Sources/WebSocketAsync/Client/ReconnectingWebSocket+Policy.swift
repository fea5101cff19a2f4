// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension ReconnectingWebSocket {
    /// How soon and how many times a ``ReconnectingWebSocket`` connects again: truncated exponential
    /// backoff with jitter (RFC 6455 §7.2.3).
    ///
    /// The wait before reconnect attempt `n` of a series:
    ///
    /// - `n = 1`: a random duration in ``initialDelay`` (default 0 to 5 s), so that clients cut off
    ///   together (a server restarting) do not all come back at the same instant;
    /// - `n ≥ 2`: ``secondDelay`` × ``factor``^(n − 2), at most ``maximumDelay``, shortened at
    ///   random by up to ``jitter`` of itself.
    ///
    /// No wait is ever longer than ``maximumDelay``. The defaults are those of Python's websockets
    /// (`async for websocket in connect(...)`), with a little jitter added: 0–5 s, then 3.1, 5.0,
    /// 8.1, 13.1, 21.2, 34.4, 55.6, 90, 90… s, each of those up to 10 % shorter.
    ///
    /// A series starts over (the next reconnect is attempt 1 again, after a random
    /// ``initialDelay``) once a connection has stayed open for ``resetAfter``; ``maxAttempts``
    /// counts the attempts of a series.
    ///
    /// ```swift
    /// var policy = ReconnectingWebSocket.Policy()
    /// policy.maxAttempts = 10                      // then give up
    /// policy.initialDelay = .zero ... .seconds(1)  // come back sooner the first time
    /// let client = try ReconnectingWebSocket(to: "wss://example.com/feed", policy: policy)
    ///
    /// // Fixed waits that double: 1, 2, 4, 8… s, at most 30 s, 5 attempts in all.
    /// let doubling = ReconnectingWebSocket.Policy(initialDelay: .seconds(1) ... .seconds(1), secondDelay: .seconds(2),
    ///                                             factor: 2, maximumDelay: .seconds(30), jitter: 0,
    ///                                             maxAttempts: 5, resetAfter: nil)
    /// ```
    ///
    /// RFC 6455 §7.2.3: <https://www.rfc-editor.org/rfc/rfc6455#section-7.2.3>
    public struct Policy: Sendable, Hashable {
        /// The range the wait before the first reconnect of a series is picked from, uniformly at
        /// random (RFC 6455 §7.2.3: "the first reconnect attempt SHOULD be delayed by a random amount
        /// of time"). A range of one value (`d ... d`) makes it fixed. Default 0 to 5 s.
        public var initialDelay: ClosedRange<Duration>
        /// The wait before the second reconnect of a series; each later one is ``factor`` times the
        /// one before. Default 3.1 s.
        public var secondDelay: Duration
        /// How much each wait grows over the one before (1 keeps it constant; less counts as 1).
        /// Default 1.618.
        public var factor: Double
        /// The longest wait. Default 90 s.
        public var maximumDelay: Duration
        /// The fraction by which each wait after the first is shortened, at random: a wait of `d`
        /// becomes one between `d × (1 − jitter)` and `d` (0: none, 1: anywhere from 0 to `d`;
        /// values outside 0...1 are clamped). It keeps clients that failed together from retrying
        /// in step. Default 0.1.
        public var jitter: Double
        /// The most reconnect attempts in a series, after which the client gives up; `nil` (the
        /// default): no limit. 0 never reconnects.
        public var maxAttempts: Int?
        /// How long a connection must stay open for the next reconnect to start a new series (attempt
        /// 1, the random ``initialDelay``, ``maxAttempts`` counted afresh); `nil`: never, so that
        /// ``maxAttempts`` counts every reconnect of the client's life. Default 5 s: a server that
        /// accepts and drops every connection at once meets growing waits, not a reconnect every few
        /// seconds.
        public var resetAfter: Duration?

        /// A policy; every parameter defaults to the value documented on its property.
        public init(initialDelay: ClosedRange<Duration> = .zero ... .seconds(5), secondDelay: Duration = .milliseconds(3_100),
                    factor: Double = 1.618, maximumDelay: Duration = .seconds(90), jitter: Double = 0.1,
                    maxAttempts: Int? = nil, resetAfter: Duration? = .seconds(5)) {
            self.initialDelay = initialDelay
            self.secondDelay = secondDelay
            self.factor = factor
            self.maximumDelay = maximumDelay
            self.jitter = jitter
            self.maxAttempts = maxAttempts
            self.resetAfter = resetAfter
        }

        /// The wait before reconnect attempt `attempt` of a series (1 for the first), drawing on
        /// `generator` for the random parts (none is drawn for a fixed ``initialDelay``, nor with no
        /// ``jitter``).
        ///
        /// ```swift
        /// var generator = SystemRandomNumberGenerator()
        /// let policy = ReconnectingWebSocket.Policy(jitter: 0)
        /// policy.delay(beforeAttempt: 2, using: &generator)   // 3.1 s
        /// policy.delay(beforeAttempt: 3, using: &generator)   // 5.0158 s
        /// ```
        public func delay(beforeAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
            let maximum = max(maximumDelay, .zero)
            guard attempt > 1 else {
                let lower = max(initialDelay.lowerBound, .zero), upper = max(initialDelay.upperBound, .zero)
                guard upper > lower else { return min(lower, maximum) }
                return min(lower + (upper - lower) * Double.random(in: 0 ... 1, using: &generator), maximum)
            }
            return backoffDelay(from: secondDelay, factor: factor, steps: attempt - 2, maximum: maximum, jitter: jitter,
                                using: &generator)
        }
    }
}
