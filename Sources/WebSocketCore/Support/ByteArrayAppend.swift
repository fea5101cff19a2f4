// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Array where Element == UInt8 {
    /// Appends `bytes` in one copy into the array's spare capacity (growing it if needed). The
    /// generic `append(contentsOf:)` of a raw buffer cost about 50 instructions besides the copy, per
    /// message an adapter hands out as an array.
    @inlinable
    package mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count > 0 else { return }
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            append(addingCapacity: count) { span in
                span.withUnsafeMutableBufferPointer { buffer, initialized in
                    if let source = bytes.baseAddress, let target = buffer.baseAddress {
                        UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: count)
                    }
                    initialized = count
                }
            }
            return
        }
        append(contentsOf: bytes)
    }

    /// Makes the array hold exactly `bytes`, reusing its storage: the bytes it has are overwritten,
    /// and only the difference in length is appended or removed. (Emptying it first would go
    /// through `replaceSubrange` even when the new bytes are as many as the old.)
    @inlinable
    package mutating func replaceAllBytes(with bytes: UnsafeRawBufferPointer) {
        if count > bytes.count { removeSubrange(bytes.count...) }
        let kept = count
        if kept > 0, let source = bytes.baseAddress {
            withUnsafeMutableBytes { target in
                target.baseAddress?.copyMemory(from: source, byteCount: kept)
            }
        }
        if bytes.count > kept { appendBytes(UnsafeRawBufferPointer(rebasing: bytes[kept...])) }
    }

    /// Makes the array hold `count` bytes, reusing its storage, and has `write` write every one of
    /// them: the bytes it has are overwritten, and only a longer array is grown (zero-filled first).
    @inlinable
    package mutating func overwriteAllBytes(count newCount: Int, _ write: (UnsafeMutableRawBufferPointer) -> Void) {
        if count > newCount {
            removeSubrange(newCount...)
        } else if count < newCount {
            append(contentsOf: repeatElement(0, count: newCount - count))
        }
        withUnsafeMutableBytes { write($0) }
    }
}
