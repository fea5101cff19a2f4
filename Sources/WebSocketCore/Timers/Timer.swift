// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A deadline that is off, waiting for the next time report, or armed.
enum Timer: Sendable, Hashable {
    case off
    case pending(Duration)
    case armed(Connection.Instant)

    var isPending: Bool {
        if case .pending = self { return true }
        return false
    }

    var deadline: Connection.Instant? {
        if case .armed(let instant) = self { return instant }
        return nil
    }

    /// When the caller must report the time for this timer: its deadline once armed, `now` (the
    /// last time reported: at once) while it waits for a report.
    @inline(__always)
    func due(pendingAt now: Connection.Instant) -> Connection.Instant? {
        switch self {
        case .off: return nil
        case .pending: return now
        case .armed(let instant): return instant
        }
    }

    /// A pending timer starts at the next reported time.
    mutating func arm(at now: Connection.Instant) {
        if case .pending(let duration) = self { self = .armed(now + duration) }
    }

    func hasExpired(at now: Connection.Instant) -> Bool {
        if case .armed(let instant) = self { return instant <= now }
        return false
    }
}
