// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Large byte arrays for the inputs, built with `memcpy`: the harness is compiled with the same
/// coverage instrumentation as the library, so a generic element-wise copy (`joined()`,
/// `append(contentsOf:)` of a lazy sequence) pays a tracing call per byte.
enum Bytes {
    /// `unit` repeated `copies` times, by doubling what is already written.
    static func repeated(_ unit: [UInt8], copies: Int) -> [UInt8] {
        guard copies > 1, !unit.isEmpty else { return unit }
        return repeated(unit, count: unit.count * copies)
    }

    /// The first `count` bytes of `unit` repeated without end.
    static func repeated(_ unit: [UInt8], count: Int) -> [UInt8] {
        repeated(unit[...], count: count)
    }

    /// The same, from a slice (a window of a longer pattern, without copying it out first).
    static func repeated(_ unit: ArraySlice<UInt8>, count: Int) -> [UInt8] {
        guard count > 0, !unit.isEmpty else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            fill(UnsafeMutableRawPointer(base), count: count, unit: unit)
            initialized = count
        }
    }

    /// `count` bytes at `base`: `unit` repeated, by doubling what is already written.
    static func fill(_ base: UnsafeMutableRawPointer, count: Int, unit: ArraySlice<UInt8>) {
        unit.withUnsafeBufferPointer { source in
            _ = memcpy(base, source.baseAddress!, min(unit.count, count))
        }
        var filled = min(unit.count, count)
        while filled < count {
            let step = min(filled, count - filled)
            _ = memcpy(base + filled, base, step)
            filled += step
        }
    }

    /// `count` copies of `byte`, as a string (ASCII: one allocation, no UTF-8 repair pass).
    static func asciiString(_ byte: UInt8, count: Int) -> String {
        precondition(byte < 0x80)
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            _ = memset(buffer.baseAddress!, Int32(byte), count)
            return count
        }
    }

    /// The arrays one after the other.
    static func joined(_ pieces: [[UInt8]]) -> [UInt8] {
        let count = pieces.reduce(0) { $0 + $1.count }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            for piece in pieces where !piece.isEmpty {
                piece.withUnsafeBufferPointer { source in _ = memcpy(buffer.baseAddress! + offset, source.baseAddress!, piece.count) }
                offset += piece.count
            }
            initialized = count
        }
    }

    /// The bytes in an array.
    static func copy(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, initialized in
            if let source = bytes.baseAddress, bytes.count > 0 { _ = memcpy(buffer.baseAddress!, source, bytes.count) }
            initialized = bytes.count
        }
    }
}
