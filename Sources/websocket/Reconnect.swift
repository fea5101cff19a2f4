// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketAsync

/// `--reconnect N`: how many attempts, and how long to wait before each. Which endings are worth one
/// is the library's `isWorthReconnecting` (of a close status, of a connection error); the attempts
/// and their waits are the library's `ReconnectingWebSocket` with ``policy``.
struct ReconnectPolicy: Sendable {
    /// Attempts allowed in all (0: never reconnect).
    var limit = 0
    /// The wait before the first attempt; each further one doubles it, up to ``maximumDelay``.
    var delay: Duration = .seconds(1)
    static let maximumDelay: Duration = .seconds(30)

    /// The client's policy: fixed waits (no jitter) from ``delay``, doubling up to ``maximumDelay``,
    /// at most ``limit`` attempts in the whole run.
    var policy: ReconnectingWebSocket.Policy {
        ReconnectingWebSocket.Policy(initialDelay: delay ... delay, secondDelay: delay * 2, factor: 2,
                                     maximumDelay: Self.maximumDelay, jitter: 0, maxAttempts: limit, resetAfter: nil)
    }
}
