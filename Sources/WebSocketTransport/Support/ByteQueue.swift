// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A FIFO of bytes (the tunnel layers' input and output, a Redis connection's output): appends at the end, takes from the front
/// without moving the rest (the consumed prefix is dropped once it is most of the buffer), so that
/// every byte is copied in and out once, whatever the sizes of the pieces.
package struct ByteQueue: Sendable {
    private var storage: [UInt8] = []
    private var start = 0

    /// An empty queue.
    package init() {}

    /// The bytes queued.
    package var count: Int { storage.count - start }

    package var isEmpty: Bool { start == storage.count }

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfWorthIt()
        storage.append(contentsOf: bytes)
    }

    package mutating func append(_ bytes: [UInt8]) {
        compactIfWorthIt()
        storage.append(contentsOf: bytes)
    }

    package mutating func append(contentsOf other: ByteQueue) {
        compactIfWorthIt()
        storage.append(contentsOf: other.storage[other.start...])
    }

    /// Moves up to `buffer.count` bytes from the front into `buffer`; returns how many.
    package mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, self.count)
        guard count > 0 else { return 0 }
        storage.withUnsafeBytes { raw in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)]))
        }
        removeFirst(count)
        return count
    }

    /// Lends the queued bytes to `write`, which returns how many of them it took; those are removed.
    package mutating func withBytes(_ write: (UnsafeRawBufferPointer) -> Int) {
        guard !isEmpty else { return }
        let taken = storage.withUnsafeBytes { raw in write(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        precondition(taken >= 0 && taken <= count, "took \(taken) of \(count) bytes")
        removeFirst(taken)
    }

    package mutating func removeAll() {
        storage = []
        start = 0
    }

    private mutating func removeFirst(_ count: Int) {
        start += count
        if start == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 64 << 10)
            start = 0
        }
    }

    /// Drops the consumed prefix when it is at least half the buffer, so that appends never grow the
    /// storage past twice what is queued (amortized: each byte moves at most once more).
    private mutating func compactIfWorthIt() {
        guard start > 0, start >= storage.count - start else { return }
        storage.removeFirst(start)
        start = 0
    }
}
