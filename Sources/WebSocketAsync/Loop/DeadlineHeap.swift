// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// The loop's timers: a binary min-heap of (deadline, token).
///
/// Entries are never removed early. A connection whose deadline moves later leaves its entry, which
/// fires early and harmlessly (the connection finds nothing due and schedules again); one whose
/// deadline moves earlier adds an entry. So each connection has a bounded number of entries, and no
/// operation needs to find one.
struct DeadlineHeap {
    private var entries: [(deadline: Connection.Instant, token: UInt64)] = []

    // Indexed, not `first`: a debug build reads `first` through a generic accessor that allocates,
    // and the loop reads this every turn (the allocation test runs in a debug build).
    var earliest: Connection.Instant? { entries.isEmpty ? nil : entries[0].deadline }

    mutating func push(_ deadline: Connection.Instant, token: UInt64) {
        entries.append((deadline, token))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the token of the earliest entry due at `now`, if any.
    mutating func popDue(now: Connection.Instant) -> UInt64? {
        guard !entries.isEmpty, entries[0].deadline <= now else { return nil }
        let first = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first.token }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { break }
            let right = left + 1
            let smaller = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[smaller].deadline < entries[parent].deadline else { break }
            entries.swapAt(parent, smaller)
            parent = smaller
        }
        return first.token
    }
}
