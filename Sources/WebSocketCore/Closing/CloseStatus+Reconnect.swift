// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection.CloseStatus {
    /// Whether the way the connection ended suggests that connecting again may succeed: it was lost
    /// (no Close frame, a close or keepalive timeout, the stream cut), or the peer said it is going
    /// away, hit an unexpected condition, is restarting, is overloaded or could not reach its upstream
    /// (1001, 1011, 1012, 1013, 1014: RFC 6455 §7.4.1 and the IANA registry of close codes). Not after
    /// a normal close, a protocol violation (it would happen again), a close this side aborted, or
    /// any other code the peer chose on purpose.
    ///
    /// A hint for a reconnecting client; how often and how soon is the caller's policy.
    public var isWorthReconnecting: Bool {
        if let failure { return failure.protocolViolation == nil && failure != .aborted }
        if !wasClean { return true }
        return Self.reconnectCodes.contains(code)
    }

    private static let reconnectCodes: [Connection.CloseCode] = [
        .goingAway, .abnormalClosure, .internalError, .serviceRestart, .tryAgainLater, .badGateway,
    ]
}
