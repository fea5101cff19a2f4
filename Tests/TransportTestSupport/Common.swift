// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

/// The monotonic clock the socket layer uses.
package func now() -> Connection.Instant { SystemCalls.live.monotonicNow() }

/// A value handed from one thread to another, waited for with a timeout.
package final class Mailbox<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    package init() {}
    package func put(_ newValue: Value) {
        value.withLock { $0 = newValue }
        value.broadcast()
    }
    /// The value, once put; `nil` after `timeout`.
    package func take(timeout: Duration = .seconds(60)) -> Value? {
        guard value.wait(until: { $0 != nil }, deadline: now() + timeout, now: now) else { return nil }
        return value.withLock { $0 }
    }
}

/// Bytes of a deterministic pattern.
///
/// Written into the array's buffer by a plain loop: `(0..<count).map` runs the generic `Collection`
/// code in a debug build, which looks up type metadata for every byte; under ThreadSanitizer such a
/// lookup takes a lock of the Swift runtime that every thread shares (see ``TestThreads``), so that
/// making megabytes of it held up every other thread, the event loops included (25 times slower
/// than this loop on one thread alone, far more with several).
package func pattern(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var index = 0
        while index < count {
            buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed))
            index += 1
        }
        initialized = count
    }
}


/// Raises the soft descriptor limit to the hard one (at most `wanted`), for tests with many sockets.
package func raiseDescriptorLimit(to wanted: Int = 16_384) {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return }
    let target = min(limit.rlim_max, rlim_t(wanted))
    if limit.rlim_cur < target {
        limit.rlim_cur = target
        _ = setrlimit(resource, &limit)
    }
}
