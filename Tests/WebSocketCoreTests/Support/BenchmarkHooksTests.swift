// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The benchmark executable measures masking and UTF-8 validation through these hooks: they must
/// compute what the connection computes, or the figures describe something else.
@Suite("BenchmarkHooks: masking and UTF-8 validation as the benchmarks call them")
struct BenchmarkHooksTests {
    @Test("mask XORs with the key from the given offset, and returns the next offset", arguments: [0, 1, 3, 5])
    func mask(offset: Int) {
        let key: (UInt8, UInt8, UInt8, UInt8) = (0x12, 0x34, 0x56, 0x78)
        let plain: [UInt8] = (0..<100).map { UInt8($0) }
        var buffer = plain
        let next = buffer.withUnsafeMutableBytes { BenchmarkHooks.mask($0, key: key, offset: offset) }
        let k = [key.0, key.1, key.2, key.3]
        #expect(buffer == plain.enumerated().map { $0.element ^ k[($0.offset + offset) % 4] })
        #expect(next % 4 == (offset + plain.count) % 4)
        // Masking twice from the same offset gives the plain bytes back.
        _ = buffer.withUnsafeMutableBytes { BenchmarkHooks.mask($0, key: key, offset: offset) }
        #expect(buffer == plain)
    }

    @Test("validateUTF8 gives the same verdict at every chunk size, sequences split across chunks included", arguments: [
        (Array("plain ascii".utf8), true),
        (Array("κόσμε 𝄞 €".utf8), true),
        ([0x61, 0xCE], false),              // ends inside a character
        ([0xED, 0xA0, 0x80], false),        // a surrogate
        ([0xF4, 0x90, 0x80, 0x80], false),  // above U+10FFFF
        ([], true),
    ] as [([UInt8], Bool)])
    func validateUTF8(bytes: [UInt8], valid: Bool) {
        for chunkSize in [0, 1, 2, 3, 7, 64] {
            let verdict = bytes.withUnsafeBytes { BenchmarkHooks.validateUTF8($0, chunkSize: chunkSize) }
            #expect(verdict == valid, "chunk size \(chunkSize)")
        }
    }
}
