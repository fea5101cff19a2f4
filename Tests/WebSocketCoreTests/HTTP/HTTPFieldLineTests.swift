// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// A field line (RFC 9112 §5, RFC 9110 §5.5) is parsed in one pass over its bytes: these cases hold it
/// to the grammar, read here as directly as it is written.
@Suite("HTTP field lines")
struct HTTPFieldLineTests {
    /// The grammar, spelled out: `field-name ":" OWS field-value OWS`, a token name, a value of
    /// field-vchar, SP and HTAB (obs-text included, decoded with repair).
    private static func expected(_ line: [UInt8]) -> Connection.HTTPHeaders.Field? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = Array(line[..<colon])
        guard !name.isEmpty, name.allSatisfy(HTTPTokens.isTokenChar) else { return nil }
        var value = Array(line[(colon + 1)...])
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        guard value.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else { return nil }
        return Connection.HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self),
                                            value: String(decoding: value, as: UTF8.self))
    }

    private static func parsed(_ line: [UInt8]) -> Connection.HTTPHeaders.Field? {
        guard case .success(let field) = HTTPLineParser.field(line[...]) else { return nil }
        return field
    }

    @Test("Lines written out: names, colons, whitespace, control bytes, obs-text")
    func writtenCases() {
        let lines = [
            "Host: example.com", "Host:example.com", "Host:   example.com  \t", "Host:", "Host: \t ", ":value",
            "Host : example.com", " Host: example.com", "Ho st: x", "Host", "X-Empty:", "a:b:c", "Key: a\u{7F}b",
            "Key: a\tb", "Key: a\u{01}b", "Key: caf\u{E9}", "!#$%&'*+-.^_`|~09azAZ: v",
            // Known names cut short, run on, or followed by something else than their colon.
            "Hos", "Host", "Host;x", "Hostx: v", "Host :v", "Upgr", "Upgrad", "Upgrade", "Upgrade x: v", "Upgrade:",
            "User-Agen", "User-Agent", "User-Agent:", "UpgradeUser: v", "Sec-WebSocket-", "Sec-WebSocket-K",
            "Sec-WebSocket-Key", "Sec-WebSocket-Key : v", "Sec-WebSocket-Keys: v", "Sec-WebSocket-X: v",
            "Sec-WebSocket-Version\t: 13", "Sec-WebSocket-Extensions:", "Sec-WebSocket-Protocol:chat",
            "Connection:Upgrade", "Origin: https://a", "Origin\u{00}: x", "O: x", "C", "S", "U", "H:",
        ].map { Array($0.utf8) } + [[0x4B, 0x3A, 0x20, 0xFF, 0xFE], [0x4B, 0x3A, 0x00], [0x4B, 0x3A, 0x0D, 0x0A], []]
        for line in lines {
            #expect(Self.parsed(line) == Self.expected(line), "line \(line)")
        }
    }

    @Test("Known names come out as sent: exact spellings, other cases, and other names of their lengths")
    func knownNames() {
        let names = [
            "Host", "host", "HOST", "Hosx", "Origin", "origin", "Originx", "Upgrade", "upgradE", "Upgradx",
            "Connection", "connection", "User-Agent", "user-agent", "Connectiox", "Cser-Agent", "User-Agenx",
            "Sec-WebSocket-Key", "sec-websocket-key", "Sec-WebSocket-Kex", "Sec-WebSocket-Version",
            "Sec-Websocket-Version", "Sec-WebSocket-Protocol", "Sec-WebSocket-Protocox", "Sec-WebSocket-Extensions",
            "SEC-WEBSOCKET-EXTENSIONS", "Sec-WebSocket-Extensionx", "X", "Content-Length",
        ]
        for name in names {
            let line = Array("\(name): v".utf8)
            #expect(Self.parsed(line) == Self.expected(line), "name \(name)")
            #expect(Self.parsed(line)?.name == name, "name \(name)")
        }
        // The request line's method: the literal for GET, as sent otherwise.
        for method in ["GET", "get", "GEX", "POST", "G"] {
            guard case .success(let line) = Array("\(method) / HTTP/1.1".utf8).withUnsafeBufferPointer({ HTTPLineParser.requestLine($0) }) else {
                Issue.record("request line with \(method) refused")
                continue
            }
            #expect(line.method == method)
        }
    }

    @Test("Each known name is found exactly as spelled, at a line's start; a byte changed anywhere in it, or a name cut short, is not")
    func knownNameTable() {
        for known in KnownFieldName.allCases {
            let text = known.text.withUTF8Buffer { Array($0) }
            #expect(Array(known.string.utf8) == text, "\(known)")
            #expect(known.count == text.count)
            let line = text + Array(": v".utf8)
            #expect(line.withUnsafeBufferPointer { KnownFieldName(startOf: $0) } == known)
            #expect(line.withUnsafeBufferPointer { KnownFieldName(before: $0) } == known)
            #expect(text.withUnsafeBufferPointer { KnownFieldName(startOf: $0) } == known)
            // No colon after it (a longer name), or nothing after it: not a field of that name.
            #expect((text + Array("x: v".utf8)).withUnsafeBufferPointer { KnownFieldName(before: $0) } == nil)
            #expect(text.withUnsafeBufferPointer { KnownFieldName(before: $0) } == nil)
            #expect(Array(text.dropLast()).withUnsafeBufferPointer { KnownFieldName(startOf: $0) } == nil)
            for place in text.indices {
                for change: UInt8 in [0x20, 0x01, 0x80] {
                    var changed = line
                    changed[place] ^= change
                    #expect(changed.withUnsafeBufferPointer { KnownFieldName(startOf: $0) } == nil,
                            "\(known) with byte \(place) changed by \(change)")
                }
            }
        }
    }

    @Test("Random lines agree with the grammar")
    func randomLines() {
        // A fixed seed: the same lines on every run.
        var generator = FixedGenerator((0..<64).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 ^ 0x5DEE_CE66 })
        let alphabet: [UInt8] = Array("Hk-:_ \t~".utf8) + [0x00, 0x0D, 0x7F, 0x80, 0xC3, 0xA9, 0xFF, 0x3A]
        var state = generator.next()
        for _ in 0..<5_000 {
            var line: [UInt8] = []
            state = state &* 6_364_136_223_846_793_005 &+ generator.next()
            let count = Int(state >> 59)
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                line.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            #expect(Self.parsed(line) == Self.expected(line), "line \(line)")
        }
    }
}
