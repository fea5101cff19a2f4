// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The 4-byte masking key of a frame (RFC 6455 §5.3), in wire order.
///
/// Payload byte `i` of a masked frame is XORed with key byte `i % 4`; masking and unmasking are the same
/// operation. Every payload byte a server receives, and every byte a client sends, goes through one of
/// the two loops here: in place (``apply(to:offset:)``: a client's frame in the output, payloads once
/// copied into a message, compressed ones where they lie in the input) or while copying
/// (``apply(from:to:offset:)``: a whole message straight out of the input). Both XOR 64 bytes a step as eight `UInt64`s (which the
/// optimizer turns into SIMD loads and stores), then 8 at a time: the key repeats every 4 bytes, so
/// rotated to the chunk's start offset and replicated, it lines up with every 4-byte step of the chunk,
/// whatever the chunk's address (loads and stores are unaligned).
struct MaskingKey: Sendable, Hashable {
    /// The key, b0 in the lowest byte (the numeric little-endian form; see ``pattern(offset:)``).
    private let packed: UInt32

    init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        packed = UInt32(b0) | UInt32(b1) << 8 | UInt32(b2) << 16 | UInt32(b3) << 24
    }

    /// Takes the key from the low 32 bits of a random value, b0 from the lowest byte. RFC 6455 §5.3 wants
    /// a fresh unpredictable key per frame; the caller supplies the randomness.
    init(random: UInt64) {
        packed = UInt32(truncatingIfNeeded: random)
    }

    /// The key bytes in wire order.
    var bytes: [UInt8] {
        [byte(0), byte(1), byte(2), byte(3)]
    }

    /// Appends the key bytes in wire order to a frame header being written. Byte by byte, with no
    /// array in between: every frame a client sends passes here, and appending ``bytes`` allocated
    /// (and freed) an array per frame even in a release build, about 375 instructions.
    func append(to output: inout [UInt8]) {
        output.append(byte(0))
        output.append(byte(1))
        output.append(byte(2))
        output.append(byte(3))
    }

    /// Stores the key bytes in wire order at `offset` of `buffer` (which must hold 4 bytes there).
    func store(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.storeBytes(of: packed.littleEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Key byte `index % 4`.
    @inline(__always)
    private func byte(_ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: packed &>> UInt32(truncatingIfNeeded: 8 &* (index & 3)))
    }

    /// XORs `buffer` in place with the key, as if its first byte were payload byte number `offset` of the
    /// frame: only `offset % 4` matters, so a frame can be unmasked in chunks as it arrives.
    ///
    /// Returns the offset for the next chunk of the same frame, `(offset + buffer.count) % 4`, always in
    /// `0...3` (computed without overflow for any `offset`, negative ones taken modulo 4 as well).
    @discardableResult
    func apply(to buffer: UnsafeMutableRawBufferPointer, offset: Int) -> Int {
        let phase = offset & 3
        let next = (phase &+ buffer.count) & 3
        guard let base = buffer.baseAddress else { return next }
        var count = buffer.count
        var p = base

        // The key as 8 bytes in memory order, starting at key byte `phase`.
        let wide = pattern(offset: phase)

        // 64 bytes per iteration, then 8: multiples of 4, so the pattern stays in phase. The 8 words of an
        // iteration are written as plain `UInt64` operations, which the optimizer turns into 4 SIMD
        // loads, XORs and stores (SSE2, NEON); `SIMD16`'s `^` would do the same when optimized, but is a
        // lane-by-lane loop in debug builds. The inner loop counts by hand: `stride(from:to:by:)`
        // compiles to the same code when optimized, but in a debug build looks up type metadata at
        // every step, which under ThreadSanitizer takes a lock every thread shares.
        while count >= 64 {
            var word = 0
            while word < 64 {
                p.storeBytes(of: p.loadUnaligned(fromByteOffset: word, as: UInt64.self) ^ wide,
                             toByteOffset: word, as: UInt64.self)
                word &+= 8
            }
            p += 64
            count -= 64
        }
        while count >= 8 {
            p.storeBytes(of: p.loadUnaligned(as: UInt64.self) ^ wide, as: UInt64.self)
            p += 8
            count -= 8
        }
        // At most 7 bytes left, starting in phase again (8 is a multiple of 4).
        var i = 0
        while i < count {
            p.storeBytes(of: p.load(fromByteOffset: i, as: UInt8.self) ^ byte(phase &+ i), toByteOffset: i, as: UInt8.self)
            i += 1
        }
        return next
    }

    /// Writes `source` XOR the key into `destination` (which must hold at least `source.count` bytes,
    /// and be either `source` itself or apart from it): unmasking and copying in one pass, as if
    /// `source` started at payload byte number `offset`. Returns the offset for the next chunk,
    /// `(offset + source.count) % 4`.
    ///
    /// (This loop and the in-place one above stay separate: routing the in-place case through this one,
    /// with the same buffer on both sides, measured 20-40% slower on 1 MiB.)
    @discardableResult
    func apply(from source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer, offset: Int) -> Int {
        applyInlined(from: source, to: destination, offset: offset)
    }

    /// ``apply(from:to:offset:)`` inlined where it is called: by the short pull, which copies each
    /// whole binary message at offset 0, where the call and the phase's arithmetic cost about 20
    /// instructions per message.
    @inline(__always)
    @discardableResult
    func applyInlined(from source: UnsafeRawBufferPointer, to destination: UnsafeMutableRawBufferPointer, offset: Int) -> Int {
        precondition(destination.count >= source.count, "masking destination too small")
        let phase = offset & 3
        let next = (phase &+ source.count) & 3
        guard let from = source.baseAddress, let to = destination.baseAddress else { return next }
        var count = source.count
        var src = from
        var dst = to
        let wide = pattern(offset: phase)
        while count >= 64 {
            // The eight words are all loaded before any is stored: stored one by one after its load,
            // they had to stay eight scalar steps (a store may change a later load, for all the
            // optimizer knows); in this order they go as four SIMD loads, XORs and stores. The same
            // result, as the two buffers are the same or apart.
            let w0 = src.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            let w1 = src.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let w2 = src.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            let w3 = src.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            let w4 = src.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
            let w5 = src.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
            let w6 = src.loadUnaligned(fromByteOffset: 48, as: UInt64.self)
            let w7 = src.loadUnaligned(fromByteOffset: 56, as: UInt64.self)
            dst.storeBytes(of: w0 ^ wide, toByteOffset: 0, as: UInt64.self)
            dst.storeBytes(of: w1 ^ wide, toByteOffset: 8, as: UInt64.self)
            dst.storeBytes(of: w2 ^ wide, toByteOffset: 16, as: UInt64.self)
            dst.storeBytes(of: w3 ^ wide, toByteOffset: 24, as: UInt64.self)
            dst.storeBytes(of: w4 ^ wide, toByteOffset: 32, as: UInt64.self)
            dst.storeBytes(of: w5 ^ wide, toByteOffset: 40, as: UInt64.self)
            dst.storeBytes(of: w6 ^ wide, toByteOffset: 48, as: UInt64.self)
            dst.storeBytes(of: w7 ^ wide, toByteOffset: 56, as: UInt64.self)
            src += 64
            dst += 64
            count -= 64
        }
        while count >= 8 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self) ^ wide, as: UInt64.self)
            src += 8
            dst += 8
            count -= 8
        }
        var i = 0
        while i < count {
            dst.storeBytes(of: src.load(fromByteOffset: i, as: UInt8.self) ^ byte(phase &+ i), toByteOffset: i, as: UInt8.self)
            i += 1
        }
        return next
    }

    /// Applies the key to `array[range]` in place, as if `array[range.lowerBound]` were payload byte
    /// number `offset` of the frame. The range is clamped to the array's indices, so no range can trap.
    /// Returns the offset for the next chunk, `(offset + masked byte count) % 4`.
    @discardableResult
    func apply(to array: inout [UInt8], range: Range<Int>, offset: Int) -> Int {
        let lower = min(max(range.lowerBound, 0), array.count)
        let upper = min(max(range.upperBound, lower), array.count)
        return array.withUnsafeMutableBytes { all in
            apply(to: UnsafeMutableRawBufferPointer(rebasing: all[lower..<upper]), offset: offset)
        }
    }

    /// The key rotated to start at key byte `offset % 4` and repeated twice, as a native `UInt64` whose
    /// bytes in memory are the key bytes in payload order (independent of the platform's byte order).
    @inline(__always)
    private func pattern(offset: Int) -> UInt64 {
        let rotation = UInt32(truncatingIfNeeded: 8 &* (offset & 3))
        // Rotating right moves key byte `offset` to the lowest (first in little-endian memory) place.
        let rotated = (packed &>> rotation) | (packed &<< (32 &- rotation))
        return UInt64(littleEndian: UInt64(rotated) | UInt64(rotated) << 32)
    }
}
