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
    /// The block being filled: its first `blockCount` bytes. Kept in the value itself, 64 bytes as
    /// eight words: an array here was one of the allocations of every opening handshake (a block
    /// appended to byte by byte, and an 80-word schedule allocated per block, had made SHA-1 about
    /// a tenth of a server's user-space cost per handshake).
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockCount = 0
    private var byteCount: UInt64 = 0

    /// The size of a digest in bytes.
    static let digestSize = 20

    /// RFC 3174 §5's `K(t)`: one constant for each twenty rounds, read by both round functions.
    private static let k: (UInt32, UInt32, UInt32, UInt32) = (0x5A82_7999, 0x6ED9_EBA1, 0x8F1B_BCDC, 0xCA62_C1D6)

    init() {}

    mutating func update(_ bytes: some Sequence<UInt8>) {
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if contiguous != nil { return }
        for byte in bytes { withUnsafeBytes(of: byte) { update($0) } }
    }

    /// Appends contiguous bytes, a block's worth at a time.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let taken = min(64 - blockCount, bytes.count - offset)
            let start = blockCount
            withUnsafeMutableBytes(of: &block) { target in
                UnsafeMutableRawBufferPointer(rebasing: target[start..<(start + taken)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + taken)]))
            }
            blockCount += taken
            offset += taken
            byteCount &+= UInt64(taken)
            if blockCount == 64 { processBlock() }
        }
    }

    /// Pads the message (RFC 3174 §4) and writes the 20-byte digest into `digest`, which must hold
    /// ``digestSize`` bytes.
    mutating func finalize(into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count >= Self.digestSize, "SHA-1 digest buffer too small")
        let bitLength = byteCount &* 8
        let count = blockCount
        // The 0x80 byte, then zeros to the block's end; the length goes in the last 8 bytes of this
        // block when they are free, else of one more block of zeros.
        withUnsafeMutableBytes(of: &block) { bytes in
            bytes[count] = 0x80
            UnsafeMutableRawBufferPointer(rebasing: bytes[(count + 1)...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        if count >= 56 {
            processBlock()
            block = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        if byteCount == 60 {
            // The accept value's message: its last block is the same for every key.
            Self.sixtyByteTail.withUnsafeBufferPointer { scheduled in
                guard let words = scheduled.baseAddress else { return }
                let (a, b, c, d, e) = Self.rounds(scheduled: words, (h0, h1, h2, h3, h4))
                h0 &+= a
                h1 &+= b
                h2 &+= c
                h3 &+= d
                h4 &+= e
            }
        } else {
            block.7 = bitLength.bigEndian
            processBlock()
        }
        digest.storeBytes(of: h0.bigEndian, toByteOffset: 0, as: UInt32.self)
        digest.storeBytes(of: h1.bigEndian, toByteOffset: 4, as: UInt32.self)
        digest.storeBytes(of: h2.bigEndian, toByteOffset: 8, as: UInt32.self)
        digest.storeBytes(of: h3.bigEndian, toByteOffset: 12, as: UInt32.self)
        digest.storeBytes(of: h4.bigEndian, toByteOffset: 16, as: UInt32.self)
    }

    mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.digestSize) { buffer, count in
            finalize(into: UnsafeMutableRawBufferPointer(buffer))
            count = Self.digestSize
        }
    }

    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finalize()
    }

    /// The last block of a 60-byte message, the accept value's (a 24-character key and the
    /// 36-character GUID, RFC 6455 §4.2.2): 56 zero bytes and the length, 480 bits, the same for
    /// every key. Its 80 schedule words, each with its round's constant added, are computed once:
    /// the block's 80 rounds then take one word each, with no schedule (about 930 instructions
    /// fewer per opening handshake, on either side).
    private static let sixtyByteTail: [UInt32] = {
        var sha = SHA1()
        sha.block.7 = UInt64(60 * 8).bigEndian
        var words = [UInt32](repeating: 0, count: 80)
        withUnsafeBytes(of: sha.block) { bytes in
            for t in 0..<16 { words[t] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
        }
        for t in 16..<80 { words[t] = (words[t - 3] ^ words[t - 8] ^ words[t - 14] ^ words[t - 16]).rotatedLeft(by: 1) }
        let constants = [k.0, k.1, k.2, k.3]
        for t in 0..<80 { words[t] &+= constants[t / 20] }
        return words
    }()

    /// The 80 rounds over a block whose schedule, constants added, is `scheduled` (80 words), from
    /// the state `h`; returns the working variables at the end. The rounds of ``rounds(_:_:_:)``,
    /// their words read instead of computed.
    private static func rounds(scheduled w: UnsafePointer<UInt32>,
                               _ h: (UInt32, UInt32, UInt32, UInt32, UInt32)) -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        var (a, b, c, d, e) = h
        @inline(__always)
        func round(_ a: UInt32, _ b: inout UInt32, _ e: inout UInt32, _ f: UInt32, _ word: UInt32) {
            e = a.rotatedLeft(by: 5) &+ f &+ e &+ word
            b = b.rotatedLeft(by: 30)
        }
        var t = 0
        while t < 20 {
            round(a, &b, &e, d ^ (b & (c ^ d)), w[t])
            round(e, &a, &d, c ^ (a & (b ^ c)), w[t &+ 1])
            round(d, &e, &c, b ^ (e & (a ^ b)), w[t &+ 2])
            round(c, &d, &b, a ^ (d & (e ^ a)), w[t &+ 3])
            round(b, &c, &a, e ^ (c & (d ^ e)), w[t &+ 4])
            t &+= 5
        }
        /// Twenty rounds from `t` with the parity function (20 to 39, 60 to 79).
        @inline(__always)
        func parityStage() {
            let end = t &+ 20
            while t < end {
                round(a, &b, &e, b ^ c ^ d, w[t])
                round(e, &a, &d, a ^ b ^ c, w[t &+ 1])
                round(d, &e, &c, e ^ a ^ b, w[t &+ 2])
                round(c, &d, &b, d ^ e ^ a, w[t &+ 3])
                round(b, &c, &a, c ^ d ^ e, w[t &+ 4])
                t &+= 5
            }
        }
        parityStage()
        while t < 60 {
            round(a, &b, &e, (b & c) | (d & (b | c)), w[t])
            round(e, &a, &d, (a & b) | (c & (a | b)), w[t &+ 1])
            round(d, &e, &c, (e & a) | (b & (e | a)), w[t &+ 2])
            round(c, &d, &b, (d & e) | (a & (d | e)), w[t &+ 3])
            round(b, &c, &a, (c & d) | (e & (c | d)), w[t &+ 4])
            t &+= 5
        }
        parityStage()
        return (a, b, c, d, e)
    }

    /// Hashes the full block and empties it. The schedule is 16 words on the stack, each of the
    /// later words computed in place of the one 16 rounds back (RFC 3174 §7, method 2).
    private mutating func processBlock() {
        let (a, b, c, d, e) = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { w in
            withUnsafeBytes(of: block) { bytes in
                Self.rounds(bytes, w, (h0, h1, h2, h3, h4))
            }
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
        blockCount = 0
    }

    /// The 80 rounds over one block, from the state `h`; returns the working variables at the end.
    /// (Local variables, not captured ones: captured by the closures above, they lived in memory.)
    ///
    /// Five rounds a step, the variables renamed from one round to the next instead of shifted
    /// along (round `t + 1`'s `a, b, c, d, e` are round `t`'s `temp, a, b, c, d`): the five moves a
    /// round made, and the loop's count, were a third of the block's cost. The block's 16 words are
    /// loaded first; the schedule then overwrites them in place.
    @inline(__always)
    private static func rounds(_ bytes: UnsafeRawBufferPointer, _ w: UnsafeMutableBufferPointer<UInt32>,
                               _ h: (UInt32, UInt32, UInt32, UInt32, UInt32)) -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        // A pointer, not the buffer: the buffer's subscript checks its bounds even when optimized.
        guard let w = w.baseAddress else { return h }
        var (a, b, c, d, e) = h
        var t = 0
        while t < 16 {
            w[t] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4 &* t, as: UInt32.self))
            t &+= 1
        }
        /// The word of round `t` ≥ 16, computed in place of the one 16 rounds back (RFC 3174 §7,
        /// method 2).
        @inline(__always)
        func schedule(_ t: Int) -> UInt32 {
            let word = (w[(t &+ 13) & 15] ^ w[(t &+ 8) & 15] ^ w[(t &+ 2) & 15] ^ w[t & 15]).rotatedLeft(by: 1)
            w[t & 15] = word
            return word
        }
        /// One round, written as RFC 3174 §6.1 step d once the names have moved: the new `a` is
        /// stored in `e`, and `b` becomes `S^30(b)`.
        @inline(__always)
        func round(_ a: UInt32, _ b: inout UInt32, _ e: inout UInt32, _ f: UInt32, _ k: UInt32, _ word: UInt32) {
            e = a.rotatedLeft(by: 5) &+ f &+ e &+ word &+ k
            b = b.rotatedLeft(by: 30)
        }
        // The three functions of RFC 3174 §5, in forms with fewer operations: f(0..19) as
        // d ^ (b & (c ^ d)), f(40..59) as (b & c) | (d & (b | c)). The first 15 rounds read the
        // block's words, the 16th too, and from the 17th on every word is scheduled: each loop
        // knows which, with no test per round.
        let k1 = k.0
        t = 0
        while t < 15 {
            round(a, &b, &e, d ^ (b & (c ^ d)), k1, w[t])
            round(e, &a, &d, c ^ (a & (b ^ c)), k1, w[t &+ 1])
            round(d, &e, &c, b ^ (e & (a ^ b)), k1, w[t &+ 2])
            round(c, &d, &b, a ^ (d & (e ^ a)), k1, w[t &+ 3])
            round(b, &c, &a, e ^ (c & (d ^ e)), k1, w[t &+ 4])
            t &+= 5
        }
        round(a, &b, &e, d ^ (b & (c ^ d)), k1, w[15])
        round(e, &a, &d, c ^ (a & (b ^ c)), k1, schedule(16))
        round(d, &e, &c, b ^ (e & (a ^ b)), k1, schedule(17))
        round(c, &d, &b, a ^ (d & (e ^ a)), k1, schedule(18))
        round(b, &c, &a, e ^ (c & (d ^ e)), k1, schedule(19))
        /// Twenty rounds from `t` with the parity function: rounds 20 to 39 and 60 to 79, which
        /// differ only in `k`.
        @inline(__always)
        func parityStage(_ k: UInt32) {
            let end = t &+ 20
            while t < end {
                round(a, &b, &e, b ^ c ^ d, k, schedule(t))
                round(e, &a, &d, a ^ b ^ c, k, schedule(t &+ 1))
                round(d, &e, &c, e ^ a ^ b, k, schedule(t &+ 2))
                round(c, &d, &b, d ^ e ^ a, k, schedule(t &+ 3))
                round(b, &c, &a, c ^ d ^ e, k, schedule(t &+ 4))
                t &+= 5
            }
        }
        t = 20
        parityStage(k.1)
        while t < 60 {
            round(a, &b, &e, (b & c) | (d & (b | c)), k.2, schedule(t))
            round(e, &a, &d, (a & b) | (c & (a | b)), k.2, schedule(t &+ 1))
            round(d, &e, &c, (e & a) | (b & (e | a)), k.2, schedule(t &+ 2))
            round(c, &d, &b, (d & e) | (a & (d | e)), k.2, schedule(t &+ 3))
            round(b, &c, &a, (c & d) | (e & (c | d)), k.2, schedule(t &+ 4))
            t &+= 5
        }
        parityStage(k.3)
        return (a, b, c, d, e)
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedLeft(by n: UInt32) -> UInt32 { (self &<< n) | (self &>> (32 &- n)) }
}
