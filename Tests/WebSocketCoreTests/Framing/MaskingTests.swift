// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Masking (RFC 6455 §5.3)")
struct MaskingTests {
    /// Payload byte `i` XOR key byte `(offset + i) % 4`, one byte at a time: the definition in §5.3.
    static func referenceMask(_ bytes: [UInt8], key: [UInt8], offset: Int) -> [UInt8] {
        bytes.enumerated().map { i, byte in byte ^ key[(offset + i) % 4] }
    }

    /// The first index where two buffers differ, or `nil` if they are equal. (Comparing long arrays
    /// inside `#expect` would make a failure compute a collection difference, quadratic in the length.)
    static func firstMismatch(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        if a.count != b.count { return min(a.count, b.count) }
        return a.indices.first { a[$0] != b[$0] }
    }

    static func randomBytes(_ count: Int, _ rng: inout Connection.SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    @Test("RFC 6455 §5.7: \"Hello\" masked with 37 fa 21 3d")
    func rfcExample() {
        let key = MaskingKey(0x37, 0xFA, 0x21, 0x3D)
        var bytes = Array("Hello".utf8)
        let next = key.apply(to: &bytes, range: 0..<5, offset: 0)
        #expect(bytes == [0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(next == 1)
        // Unmasking is the same operation.
        key.apply(to: &bytes, range: 0..<5, offset: 0)
        #expect(bytes == Array("Hello".utf8))
    }

    @Test("key bytes in wire order, from explicit bytes and from a random value's low 32 bits")
    func keyBytes() {
        #expect(MaskingKey(0x37, 0xFA, 0x21, 0x3D).bytes == [0x37, 0xFA, 0x21, 0x3D])
        let fromRandom = MaskingKey(random: 0xDEAD_BEEF_3D21_FA37)
        #expect(fromRandom.bytes == [0x37, 0xFA, 0x21, 0x3D])
        #expect(fromRandom == MaskingKey(0x37, 0xFA, 0x21, 0x3D))
        // What a frame header gets: the same bytes, after what is already there.
        var header: [UInt8] = [0x82, 0x85]
        fromRandom.append(to: &header)
        #expect(header == [0x82, 0x85, 0x37, 0xFA, 0x21, 0x3D])
        #expect(MaskingKey(random: 0x0403_0201) != MaskingKey(random: 0x0102_0304))
    }

    @Test("every length 0...80 at every key offset 0...7 and buffer alignment 0...7 matches the byte loop")
    func lengthsOffsetsAlignments() {
        var rng = Connection.SeededGenerator(seed: 0x3A5C)
        let key = MaskingKey(0x9A, 0x01, 0xFF, 0x5C)
        var failures: [String] = []
        for length in 0...80 {
            let payload = Self.randomBytes(length, &rng)
            for offset in 0...7 {
                let expected = Self.referenceMask(payload, key: key.bytes, offset: offset)
                for alignment in 0...7 {
                    // Guard bytes around the payload must stay untouched.
                    var storage = [UInt8](repeating: 0xEE, count: length + 16)
                    storage.replaceSubrange(alignment..<(alignment + length), with: payload)
                    let next = storage.withUnsafeMutableBytes { raw in
                        key.apply(to: UnsafeMutableRawBufferPointer(rebasing: raw[alignment..<(alignment + length)]),
                                  offset: offset)
                    }
                    let guardsIntact = storage[..<alignment].allSatisfy { $0 == 0xEE }
                        && storage[(alignment + length)...].allSatisfy { $0 == 0xEE }
                    if Array(storage[alignment..<(alignment + length)]) != expected || !guardsIntact
                        || next != (offset + length) % 4 {
                        failures.append("length \(length) offset \(offset) alignment \(alignment)")
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    @Test("chunks of a frame masked with the returned offsets equal the whole frame masked at once")
    func chunkedOffsets() {
        var rng = Connection.SeededGenerator(seed: 0xC4A1)
        for _ in 0..<40 {
            let key = MaskingKey(random: rng.next())
            let length = Int.random(in: 1_000...70_000, using: &rng)
            let payload = Self.randomBytes(length, &rng)
            var whole = payload
            key.apply(to: &whole, range: 0..<length, offset: 0)
            #expect(Self.firstMismatch(whole, Self.referenceMask(payload, key: key.bytes, offset: 0)) == nil)

            var chunked = payload
            var offset = 0
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 0...(Bool.random(using: &rng) ? 9 : 3_000), using: &rng))
                offset = key.apply(to: &chunked, range: start..<end, offset: offset)
                #expect((0...3).contains(offset))
                start = end
            }
            #expect(Self.firstMismatch(chunked, whole) == nil)
        }
    }

    @Test("masking twice restores the input, whatever the offset")
    func involution() {
        var rng = Connection.SeededGenerator(seed: 0x1DE0)
        for offset in [0, 1, 2, 3, 5, 1_000_003, -1] {
            let key = MaskingKey(random: rng.next() | 0x0101_0101) // No zero key byte: masking changes every byte.
            let payload = Self.randomBytes(1_027, &rng)
            var bytes = payload
            key.apply(to: &bytes, range: 3..<1_020, offset: offset)
            #expect(Self.firstMismatch(bytes, payload) == 3, "masking changed the range, from its first byte")
            #expect(bytes[1_020...].elementsEqual(payload[1_020...]), "and nothing after it")
            key.apply(to: &bytes, range: 3..<1_020, offset: offset)
            #expect(Self.firstMismatch(bytes, payload) == nil)
        }
    }

    @Test("only the offset modulo 4 matters, negative and huge offsets included")
    func offsetModulo() {
        let key = MaskingKey(1, 2, 3, 4)
        let payload = Array(0..<37 as Range<UInt8>)
        for offset in [-8, -5, -1, 0, 3, 4, 7, Int.max, Int.min, Int.max - 2] {
            var bytes = payload
            let next = key.apply(to: &bytes, range: 0..<37, offset: offset)
            let phase = ((offset % 4) + 4) % 4
            #expect(bytes == Self.referenceMask(payload, key: key.bytes, offset: phase), "offset \(offset)")
            #expect(next == (phase + 37) % 4)
        }
    }

    @Test("array ranges are clamped to the array, so no range traps")
    func clampedRanges() {
        let key = MaskingKey(0xFF, 0xFF, 0xFF, 0xFF)
        var bytes: [UInt8] = [0, 0, 0, 0]
        #expect(key.apply(to: &bytes, range: 2..<10, offset: 0) == 2)
        #expect(bytes == [0, 0, 0xFF, 0xFF])
        #expect(key.apply(to: &bytes, range: -3..<1, offset: 1) == 2)
        #expect(bytes == [0xFF, 0, 0xFF, 0xFF])
        #expect(key.apply(to: &bytes, range: 9..<12, offset: 3) == 3)
        #expect(key.apply(to: &bytes, range: -5 ..< -2, offset: 1) == 1)
        #expect(bytes == [0xFF, 0, 0xFF, 0xFF])
        var empty: [UInt8] = []
        #expect(key.apply(to: &empty, range: 0..<0, offset: 2) == 2)
        #expect(empty.isEmpty)
    }
}

@Suite("Masking while copying")
struct MaskingCopyTests {
    @Test("apply(from:to:) equals copying then masking in place, at every length, offset and alignment")
    func fusedEqualsInPlace() {
        let key = MaskingKey(0x37, 0xFA, 0x21, 0x3D)
        var rng = Connection.SeededGenerator(seed: 77)
        for length in 0...150 {
            for offset in 0..<4 {
                for alignment in 0..<8 {
                    let source = (0..<(length + alignment)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    var expected = Array(source[alignment...])
                    _ = key.apply(to: &expected, range: 0..<expected.count, offset: offset)
                    var actual = [UInt8](repeating: 0xEE, count: length + 3)
                    let next = source.withUnsafeBytes { src in
                        actual.withUnsafeMutableBytes { dst in
                            key.apply(from: UnsafeRawBufferPointer(rebasing: src[alignment...]),
                                      to: UnsafeMutableRawBufferPointer(rebasing: dst[0..<length]), offset: offset)
                        }
                    }
                    #expect(Array(actual[0..<length]) == expected)
                    #expect(actual[length...].allSatisfy { $0 == 0xEE })
                    #expect(next == (offset + length) & 3)
                }
            }
        }
    }
}
