// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The validator against the standard library's strict decoders, which follow Unicode Table 3-7 as
/// well: `String(validating:as:)`, and for the loops over millions of inputs its `UTF8` codec, whose
/// rejections are 20 times cheaper in debug builds (a test shows the two agree). Inputs of 64 bytes or
/// more take the vector path, shorter ones the DFA alone, so most checks run both: bare, and padded with
/// ASCII to place the bytes under test at every position of a 16-byte block.
@Suite("UTF-8 validation (RFC 3629, Unicode Table 3-7)")
struct UTF8ValidatorTests {
    // MARK: Helpers

    /// The strict reference verdict for a whole message.
    static func reference(_ bytes: some Collection<UInt8>) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// The verdict of the standard library's `UTF8` codec: whether it decodes every scalar without error.
    static func codecReference(_ bytes: some Sequence<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var codec = UTF8()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether the validator's verdict `ours` on a whole message is right: the codec must agree, and
    /// `String(validating:as:)` too whenever either accepts.
    static func isRight(_ ours: Bool, on bytes: some Collection<UInt8>) -> Bool {
        let codec = codecReference(bytes)
        return ours == codec && (!ours || reference(bytes))
    }

    /// Where validation failed, or that it passed and whether it ended on a character boundary.
    enum Outcome: Equatable, CustomStringConvertible {
        case failed(at: Int)
        case passed(atBoundary: Bool)

        var isValidMessage: Bool { self == .passed(atBoundary: true) }

        var description: String {
            switch self {
            case .failed(let offset): return "failed at \(offset)"
            case .passed(let boundary): return boundary ? "valid" : "passed, sequence unfinished"
            }
        }
    }

    /// Feeds `bytes` to a fresh validator in chunks ending at `cuts` (plus the end), and reports the
    /// offset in the whole message of the failing byte.
    static func outcome(_ bytes: [UInt8], cuts: [Int] = []) -> Outcome {
        var validator = UTF8Validator()
        var start = 0
        for end in cuts + [bytes.count] {
            let failure = bytes[start..<end].withUnsafeBytes { validator.offsetOfFirstInvalidByte(in: $0) }
            if let failure { return .failed(at: start + failure) }
            start = end
        }
        return .passed(atBoundary: validator.isAtCharacterBoundary)
    }

    /// The outcome of validating `bytes` in one call.
    static func outcome(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var validator = UTF8Validator()
        if let failure = validator.offsetOfFirstInvalidByte(in: bytes) { return .failed(at: failure) }
        return .passed(atBoundary: validator.isAtCharacterBoundary)
    }

    /// One byte per call.
    static func outcomeByteByByte(_ bytes: [UInt8]) -> Outcome {
        outcome(bytes, cuts: bytes.isEmpty ? [] : Array(1..<bytes.count))
    }

    /// The outcome expected for bytes whose own outcome is `bare`, placed after `padding` ASCII bytes
    /// and followed by `suffix` ASCII bytes: an unfinished sequence then fails at the first ASCII byte.
    static func padded(_ bare: Outcome, padding: Int, count: Int, suffix: Int) -> Outcome {
        switch bare {
        case .failed(let offset): return .failed(at: padding + offset)
        case .passed(true): return bare
        case .passed(false): return suffix == 0 ? bare : .failed(at: padding + count)
        }
    }

    static func ascii(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined(separator: " ")
    }

    /// Whether some message starts with `prefix`: it is valid once at most 3 continuation bytes are
    /// appended. An independent definition of "not yet invalid", for the fail-fast checks.
    static func isCompletable(_ prefix: ArraySlice<UInt8>) -> Bool {
        if reference(prefix) { return true }
        // One byte of each range a continuation byte may be restricted to.
        let candidates: [UInt8] = [0x80, 0x90, 0xA0]
        var suffixes: [[UInt8]] = [[]]
        for _ in 1...3 {
            suffixes = suffixes.flatMap { s in candidates.map { s + [$0] } }
            if let valid = suffixes.first(where: { codecReference(prefix + $0) }) { return reference(prefix + valid) }
        }
        return false
    }

    /// Byte values at the edges of every class the DFA and the vector test distinguish: all their
    /// combinations exercise every rule.
    static let edgeBytes: [UInt8] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
        0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
    ]

    static let validSamples: [(String, [UInt8])] = [
        ("empty", []),
        ("ASCII", Array("Hello, WebSocket! 0123456789 ~\u{7F}\u{0}".utf8)),
        ("kosme", Array("κόσμε".utf8)),
        ("Autobahn 6.2", Array("Hello-µ@ßöäüàá-UTF-8!!".utf8)),
        ("U+0080, the first 2-byte", [0xC2, 0x80]),
        ("U+07FF, the last 2-byte", [0xDF, 0xBF]),
        ("U+0800, the first 3-byte", [0xE0, 0xA0, 0x80]),
        ("U+D7FF, below the surrogates", [0xED, 0x9F, 0xBF]),
        ("U+E000, above the surrogates", [0xEE, 0x80, 0x80]),
        ("U+FFFD", [0xEF, 0xBF, 0xBD]),
        ("U+FFFF", [0xEF, 0xBF, 0xBF]),
        ("U+10000, the first 4-byte", [0xF0, 0x90, 0x80, 0x80]),
        ("U+10FFFF, the last code point", [0xF4, 0x8F, 0xBF, 0xBF]),
        ("CJK", Array("中文字符，日本語のテキスト、한국어 텍스트".utf8)),
        ("emoji", Array("👋🌍🎉👨‍👩‍👧‍👦🏳️‍🌈".utf8)),
        ("mixed scripts", Array("aé中😀ßЖ𝄞ع".utf8)),
    ]

    // MARK: Valid input

    @Test("valid samples pass whole, byte by byte, padded into the vector path, and repeated")
    func validSamples() {
        for (name, bytes) in Self.validSamples {
            #expect(Self.reference(bytes), "\(name) is valid")
            #expect(Self.outcome(bytes) == .passed(atBoundary: true), "\(name)")
            #expect(Self.outcomeByteByByte(bytes) == .passed(atBoundary: true), "\(name) byte by byte")
            for padding in [19, 40, 70] {
                let padded = Self.ascii(padding) + bytes + Self.ascii(padding)
                #expect(Self.outcome(padded) == .passed(atBoundary: true), "\(name) after \(padding) ASCII")
                #expect(Self.outcome(Self.ascii(padding) + bytes) == .passed(atBoundary: true))
            }
            let repeated = Array(repeating: bytes, count: 40).flatMap { $0 }
            #expect(Self.outcome(repeated) == .passed(atBoundary: true), "\(name) repeated")
        }
    }

    @Test("a message cut inside a sequence passes each chunk but is not at a character boundary")
    func unfinishedSequence() {
        for bytes: [UInt8] in [[0xC2], [0xE1, 0x80], [0xF1, 0x80, 0x80], [0xF4, 0x8F, 0xBF], [0xE0, 0xA0]] {
            #expect(Self.outcome(bytes) == .passed(atBoundary: false), "\(Self.hex(bytes))")
            #expect(Self.outcome(Self.ascii(100) + bytes) == .passed(atBoundary: false), "\(Self.hex(bytes))")
            #expect(!Self.reference(bytes))
        }
        // The sequence finishes in the next chunk.
        var validator = UTF8Validator()
        let first = validator.validate(Self.ascii(70) + [0xF0, 0x9F])
        #expect(first && !validator.isAtCharacterBoundary)
        let empty = validator.validate([UInt8]())
        #expect(empty && !validator.isAtCharacterBoundary, "an empty chunk changes nothing")
        let last = validator.validate([0x98, 0x80] + Self.ascii(70))
        #expect(last && validator.isAtCharacterBoundary)
    }

    @Test("a sequence at any position of a short or long message, after ASCII or CJK, then ASCII, is judged right")
    func sequencesAtEveryPosition() {
        // Unfinished sequences fail at the ASCII byte after them, finished ones pass, wherever they sit
        // relative to the 16-byte blocks and to the pairs of blocks tested together, and in messages too
        // short for the vector path, where the DFA skips ASCII 8 bytes at a time between characters.
        let sequences: [[UInt8]] = [
            [0xC2], [0xE1, 0x80], [0xF0, 0x90, 0x80], [0xF4, 0x8F, 0xBF], [0xED, 0x9F],
            [0xC2, 0x80], [0xE1, 0x80, 0x80], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        for position in 0..<130 {
            let cjk = Array(String(repeating: "中", count: position / 3).utf8) + Self.ascii(position % 3)
            for prefix in [Self.ascii(position), cjk] {
                for sequence in sequences {
                    let expected: Outcome = Self.reference(prefix + sequence)
                        ? .passed(atBoundary: true) : .failed(at: position + sequence.count)
                    for suffix in [9, 17, 100] {
                        let bytes = prefix + sequence + Self.ascii(suffix)
                        #expect(Self.outcome(bytes) == expected, "\(Self.hex(sequence)) at \(position), then \(suffix)")
                    }
                }
            }
        }
    }

    @Test("reset forgets an unfinished sequence")
    func reset() {
        var validator = UTF8Validator()
        let unfinished = validator.validate([0xE2, 0x82])
        #expect(unfinished)
        #expect(validator != UTF8Validator())
        validator.reset()
        #expect(validator.isAtCharacterBoundary)
        #expect(validator == UTF8Validator())
        // A continuation byte is now stray.
        let stray = validator.validate([0xAC])
        #expect(!stray)
    }

    @Test("array, slice and pointer entry points agree")
    func entryPoints() {
        let bytes = Self.ascii(30) + Array("€ and 😀".utf8) + Self.ascii(50)
        // "€" takes bytes 30...32, "😀" 38...41.
        for end in [bytes.count, 32, 40, 42] {
            var a = UTF8Validator(), b = UTF8Validator(), c = UTF8Validator()
            let slice = bytes[0..<end]
            let results = [a.validate(Array(slice)), b.validate(slice), slice.withUnsafeBytes { c.validate($0) }]
            #expect(results == [true, true, true])
            #expect(a == b && b == c)
            #expect(a.isAtCharacterBoundary == (end != 32 && end != 40))
        }
    }

    // MARK: Invalid input, failing fast

    @Test("every invalid class fails at the first byte that makes it invalid", arguments: [
        ("overlong C0", [0xC0, 0x80] as [UInt8], 0),
        ("overlong C1", [0xC1, 0xBF], 0),
        ("overlong 3-byte E0 80", [0xE0, 0x80, 0x80], 1),
        ("overlong 3-byte E0 9F", [0xE0, 0x9F, 0xBF], 1),
        ("overlong 4-byte F0 80", [0xF0, 0x80, 0x80, 0x80], 1),
        ("overlong 4-byte F0 8F", [0xF0, 0x8F, 0xBF, 0xBF], 1),
        ("surrogate U+D800", [0xED, 0xA0, 0x80], 1),
        ("surrogate U+DFFF", [0xED, 0xBF, 0xBF], 1),
        ("above U+10FFFF, F4 90", [0xF4, 0x90, 0x80, 0x80], 1),
        ("above U+10FFFF, F4 BF", [0xF4, 0xBF, 0xBF, 0xBF], 1),
        ("F5 lead", [0xF5, 0x80, 0x80, 0x80], 0),
        ("F8 5-byte lead", [0xF8, 0x88, 0x80, 0x80, 0x80], 0),
        ("FE", [0xFE], 0),
        ("FF", [0xFF], 0),
        ("stray 80", [0x80], 0),
        ("stray BF after ASCII", [0x41, 0xBF], 1),
        ("extra continuation after 2-byte", [0xC2, 0x80, 0x80], 2),
        ("extra continuation after 4-byte", [0xF0, 0x90, 0x80, 0x80, 0x80], 4),
        ("2-byte cut by ASCII", [0xC2, 0x41], 1),
        ("3-byte cut by ASCII", [0xE1, 0x80, 0x41], 2),
        ("4-byte cut by a lead", [0xF1, 0x80, 0x80, 0xC2, 0x80], 3),
        ("lead after lead", [0xE1, 0xE1, 0x80, 0x80], 1),
    ])
    func invalidClasses(name: String, bytes: [UInt8], offset: Int) {
        #expect(!Self.reference(bytes))
        #expect(Self.outcome(bytes) == .failed(at: offset), "whole")
        #expect(Self.outcomeByteByByte(bytes) == .failed(at: offset), "byte by byte")
        for padding in 19...34 {
            let padded = Self.ascii(padding) + bytes + Self.ascii(64)
            #expect(Self.outcome(padded) == .failed(at: padding + offset), "after \(padding) ASCII")
        }
    }

    @Test("fails within the call that delivers the failing byte, not at the end of the sequence", arguments: [
        ([0xF4, 0x90] as [UInt8], 1),
        ([0xE0, 0x80], 1),
        ([0xED, 0xA0], 1),
        ([0xF0, 0x8F], 1),
        // Autobahn case 6.4.1: "κόσμε" then a surrogate, then "edited".
        ([0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65,
          0x64], 10),
    ])
    func failFast(bytes: [UInt8], offset: Int) {
        // One byte per call: every call before the failing byte succeeds, the one with it fails.
        var validator = UTF8Validator()
        for (i, byte) in bytes.enumerated() {
            let ok = validator.validate([byte])
            #expect(ok == (i < offset), "byte \(i)")
            if !ok { break }
        }
        // Whole, and with the failing byte last in its chunk (nothing after it is needed).
        #expect(Self.outcome(bytes) == .failed(at: offset))
        #expect(Self.outcome(Array(bytes[...offset])) == .failed(at: offset))
        #expect(Self.outcome(Self.ascii(100) + bytes[...offset]) == .failed(at: 100 + offset))
        // The bytes before it are a prefix of some valid message; with it, of none.
        #expect(Self.isCompletable(bytes[..<offset]))
        #expect(!Self.isCompletable(bytes[...offset]))
    }

    // MARK: Exhaustive and random comparison with the reference

    @Test("all 1- and 2-byte messages match the reference, bare and in the vector path at every block position")
    func exhaustiveShort() {
        var mismatches = 0
        for b0 in 0...255 {
            let one = [UInt8(b0)]
            if Self.outcome(one).isValidMessage != Self.reference(one) { mismatches += 1 }
            for b1 in 0...255 {
                let two = [UInt8(b0), UInt8(b1)]
                let bare = Self.outcome(two)
                if bare.isValidMessage != Self.reference(two) { mismatches += 1 }
                // Inside the vector path, at a position in a block that varies with the bytes.
                let padding = 19 + (b0 + b1) % 16
                let padded = Self.outcome(Self.ascii(padding) + two + Self.ascii(48))
                if padded != Self.padded(bare, padding: padding, count: 2, suffix: 48) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("the UTF8 codec used as the fast reference agrees with String(validating:as:)")
    func referencesAgree() {
        var disagreements: [[UInt8]] = []
        func check(_ bytes: [UInt8]) {
            if Self.codecReference(bytes) != Self.reference(bytes), disagreements.count < 10 { disagreements.append(bytes) }
        }
        for b0 in 0...255 {
            check([UInt8(b0)])
            for b1 in 0...255 { check([UInt8(b0), UInt8(b1)]) }
        }
        // Class-edge bytes, 3 deep, and 4 deep after the leads that need 3 more bytes.
        let edges = Self.edgeBytes
        for b0 in edges { for b1 in edges { for b2 in edges {
            check([b0, b1, b2])
            if b0 >= 0xF0 { for b3 in edges { check([b0, b1, b2, b3]) } }
        } } }
        #expect(disagreements.isEmpty, "\(disagreements.map(Self.hex))")
    }

    /// The number of valid 3-byte messages whose first byte is in each quarter of 00...FF:
    /// 00..3F and 40..7F: 64 × (128 × 128 ASCII + 1,920 2-byte characters (30 leads × 64));
    /// 80..BF: none; C0..FF: 30 × 64 × 128 (2-byte then ASCII) + 61,440 3-byte characters (E0 and ED
    /// 32 × 64 each, E1..EC and EE..EF 14 × 64 × 64).
    static let validThreeByteCounts = [1_171_456, 1_171_456, 0, 307_200]

    @Test("all 3-byte messages match the reference", arguments: 0..<4)
    func exhaustiveThreeBytes(quarter: Int) {
        var wrong: [[UInt8]] = []
        var accepted = 0
        var storage: [UInt8] = [0, 0, 0]
        storage.withUnsafeMutableBufferPointer { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            for b0 in (quarter * 64)..<(quarter * 64 + 64) {
                for b1 in 0...255 {
                    for b2 in 0...255 {
                        bytes[0] = UInt8(b0); bytes[1] = UInt8(b1); bytes[2] = UInt8(b2)
                        var validator = UTF8Validator()
                        let ours = validator.offsetOfFirstInvalidByte(in: raw) == nil && validator.isAtCharacterBoundary
                        if ours { accepted += 1 }
                        if !Self.isRight(ours, on: UnsafeBufferPointer(bytes)), wrong.count < 10 { wrong.append(Array(bytes)) }
                    }
                }
            }
        }
        #expect(accepted == Self.validThreeByteCounts[quarter])
        #expect(wrong.isEmpty, "\(wrong.map(Self.hex))")
    }

    @Test("every 4-byte message of class-edge bytes matches the reference, bare and in the vector path")
    func edgeBytesFourDeep() {
        // 32 layouts: the bytes at each of the 16 positions in a block, with the buffer ending right after
        // them (an unfinished sequence reaches the tail) or going on in ASCII.
        var layouts: [(buffer: [UInt8], at: Int, suffix: Int)] = []
        for position in 0..<16 {
            for suffix in [0, 40] {
                layouts.append((Self.ascii(60 + position) + [0, 0, 0, 0] + Self.ascii(suffix), 60 + position, suffix))
            }
        }
        var wrong: [[UInt8]] = []
        let edges = Self.edgeBytes
        var n = 0
        for b0 in edges { for b1 in edges { for b2 in edges { for b3 in edges {
            let bytes = [b0, b1, b2, b3]
            let bare = bytes.withUnsafeBytes { Self.outcome($0) }
            let k = n % layouts.count
            n += 1
            let at = layouts[k].at
            layouts[k].buffer.replaceSubrange(at..<(at + 4), with: bytes)
            let padded = layouts[k].buffer.withUnsafeBytes { Self.outcome($0) }
            let consistent = padded == Self.padded(bare, padding: at, count: 4, suffix: layouts[k].suffix)
            if !Self.isRight(bare.isValidMessage, on: bytes) || !consistent, wrong.count < 10 { wrong.append(bytes) }
        } } } }
        #expect(n == edges.count * edges.count * edges.count * edges.count)
        #expect(wrong.isEmpty, "\(wrong.map(Self.hex))")
    }

    @Test("random 4-byte messages match the reference")
    func randomFourBytes() {
        var rng = Connection.SeededGenerator(seed: 0x5EED_0004)
        var wrong: [[UInt8]] = []
        var accepted = 0
        for _ in 0..<300_000 {
            // Half uniform, half with a 4-byte lead and continuation bytes, so that many are valid.
            var bytes = (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) {
                bytes[0] = UInt8.random(in: 0xF0...0xF4, using: &rng)
                for i in 1..<4 { bytes[i] = UInt8.random(in: 0x80...0xBF, using: &rng) }
            }
            let ours = bytes.withUnsafeBytes { Self.outcome($0) }.isValidMessage
            if ours { accepted += 1 }
            if !Self.isRight(ours, on: bytes), wrong.count < 10 { wrong.append(bytes) }
        }
        #expect(accepted > 50_000, "the sample holds many valid sequences")
        #expect(wrong.isEmpty, "\(wrong.map(Self.hex))")
    }

    /// Valid text of every length class, with a few bytes corrupted now and then.
    static func randomMessage(_ rng: inout Connection.SeededGenerator, length: Int) -> [UInt8] {
        let scalarRanges: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0x20...0x7E, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF,
            0x4E00...0x9FFF, 0x1F300...0x1F64F,
        ]
        var bytes: [UInt8] = []
        while bytes.count < length {
            let range = scalarRanges[Int.random(in: 0..<scalarRanges.count, using: &rng)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) {
                bytes.append(contentsOf: String(Character(scalar)).utf8)
            }
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: break // Valid.
        case 1 where !bytes.isEmpty: // One byte replaced by anything.
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        case 2 where !bytes.isEmpty: // One byte dropped: cuts a sequence or joins two.
            bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
        default: // A byte of a special class inserted.
            let index = Int.random(in: 0...bytes.count, using: &rng)
            bytes.insert(edgeBytes[Int.random(in: 0..<edgeBytes.count, using: &rng)], at: index)
        }
        return bytes
    }

    @Test("random messages match the reference under random chunkings, and fail where the prefix dies")
    func randomMessages() {
        var rng = Connection.SeededGenerator(seed: 0x5EED_0005)
        var (valid, invalid) = (0, 0)
        for round in 0..<1_500 {
            let length = round % 3 == 0 ? Int.random(in: 0..<40, using: &rng) : Int.random(in: 0..<700, using: &rng)
            let bytes = Self.randomMessage(&rng, length: length)
            let whole = Self.outcome(bytes)
            #expect(whole.isValidMessage == Self.reference(bytes), "\(Self.hex(bytes))")
            if whole.isValidMessage { valid += 1 } else { invalid += 1 }
            // Fail-fast against the independent definition.
            if case .failed(let offset) = whole {
                #expect(Self.isCompletable(bytes[..<offset]) && !Self.isCompletable(bytes[...offset]),
                        "failed at \(offset) in \(Self.hex(bytes))")
            }
            // The same outcome whatever the chunks.
            for _ in 0..<4 {
                var cuts: [Int] = []
                var at = 0
                while true {
                    at += Int.random(in: 0...(Bool.random(using: &rng) ? 8 : 200), using: &rng)
                    if at >= bytes.count { break }
                    cuts.append(at)
                }
                #expect(Self.outcome(bytes, cuts: cuts) == whole, "cuts \(cuts)")
            }
            if round % 10 == 0 { #expect(Self.outcomeByteByByte(bytes) == whole) }
        }
        #expect(valid > 200 && invalid > 500)
    }

    @Test("random byte strings match the reference under random chunkings")
    func randomBytes() {
        var rng = Connection.SeededGenerator(seed: 0x5EED_0006)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0..<200, using: &rng)
            // Mostly continuation bytes and leads, so that some strings survive past their first bytes.
            let bytes = (0..<length).map { _ in
                Bool.random(using: &rng) ? UInt8.random(in: 0x80...0xBF, using: &rng) : UInt8.random(in: 0...255, using: &rng)
            }
            let whole = Self.outcome(bytes)
            #expect(whole.isValidMessage == Self.reference(bytes))
            let cuts = (0..<3).map { _ in Int.random(in: 0...length, using: &rng) }.sorted()
            #expect(Self.outcome(bytes, cuts: cuts) == whole)
        }
    }

    // MARK: Chunk boundaries and alignment

    /// An ASCII byte of `splitMessages[0]` past the prologue, made a stray continuation byte.
    static let strayIndex = 47

    /// Long mixed messages, valid and not, for the split tests.
    static let splitMessages: [[UInt8]] = {
        let text = Array("ASCII, then κόσμε, 中文字符, 😀🎉 and 𝄞 ― long enough for the vector path: U+10FFFF.".utf8)
        var invalid = text
        invalid.insert(contentsOf: [0xED, 0xA0, 0x80], at: 60)
        var truncated = text
        truncated.append(contentsOf: [0xF0, 0x9F, 0x98])
        var stray = text
        stray[strayIndex] = 0x80
        return [text, invalid, truncated, stray, text + text]
    }()

    @Test("every split into 2 and 3 chunks, and byte by byte, gives the outcome of the whole")
    func splits() {
        for bytes in Self.splitMessages {
            let whole = Self.outcome(bytes)
            #expect(whole.isValidMessage == Self.reference(bytes))
            #expect(Self.outcomeByteByByte(bytes) == whole)
            for i in 0...bytes.count {
                #expect(Self.outcome(bytes, cuts: [i]) == whole, "cut at \(i)")
            }
            // Pairs of cuts, on a sparser grid for the long message.
            let step = bytes.count > 200 ? 7 : 1
            for i in stride(from: 0, through: bytes.count, by: step) {
                for j in stride(from: i, through: bytes.count, by: step) where Self.outcome(bytes, cuts: [i, j]) != whole {
                    Issue.record("cuts \(i), \(j): \(Self.outcome(bytes, cuts: [i, j])) instead of \(whole)")
                }
            }
        }
        // Where the samples fail.
        #expect(Self.outcome(Self.splitMessages[1]) == .failed(at: 61))
        #expect(Self.outcome(Self.splitMessages[2]) == .passed(atBoundary: false))
        #expect(Self.splitMessages[0][Self.strayIndex] < 0x80)
        #expect(Self.outcome(Self.splitMessages[3]) == .failed(at: Self.strayIndex))
    }

    /// Validates `chunks` in turn, each in its own buffer at `shift` bytes past a 16-byte-aligned start,
    /// after bytes FF (which any look-back before a chunk's start would take for a lead byte).
    static func outcome(chunks: [[UInt8]], shift: Int) -> Outcome {
        var validator = UTF8Validator()
        var start = 0
        for chunk in chunks {
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk.count + 32, alignment: 16)
            defer { storage.deallocate() }
            storage.initializeMemory(as: UInt8.self, repeating: 0xFF)
            let data = UnsafeMutableRawBufferPointer(rebasing: storage[shift..<(shift + chunk.count)])
            data.copyBytes(from: chunk)
            if let failure = validator.offsetOfFirstInvalidByte(in: UnsafeRawBufferPointer(data)) {
                return .failed(at: start + failure)
            }
            start += chunk.count
        }
        return .passed(atBoundary: validator.isAtCharacterBoundary)
    }

    @Test("the outcome does not depend on the buffer's alignment, even for chunks that start mid-sequence",
          arguments: 0..<16)
    func alignment(shift: Int) {
        for bytes in Self.splitMessages + [Self.ascii(300) + [0xC2] + Self.ascii(5), Self.ascii(200) + [0xE4, 0xB8]] {
            #expect(Self.outcome(chunks: [bytes], shift: shift) == Self.outcome(bytes), "shift \(shift)")
        }
        // A 4-byte sequence split 1 + 3, 2 + 2 and 3 + 1, then 70 more bytes (the vector path), valid or
        // with an error among the first bytes of the second chunk.
        let emoji: [UInt8] = [0xF0, 0x9F, 0x98, 0x80]
        let rest = Array("中文 and more text, long enough for the vector path to take over.".utf8)
        for cut in 1...3 {
            for bytes in [emoji + rest, emoji + [0x80] + rest, emoji + [0xC2, 0x41] + rest, emoji + [0xED, 0xA0] + rest] {
                let chunks = [Array(bytes[..<cut]), Array(bytes[cut...])]
                #expect(Self.outcome(chunks: chunks, shift: shift) == Self.outcome(bytes), "cut \(cut), shift \(shift)")
            }
        }
    }
}
