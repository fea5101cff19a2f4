// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("HTTP tokens and lists (RFC 9110 §5.6)")
struct HTTPTokensTests {
    @Test("tchar is exactly RFC 9110 §5.6.2")
    func tchar() {
        let expected = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for c in UInt8.min...UInt8.max {
            #expect(HTTPTokens.isTokenChar(c) == expected.contains(c), "byte \(c)")
        }
    }

    @Test("tokens", arguments: [
        ("websocket", true), ("chat.example.com", true), ("x-webkit-deflate-frame", true), ("", false),
        ("a b", false), ("a,b", false), ("a;b", false), ("\"a\"", false), ("a/b", false), ("caf\u{E9}", false),
        ("a\u{0}", false), ("~", true),
    ])
    func tokens(text: String, isToken: Bool) {
        #expect(HTTPTokens.isToken(text) == isToken)
    }

    @Test("lists: OWS and empty elements, across field lines (RFC 9110 §5.6.1)")
    func lists() {
        #expect(HTTPTokens.tokenList(["chat, superchat"]) == ["chat", "superchat"])
        #expect(HTTPTokens.tokenList(["chat", "superchat"]) == ["chat", "superchat"])
        #expect(HTTPTokens.tokenList([" a ,\t,b,, ", ",c"]) == ["a", "b", "c"])
        #expect(HTTPTokens.tokenList([]) == [])
        #expect(HTTPTokens.tokenList([""]) == [])
        #expect(HTTPTokens.tokenList([" , ,"]) == [])
        #expect(HTTPTokens.tokenList(["a b"]) == nil)
        #expect(HTTPTokens.tokenList(["a", "b;c"]) == nil)
        #expect(HTTPTokens.tokenList(["\"a\""]) == nil)
    }

    @Test("case-insensitive membership", arguments: [
        (["Upgrade"], "upgrade", true),
        (["keep-alive, Upgrade"], "upgrade", true),
        (["keep-alive", "UPGRADE"], "upgrade", true),
        (["keep-alive,upgrade "], "upgrade", true),
        (["h2c/1, WebSocket"], "websocket", true),
        (["keep-alive"], "upgrade", false),
        (["upgraded"], "upgrade", false),
        (["up grade"], "upgrade", false),
        ([], "upgrade", false),
        (["websocket/13"], "websocket", false),
        ([",,\t upgrade\t,"], "upgrade", true),
        (["a", "b", "c, d ,UpGrAdE"], "upgrade", true),
        (["upgrad"], "upgrade", false),
        ([" , , "], "upgrade", false),
        (["upgrade"], "", false),
        (["a,,b"], "", false),
        // The value that is the token alone (the common case, compared whole).
        (["websocket"], "websocket", true),
        (["WebSocket"], "websocket", true),
        (["websockets"], "websocket", false),
        ([""], "", false),
        (["\t"], "\t", false),
        ([" a"], " a", false),
        (["a,b"], "a,b", false),
        (["a, b"], "a", true),
    ])
    func membership(values: [String], token: String, contains: Bool) {
        // Over the fields of a list, as the handshake reads them: any one that lists the token.
        let listed = values.contains { value in
            Array(value.utf8).withUnsafeBufferPointer { bytes in
                Array(token.utf8).withUnsafeBufferPointer { HTTPTokens.listContains(bytes, $0) }
            }
        }
        #expect(listed == contains)
    }

    @Test("Membership against a reference (split at commas, OWS trimmed, empty elements skipped, case ignored), for every short value and token over a small alphabet")
    func membershipAgainstReference() {
        let alphabet: [UInt8] = Array("aA, \tb".utf8)
        func all(upTo length: Int) -> [[UInt8]] {
            var result: [[UInt8]] = [[]]
            var last: [[UInt8]] = [[]]
            for _ in 0..<length {
                last = last.flatMap { prefix in alphabet.map { prefix + [$0] } }
                result += last
            }
            return result
        }
        func reference(_ value: [UInt8], _ token: [UInt8]) -> Bool {
            value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).contains { element in
                let trimmed = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
                return !trimmed.isEmpty && trimmed.count == token.count
                    && zip(trimmed, token).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
            }
        }
        let values = all(upTo: 4)
        let tokens = all(upTo: 2)
        var checked = 0
        for value in values {
            for token in tokens {
                let listed = value.withUnsafeBufferPointer { bytes in token.withUnsafeBufferPointer { HTTPTokens.listContains(bytes, $0) } }
                #expect(listed == reference(value, token), "\(value) \(token)")
                checked += 1
            }
        }
        #expect(checked == 1_555 * 43)
    }

    @Test("ASCII case-insensitive equality: lengths first, then bytes; only ASCII letters fold")
    func caseInsensitiveEquality() {
        #expect("Sec-WebSocket-Key".asciiCaseInsensitiveEquals("sec-websocket-key"))
        #expect("HOST".asciiCaseInsensitiveEquals("host"[...]))
        #expect(!"Host".asciiCaseInsensitiveEquals("Hosts"))
        #expect(!"Hosts".asciiCaseInsensitiveEquals("Host"))
        #expect("".asciiCaseInsensitiveEquals(""))
        #expect(!"a".asciiCaseInsensitiveEquals(""))
        // "@" and "`" sit next to the letters; only A-Z fold to a-z.
        #expect(!"@".asciiCaseInsensitiveEquals("`"))
        #expect(!"[".asciiCaseInsensitiveEquals("{"))
        #expect(!"é".asciiCaseInsensitiveEquals("É"))
        #expect("é".asciiCaseInsensitiveEquals("é"))
        let long = String(repeating: "Ab", count: 100)
        #expect(long.asciiCaseInsensitiveEquals(long.lowercased()))
        #expect(!long.asciiCaseInsensitiveEquals(long.lowercased().dropLast() + "c"))
    }

    @Test("trimming OWS")
    func trimming() {
        #expect(HTTPTokens.trimmingOWS(" \t a b \t"[...]) == "a b")
        #expect(HTTPTokens.trimmingOWS("   "[...]) == "")
        #expect(HTTPTokens.trimmingOWS(Array(" x ".utf8)[...]) == Array("x".utf8)[...])
    }

    /// The first CR or LF at or after `start`, a byte at a time: what `lineBreak(in:from:)` must find.
    static func naiveLineBreak(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != 0x0D, bytes[index] != 0x0A { index += 1 }
        return index
    }

    @Test("isFieldValue agrees with the byte-by-byte test, wherever the bad byte falls in the 8-byte steps")
    func fieldValue() {
        let interesting: [UInt8] = [0x00, 0x08, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0xA0, 0xFE, 0xFF]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for round in 0..<5_000 {
            let count = Int(next() % 40)
            // Mostly good bytes, with a few from the whole interesting set: lines that pass and fail.
            let bad = round % 3 == 0 ? 0 : 1 + Int(next() % 3)
            var bytes = (0..<count).map { _ in UInt8(0x20 + next() % 0x5F) }
            for _ in 0..<bad where count > 0 { bytes[Int(next()) % count] = interesting[Int(next()) % interesting.count] }
            let expected = bytes.allSatisfy(HTTPHeadWriter.isFieldValueByte)
            #expect(bytes.withUnsafeBufferPointer { HTTPTokens.isFieldValue($0) } == expected, "bytes \(bytes)")
        }
        for byte in UInt8.min...UInt8.max {
            for position in 0..<17 {
                var bytes = [UInt8](repeating: 0x61, count: 17)
                bytes[position] = byte
                #expect(bytes.withUnsafeBufferPointer { HTTPTokens.isFieldValue($0) } == HTTPHeadWriter.isFieldValueByte(byte),
                        "byte \(byte) at \(position)")
            }
        }
    }

    @Test("lineBreak finds the first CR or LF from every start, wherever it lies in the 8-byte steps")
    func lineBreak() {
        var rng = Connection.SeededGenerator(seed: 0x1F0D)
        // Lengths around the step, breaks anywhere or nowhere, and bytes that differ from CR or LF
        // by one bit or by the borrow's reach (0x0C, 0x0E, 0x0B, 0x09, 0x8D, 0x8A, 0x00, 0xFF).
        let alphabet: [UInt8] = [0x41, 0x20, 0x0C, 0x0E, 0x0B, 0x09, 0x8D, 0x8A, 0x00, 0xFF, 0x01, 0x7F]
        for _ in 0..<3_000 {
            let count = Int(rng.next() % 40)
            var bytes = (0..<count).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let breaks = count == 0 ? 0 : Int(rng.next() % 3)
            for _ in 0..<breaks { bytes[Int(rng.next() % UInt64(count))] = rng.next() % 2 == 0 ? 0x0D : 0x0A }
            bytes.withUnsafeBytes { raw in
                for start in 0...(count + 1) {
                    #expect(HTTPTokens.lineBreak(in: raw, from: start) == Self.naiveLineBreak(bytes, from: start),
                            "\(bytes) from \(start)")
                }
            }
        }
    }

    @Test("lineEnd finds what lineBreak finds, and says whether a control byte but HTAB, or DEL, comes before it, from every start")
    func lineEnd() {
        var rng = Connection.SeededGenerator(seed: 0x11E5)
        // Bytes next to the classes' edges: controls, HTAB, SP, DEL, obs-text, and CR and LF.
        let alphabet: [UInt8] = [0x41, 0x20, 0x21, 0x09, 0x08, 0x0C, 0x0E, 0x1F, 0x00, 0x7E, 0x7F, 0x80, 0xFF, 0x8D, 0x8A, 0x61]
        for round in 0..<3_000 {
            let count = Int(rng.next() % 40)
            // Mostly clean bytes, so that both answers come up.
            var bytes = (0..<count).map { _ in round % 2 == 0 ? UInt8(0x20 + rng.next() % 0x5F)
                                                               : alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let breaks = count == 0 ? 0 : Int(rng.next() % 3)
            for _ in 0..<breaks { bytes[Int(rng.next() % UInt64(count))] = rng.next() % 2 == 0 ? 0x0D : 0x0A }
            bytes.withUnsafeBytes { raw in
                for start in 0...(count + 1) {
                    let end = Self.naiveLineBreak(bytes, from: start)
                    let clean = start >= end || bytes[start..<end].allSatisfy(HTTPHeadWriter.isFieldValueByte)
                    let found = HTTPTokens.lineEnd(in: raw, from: start)
                    #expect(found.end == end && found.clean == clean, "\(bytes) from \(start)")
                }
            }
        }
    }

    @Test("A name's letters, digits and hyphens are counted eight at a time up to the first other byte")
    func alphanumericOrHyphenPrefix() {
        var rng = Connection.SeededGenerator(seed: 0xA1F4)
        func isCommon(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D
        }
        // Every byte value, in every place of a run of letters.
        for byte in UInt8.min...UInt8.max {
            for place in 0..<20 {
                var bytes = [UInt8](repeating: 0x61, count: 20)
                bytes[place] = byte
                let counted = bytes.withUnsafeBufferPointer { HTTPTokens.alphanumericOrHyphenPrefix($0) }
                let run = bytes.firstIndex { !isCommon($0) } ?? bytes.count
                #expect(counted <= run && (counted == run || bytes.count - counted < 8), "byte \(byte) at \(place): \(counted)")
            }
        }
        for _ in 0..<2_000 {
            let count = Int(rng.next() % 40)
            let bytes = (0..<count).map { _ in rng.next() % 4 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : UInt8(0x41 + rng.next() % 26) }
            let counted = bytes.withUnsafeBufferPointer { HTTPTokens.alphanumericOrHyphenPrefix($0) }
            let run = bytes.firstIndex { !isCommon($0) } ?? bytes.count
            #expect(counted <= run && (counted == run || bytes.count - counted < 8), "\(bytes): \(counted)")
        }
    }

    @Test("A byte range is found in each byte of a word exactly, whatever the neighbouring bytes")
    func byteWordRanges() {
        var rng = Connection.SeededGenerator(seed: 0xB17E)
        let ranges: [(UInt8, UInt8)] = [(0x41, 0x5A), (0x61, 0x7A), (0x30, 0x39), (0x2D, 0x2D), (0x2B, 0x2B), (0x01, 0x7F), (0x7F, 0x7F)]
        for (lo, hi) in ranges {
            for _ in 0..<200 {
                var bytes = (0..<8).map { _ in UInt8(rng.next() % 0x80) }
                // Every value in one lane, beside random neighbours.
                let lane = Int(rng.next() % 8)
                for value in UInt8(0)..<0x80 {
                    bytes[lane] = value
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let found = ByteWords.inRange(word, lo, hi)
                    for i in 0..<8 {
                        let flagged = found >> (8 * UInt64(i) + 7) & 1 == 1
                        #expect(flagged == (bytes[i] >= lo && bytes[i] <= hi), "\(bytes) lane \(i) in \(lo)...\(hi)")
                    }
                    #expect(found & ~ByteWords.highs == 0)
                }
            }
        }
    }
}
