// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CWebSocketSystem

/// The bytes of published messages on their way to a server's loops from other threads, bounded by
/// ``TransportOptions/maxPublishBacklog``: a publish reserves its bytes (once per loop it goes to)
/// before it is queued, and each loop releases them once it has delivered the message.
///
/// Invariant: the count is the sum of the reservations not yet released, and a reservation that
/// would take it past ``limit`` is undone at once and refused.
///
/// `@unchecked Sendable`: the count is read and written through atomics only.
final class PublishBacklog: @unchecked Sendable {
    private let bytes: UnsafeMutablePointer<Int>
    /// The most bytes reserved at once.
    let limit: Int

    init(limit: Int) {
        bytes = .allocate(capacity: 1)
        bytes.initialize(to: 0)
        self.limit = max(0, limit)
    }

    deinit {
        bytes.deallocate()
    }

    /// Reserves `count` bytes; `false`, reserving nothing, when that would pass ``limit``.
    func reserve(_ count: Int) -> Bool {
        guard count > 0 else { return true }
        guard count <= limit else { return false }
        if cwebsocket_atomic_add_long(bytes, count) > limit {
            _ = cwebsocket_atomic_add_long(bytes, -count)
            return false
        }
        return true
    }

    /// Gives back `count` bytes reserved before.
    func release(_ count: Int) {
        _ = cwebsocket_atomic_add_long(bytes, -count)
    }

    /// The bytes reserved now.
    var reserved: Int { cwebsocket_atomic_load_long(bytes) }
}
