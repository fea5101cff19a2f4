// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("quoted(_:): String(reflecting:) without reflection, for Embedded Swift")
struct QuotedTests {
    @Test("Quotes and escapes as String(reflecting:) does: quotes, backslashes, controls, non-ASCII text")
    func matchesReflecting() {
        let samples = ["", "abc", "it's", "a\"b", "back\\slash", "tab\tnl\ncr\r", "nul\0", "é日本", "\u{7}", "\u{200B}",
                       "👍🏽", "\u{FEFF}x", "e\u{301}", "\u{E000}", "\u{1F}", "\u{7F}", "\u{85}", "\u{2028}", "\u{10FFFF}"]
        for sample in samples { #expect(quoted(sample) == String(reflecting: sample)) }
        var generator = Connection.SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let text = Self.randomText(maxScalar: 0xFF, using: &generator)
            #expect(quoted(text) == String(reflecting: text), "\(Array(text.unicodeScalars))")
        }
    }

    @Test("Any scalar: no control character or line break reaches the output (String(reflecting:) also escapes a mark that would join the quote, which needs grapheme data)")
    func anyScalarIsSafe() {
        var generator = Connection.SeededGenerator(seed: 8)
        for _ in 0..<2_000 {
            let text = Self.randomText(maxScalar: 0x10FFFF, using: &generator)
            let output = quoted(text)
            #expect(output.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value)
                && $0.value != 0x2028 && $0.value != 0x2029 }, "\(Array(text.unicodeScalars))")
            #expect(output.unicodeScalars.first == "\"" && output.unicodeScalars.last == "\"")
        }
    }

    static func randomText(maxScalar: UInt32, using generator: inout Connection.SeededGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            if let scalar = Unicode.Scalar(UInt32.random(in: 0...maxScalar, using: &generator)) { scalars.append(scalar) }
        }
        return String(scalars)
    }
}
