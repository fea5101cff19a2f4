// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// The loop's timers: a binary min-heap of (deadline, token).
///
/// Entries are not removed one by one. A connection whose deadline moves later leaves its entry,
/// which fires early and harmlessly (the connection finds nothing due and schedules again); one whose
/// deadline moves earlier adds an entry. So each live connection has a bounded number of entries,
/// and no operation needs to find one. A closed connection's entries would wait for their deadlines
/// (a handshake timeout, seconds away), so that a server closing thousands of connections a second
/// held hundreds of thousands of them: ``removeStale(isLive:)`` drops them all at once, which the loop
/// does when entries outnumber its sockets several times over.
struct DeadlineHeap {
    private var entries: [(deadline: Connection.Instant, token: UInt64)] = []

    /// How many entries there are.
    var count: Int { entries.count }

    /// Keeps only the entries whose token `isLive` (a socket still registered, a listener), and
    /// rebuilds the heap from them in linear time; the storage shrinks to what is left.
    mutating func removeStale(isLive: (UInt64) -> Bool) {
        var kept: [(deadline: Connection.Instant, token: UInt64)] = []
        kept.reserveCapacity(entries.count / 2)
        var index = 0
        while index < entries.count {
            if isLive(entries[index].token) { kept.append(entries[index]) }
            index += 1
        }
        entries = kept
        // Floyd's heap construction: sift down every parent, the last one first.
        var parent = entries.count / 2 - 1
        while parent >= 0 {
            siftDown(from: parent)
            parent -= 1
        }
    }

    // Indexed, not `first`: a debug build reads `first` through a generic accessor that allocates,
    // and the loop reads this every turn (the allocation test runs in a debug build).
    var earliest: Connection.Instant? { entries.isEmpty ? nil : entries[0].deadline }

    mutating func push(_ deadline: Connection.Instant, token: UInt64) {
        entries.append((deadline, token))
        // In the array's buffer: `swapAt` checked the array's uniqueness and both indices at every
        // level (a push and a sift-down cost a connection about 800 instructions). The indices stay
        // in range by the loops' conditions.
        entries.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].deadline < heap[parent].deadline else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }
    }

    /// Removes and returns the token of the earliest entry due at `now`, if any.
    mutating func popDue(now: Connection.Instant) -> UInt64? {
        guard !entries.isEmpty, entries[0].deadline <= now else { return nil }
        let first = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first.token }
        entries[0] = last
        siftDown(from: 0)
        return first.token
    }

    /// Moves the entry at `start` down until neither child is earlier.
    private mutating func siftDown(from start: Int) {
        entries.withUnsafeMutableBufferPointer { heap in
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { break }
                let right = left + 1
                let smaller = right < heap.count && heap[right].deadline < heap[left].deadline ? right : left
                guard heap[smaller].deadline < heap[parent].deadline else { break }
                heap.swapAt(parent, smaller)
                parent = smaller
            }
        }
    }
}
