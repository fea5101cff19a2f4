// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// SHA-1 (RFC 3174), only for computing `Sec-WebSocket-Accept`.
///
/// SHA-1 is broken as a collision-resistant hash; RFC 6455 uses it only to prove that the server read
/// the client's key, which needs no collision resistance. Written here so that the core depends on the
/// standard library alone.
struct SHA1 {
    private var h0: UInt32 = 0x6745_2301
    private var h1: UInt32 = 0xEFCD_AB89
    private var h2: UInt32 = 0x98BA_DCFE
    private var h3: UInt32 = 0x1032_5476
    private var h4: UInt32 = 0xC3D2_E1F0
    /// Bytes of the current, not yet processed 64-byte block.
    private var block: [UInt8] = []
    /// Total message length in bytes; SHA-1 defines the length modulo 2^64 bits.
    private var byteCount: UInt64 = 0

    init() { block.reserveCapacity(64) }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            block.append(byte)
            byteCount &+= 1
            if block.count == 64 {
                processBlock()
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Pads the message (RFC 3174 §4) and returns the 20-byte digest.
    mutating func finalize() -> [UInt8] {
        let bitLength = byteCount &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            processBlock()
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        processBlock()
        block.removeAll(keepingCapacity: true)
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [h0, h1, h2, h3, h4] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    private mutating func processBlock() {
        var w = [UInt32](repeating: 0, count: 80)
        for t in 0..<16 {
            w[t] = UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16
                | UInt32(block[4 * t + 2]) << 8 | UInt32(block[4 * t + 3])
        }
        for t in 16..<80 {
            w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotatedLeft(by: 1)
        }
        var a = h0, b = h1, c = h2, d = h3, e = h4
        for t in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch t {
            case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
            case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
            case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
            default: f = b ^ c ^ d; k = 0xCA62_C1D6
            }
            let temp = a.rotatedLeft(by: 5) &+ f &+ e &+ w[t] &+ k
            e = d
            d = c
            c = b.rotatedLeft(by: 30)
            b = a
            a = temp
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedLeft(by n: UInt32) -> UInt32 { (self << n) | (self >> (32 - n)) }
}
