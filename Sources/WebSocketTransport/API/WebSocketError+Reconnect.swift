// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

extension WebSocketError {
    /// Whether connecting again may succeed where this attempt failed: the cause may pass (the
    /// server down or restarting, a timeout, a socket error, a 5xx answer, an opening handshake cut
    /// short, or a connection that ended as ``WebSocketCore/Connection/CloseStatus/isWorthReconnecting``
    /// says). Not for a bad URL or argument, a TLS refusal, a proxy's refusal, a redirect refused or
    /// a 4xx answer: those come back the same next time.
    public var isWorthReconnecting: Bool {
        switch self {
        case .connectFailed, .addressResolutionFailed, .timedOut, .transport:
            return true
        case .handshakeFailed(let failure):
            if failure == .timedOut || failure == .endOfStream { return true }
            return (failure.rejected?.head.status).map { $0 >= 500 } ?? false
        case .closed(let status):
            return status.isWorthReconnecting
        default:
            return false
        }
    }
}
