// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Reads a fuzz input front to back. Reads past the end give zeros (or fewer bytes), so that every
/// input, however short, is a valid script: libFuzzer's mutations never hit a parse error of the
/// harness itself.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var index = 0

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { index >= bytes.count }
    public var remainingCount: Int { max(0, bytes.count - index) }

    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Two bytes, big-endian.
    public mutating func uint16() -> UInt16 {
        UInt16(byte()) << 8 | UInt16(byte())
    }

    /// Up to `count` bytes (fewer at the end of the input).
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + max(0, count))
        defer { index = end }
        return index < end ? Array(bytes[index..<end]) : []
    }

    /// The same, as a slice of the input: no copy, for a consumer that takes any collection.
    public mutating func takeSlice(_ count: Int) -> ArraySlice<UInt8> {
        let start = min(bytes.count, index)
        let end = min(bytes.count, index + max(0, count))
        defer { index = max(index, end) }
        return bytes[start..<max(start, end)]
    }

    /// Every byte left.
    public mutating func rest() -> [UInt8] {
        take(remainingCount)
    }
}
