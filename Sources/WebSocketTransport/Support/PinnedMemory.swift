// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for a value that must not move (a mutex, an atomic word), from the C library's `malloc`.
///
/// `UnsafeMutablePointer.allocate(capacity:)` asks the Swift runtime for "the default alignment",
/// which the runtime on Linux serves with `posix_memalign`: about 190 instructions a call where
/// `malloc` takes about 60, and every accepted connection made four such allocations (its socket's
/// open flag, its lock's mutex, two atomics of its `WebSocket`). `malloc` aligns to 16 bytes on
/// every platform this builds for, which every type allocated here needs at most.
package enum PinnedMemory {
    /// Uninitialized memory for `count` values of `type`; free it with ``deallocate(_:)``, never with
    /// the pointer's own `deallocate()`.
    package static func allocate<T>(_ type: T.Type, count: Int = 1) -> UnsafeMutablePointer<T> {
        precondition(MemoryLayout<T>.alignment <= 16 && count > 0, "PinnedMemory: alignment above 16, or no value")
        guard let raw = malloc(MemoryLayout<T>.stride * count) else { fatalError("PinnedMemory: out of memory") }
        return raw.bindMemory(to: T.self, capacity: count)
    }

    /// Uninitialized memory of `byteCount` bytes (at least one), aligned to 16; free it with
    /// ``deallocate(_:)``.
    package static func allocateBytes(_ byteCount: Int) -> UnsafeMutableRawPointer {
        precondition(byteCount > 0, "PinnedMemory: no bytes")
        guard let raw = malloc(byteCount) else { fatalError("PinnedMemory: out of memory") }
        return raw
    }

    /// Frees memory from ``allocate(_:count:)`` or ``allocateBytes(_:)`` (its values deinitialized first, where they need it).
    package static func deallocate<T>(_ pointer: UnsafeMutablePointer<T>) {
        free(UnsafeMutableRawPointer(pointer))
    }
}
