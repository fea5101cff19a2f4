// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// How soon a ``RedisConnection`` tries again after a failed attempt or a lost connection: truncated
/// exponential backoff with jitter.
///
/// The wait before attempt `n` of a series (1 for the first after a loss) is ``initialDelay`` ×
/// ``factor``^(n − 1), at most ``maximumDelay``, shortened at random by up to ``jitter`` of itself so
/// that the servers of a deployment cut off together (Redis restarting) do not come back in step. A
/// series ends when a connection is ready again.
///
/// The defaults come back fast (0.1, 0.2, 0.4 … s, then every 5 s): while a server is cut off from
/// Redis, messages between servers are lost, so a backplane retries sooner than a client would.
public struct RedisReconnectPolicy: Sendable, Hashable {
    /// The wait before the first attempt of a series. Default 100 ms.
    public var initialDelay: Duration
    /// How much each wait grows over the one before (less than 1 counts as 1). Default 2.
    public var factor: Double
    /// The longest wait. Default 5 s.
    public var maximumDelay: Duration
    /// The fraction, 0 to 1, by which each wait is shortened at random. Default 0.2.
    public var jitter: Double

    /// A policy; every parameter defaults to the value documented on its property.
    public init(initialDelay: Duration = .milliseconds(100), factor: Double = 2, maximumDelay: Duration = .seconds(5),
                jitter: Double = 0.2) {
        self.initialDelay = initialDelay
        self.factor = factor
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The wait before attempt `attempt` (1 for the first) of a series.
    public func delay(beforeAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        backoffDelay(from: initialDelay, factor: factor, steps: attempt - 1, maximum: maximumDelay, jitter: jitter,
                     using: &generator)
    }
}
