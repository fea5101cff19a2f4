// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// CRC-32C (Castagnoli), the checksum a PROXY protocol version 2 header may carry in its CRC32C TLV,
/// "as described in RFC4960, Appendix B": the reflected polynomial 0x82F63B78, initial value and final
/// XOR 0xFFFFFFFF. Table-driven, one byte a step; a header is at most a few KiB, checked once.
///
/// RFC 4960 Appendix B: <https://www.rfc-editor.org/rfc/rfc4960#appendix-B>
struct CRC32C {
    /// For each byte value, the remainder it leaves after eight steps of the bitwise algorithm.
    private static let table: [UInt32] = (0...255).map { (index: UInt32) in
        var value = index
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1
        }
        return value
    }

    /// The running remainder, inverted.
    private var state: UInt32 = 0xFFFF_FFFF

    /// Adds bytes to the checksum.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                state = table[Int(truncatingIfNeeded: (state ^ UInt32(byte)) & 0xFF)] ^ (state >> 8)
            }
        }
    }

    /// The checksum of everything added.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32C()
        crc.update(bytes)
        return crc.value
    }
}
