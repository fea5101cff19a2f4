// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Tests on the eight bytes of a word at once (SWAR), for the scans of an opening handshake's
/// head: which bytes fall in a range.
enum ByteWords {
    /// One in every byte.
    static let ones: UInt64 = 0x0101_0101_0101_0101
    /// The high bit of every byte.
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that lies in `lo...hi`, and no other bit; every byte of
    /// `word` must be below 0x80 (clear the high bits first, and the answer's for the bytes that
    /// had them), and `lo` at least 1.
    ///
    /// For a byte `x` below 0x80, `x + (0x80 - lo)` has its high bit set exactly when `x >= lo`,
    /// and `x + (0x7F - hi)` exactly when `x > hi`; neither sum passes 0xFF, so no carry crosses
    /// into the next byte, and each byte's answer is exact (unlike the zero tests of
    /// ``HTTPTokens/lineBreak(in:from:)``, exact only up to the first hit).
    @inline(__always)
    static func inRange(_ word: UInt64, _ lo: UInt8, _ hi: UInt8) -> UInt64 {
        (word &+ ones &* UInt64(0x80 &- lo)) & ~(word &+ ones &* UInt64(0x7F &- hi)) & highs
    }
}
