// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The token grammar of HTTP (RFC 9110 §5.6.2) and the comma-separated lists built from it
/// (RFC 9110 §5.6.1), as the opening handshake reads `Connection`, `Upgrade` and
/// `Sec-WebSocket-Protocol`.
package enum HTTPTokens {
    /// The index of the first CR or LF in `bytes` at or after `start`; `bytes.count` when there is
    /// none (and `start` itself when it is past the end).
    ///
    /// Eight bytes a step (SWAR): XORed with a run of CRs, and with a run of LFs, a word has a zero
    /// byte where it held one of them. `(x - 0x01…01) & ~x & 0x80…80` sets the high bit of every
    /// zero byte, and of no byte before the first zero one (a borrow only runs upwards from a
    /// zero), so the lowest bit set in either word is the first line break. Read a byte at a time,
    /// a head's lines cost about five instructions a byte, a tenth of an opening handshake's parse.
    @inline(__always)
    static func lineBreak(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let ones = ByteWords.ones, highs = ByteWords.highs
        var index = start
        while index >= 0, index <= bytes.count &- 8 {
            // Little-endian whatever the platform: byte `index` is the word's lowest.
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let cr = word ^ (0x0D &* ones)
            let lf = word ^ (0x0A &* ones)
            let found = (((cr &- ones) & ~cr) | ((lf &- ones) & ~lf)) & highs
            if found != 0 { return index &+ found.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        while index < bytes.count, bytes[index] != 0x0D, bytes[index] != 0x0A { index &+= 1 }
        return index
    }

    /// ``lineBreak(in:from:)``, and whether the bytes before it are clean: none of them a control
    /// character but HTAB, or DEL. A clean field line's value needs no ``isFieldValue(_:)`` pass:
    /// what is left (HTAB, SP, VCHAR, obs-text) is what a value may hold (RFC 9110 §5.5).
    ///
    /// One scan for both, eight bytes a step: `(x - 0x20…20) & ~x & 0x80…80` flags the bytes below
    /// 0x20 (CR and LF among them), the zero test of `x ^ 0x7F…7F` flags DEL, and the lowest flag of
    /// either is a true one (a borrow only runs upwards from a flagged byte). Only a word with a
    /// flag is read again byte by byte, from that flag: the line's own CR or LF, nearly always. The
    /// two scans it replaces, for the break and for the value, went over most of each line twice.
    @inline(__always)
    static func lineEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> (end: Int, clean: Bool) {
        let ones = ByteWords.ones, highs = ByteWords.highs
        var clean = true
        var index = start
        while index >= 0, index <= bytes.count &- 8 {
            // Little-endian whatever the platform: byte `index` is the word's lowest.
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let delete = word ^ (ones &* 0x7F)
            let found = ((word &- ones &* 0x20) & ~word | (delete &- ones) & ~delete) & highs
            if found != 0 {
                var i = index &+ found.trailingZeroBitCount &>> 3
                while i < index &+ 8 {
                    let c = bytes[i]
                    if c == 0x0D || c == 0x0A { return (i, clean) }
                    if !HTTPHeadWriter.isFieldValueByte(c) { clean = false }
                    i &+= 1
                }
            }
            index &+= 8
        }
        while index < bytes.count {
            let c = bytes[index]
            if c == 0x0D || c == 0x0A { return (index, clean) }
            if !HTTPHeadWriter.isFieldValueByte(c) { clean = false }
            index &+= 1
        }
        return (index, clean)
    }

    /// Whether every byte of `bytes` may stand in a field value: HTAB, or 0x20 to 0xFF but DEL
    /// (RFC 9110 §5.5 `field-vchar`, SP, HTAB, obs-text; ``HTTPHeadWriter/isFieldValueByte(_:)``).
    ///
    /// Eight bytes a step, as ``lineBreak(in:from:)``: `(x - 0x20…20) & ~x & 0x80…80` is non-zero
    /// exactly when a byte of `x` is below 0x20, and the same test of `x ^ 0x7F…7F` against 0x01…01
    /// when one is DEL. Only a word where either fires is read again byte by byte (HTAB is allowed).
    /// A byte at a time, a handshake's values cost about eight instructions a byte.
    @inline(__always)
    static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let ones = ByteWords.ones, highs = ByteWords.highs
        var index = 0
        while bytes.count &- index >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word & highs
            let delete = word ^ (ones &* 0x7F)
            if control | ((delete &- ones) & ~delete & highs) != 0 {
                var i = index
                while i < index &+ 8 {
                    if !HTTPHeadWriter.isFieldValueByte(base[i]) { return false }
                    i &+= 1
                }
            }
            index &+= 8
        }
        while index < bytes.count {
            if !HTTPHeadWriter.isFieldValueByte(base[index]) { return false }
            index &+= 1
        }
        return true
    }

    /// RFC 9110 §5.6.2: `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_"
    /// / "`" / "|" / "~" / DIGIT / ALPHA`.
    /// One test per byte, against the set as two 64-bit masks (bit `c` of `low` for `c` < 64, bit
    /// `c - 64` of `high` below 128): a `switch` over the 15 symbols and 3 ranges cost about 13
    /// instructions a byte, and every field name of an opening handshake passes here.
    /// `HTTPTokensTests` checks them against the grammar's list for every byte value.
    @inline(__always)
    static func isTokenChar(_ c: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_6CFA_0000_0000   // ! # $ % & ' * + - . 0-9
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE  // A-Z ^ _ ` a-z | ~
        let mask = c < 64 ? low : c < 128 ? high : 0
        return mask &>> UInt64(c & 63) & 1 != 0
    }

    /// How many of the first bytes of `bytes` are letters, digits or `-`, the bytes of nearly every
    /// field name, counted eight at a time (``ByteWords/inRange(_:_:_:)``) while eight remain: at
    /// least that many are tchars, and the caller tests the rest a byte at a time
    /// (``isTokenChar(_:)``, about six instructions a byte). A count short of the run is no
    /// error: the byte test goes on from it.
    @inline(__always)
    static func alphanumericOrHyphenPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while bytes.count &- index >= 8 {
            // Little-endian whatever the platform: byte `index` is the word's lowest.
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // Each byte's low seven bits in range, and its high bit clear.
            let low = word & ~ByteWords.highs
            let common = (ByteWords.inRange(low, UInt8(ascii: "A"), UInt8(ascii: "Z"))
                | ByteWords.inRange(low, UInt8(ascii: "a"), UInt8(ascii: "z"))
                | ByteWords.inRange(low, UInt8(ascii: "0"), UInt8(ascii: "9"))
                | ByteWords.inRange(low, UInt8(ascii: "-"), UInt8(ascii: "-"))) & ~word
            if common != ByteWords.highs { return index &+ (~common & ByteWords.highs).trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        return index
    }

    /// RFC 9110 §5.6.2: `token = 1*tchar`.
    package static func isToken(_ s: some StringProtocol) -> Bool {
        isToken(s.utf8)
    }

    static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenChar)
    }

    /// RFC 9110 §5.6.3: `OWS = *( SP / HTAB )`.
    @inline(__always)
    static func isOWS(_ c: UInt8) -> Bool {
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\t")
    }

    /// The bytes without leading and trailing SP and HTAB.
    static func trimmingOWS(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes[owsTrimmed(bytes)]
    }

    /// The range of `bytes` without its leading and trailing OWS: the one trimming every list and
    /// field value goes through.
    static func owsTrimmed<Bytes: BidirectionalCollection>(_ bytes: Bytes) -> Range<Bytes.Index> where Bytes.Element == UInt8 {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper, isOWS(bytes[lower]) { lower = bytes.index(after: lower) }
        while upper > lower {
            let before = bytes.index(before: upper)
            guard isOWS(bytes[before]) else { break }
            upper = before
        }
        return lower..<upper
    }

    /// The elements of a comma-separated list spread over any number of field lines of the same name
    /// (RFC 9110 §5.3: several lines combine as if joined with commas), each trimmed of OWS. Empty
    /// elements are dropped: RFC 9110 §5.6.1.2 says a recipient "MUST parse and ignore a reasonable
    /// number of empty list elements". Nothing is validated; use ``tokenList(_:)`` for `#token`.
    static func listElements(_ values: [String]) -> [Substring] {
        var elements: [Substring] = []
        for value in values {
            for piece in value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = trimmingOWS(piece)
                if !trimmed.isEmpty { elements.append(trimmed) }
            }
        }
        return elements
    }

    /// The tokens of a `#token` list over several field lines, or `nil` when an element is not a token.
    /// Used for `Sec-WebSocket-Protocol` (RFC 6455 §4.3: `1#token`). An empty list is returned as `[]`;
    /// the caller decides whether an empty field is acceptable.
    static func tokenList(_ values: [String]) -> [String]? {
        var tokens: [String] = []
        for element in listElements(values) {
            guard isToken(element) else { return nil }
            tokens.append(String(element))
        }
        return tokens
    }

    /// Whether the comma-separated list in `bytes` has an element (trimmed of optional whitespace)
    /// equal to `token`, ignoring ASCII case (RFC 9110 §7.6.1: connection options are
    /// case-insensitive; RFC 6455 §4.2.1 items 3 and 4 ask for case-insensitive matches of
    /// `websocket` and `Upgrade`). Other elements are not validated, so `Upgrade: h2c/1, websocket`
    /// and `Connection: keep-alive, Upgrade` both match. Scanned where the bytes lie: an array of
    /// the elements cost about 10,000 instructions per opening handshake.
    static func listContains(_ bytes: UnsafeBufferPointer<UInt8>, _ token: UnsafeBufferPointer<UInt8>) -> Bool {
        // The value that is the token alone, as nearly every handshake's `Upgrade` and `Connection`
        // are: one pass, no split and no trim (about 70 instructions each per opening handshake).
        if isSoleElement(bytes, token) { return true }
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
            let element = owsTrimmed(bytes[start..<end])
            // Empty elements are not elements (RFC 9110 §5.6.1), as `listElements` skips them.
            if !element.isEmpty, asciiCaseInsensitiveEqualBytes(UnsafeBufferPointer(rebasing: bytes[element]), token) {
                return true
            }
            start = end + 1
        }
        return false
    }

    /// Whether `bytes`, a list, is exactly one element equal to `token` (ASCII case ignored): no OWS
    /// at either end and no comma, so that the split and trim of ``listContains(_:_:)`` would find
    /// that one element and nothing else. `false` says nothing about the other forms.
    @inline(__always)
    static func isSoleElement(_ bytes: UnsafeBufferPointer<UInt8>, _ token: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == token.count, let first = bytes.first, let last = bytes.last,
              !isOWS(first), !isOWS(last) else { return false }
        var index = 0
        while index < bytes.count {
            let x = bytes[index], y = token[index]
            if x == UInt8(ascii: ",") { return false }
            if x != y, asciiLowercased(x) != asciiLowercased(y) { return false }
            index &+= 1
        }
        return true
    }

    /// RFC 9110 §5.6.4: `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`, read from `bytes`
    /// at `index`, which must hold the opening DQUOTE. Returns the content with its escapes removed
    /// and leaves `index` after the closing DQUOTE; `nil` (with `index` anywhere) when the string is not
    /// closed or holds a byte that a field value may not (a control character).
    static func quotedString(_ bytes: [UInt8], at index: inout Int) -> [UInt8]? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var content: [UInt8] = []
        while index < bytes.count {
            let c = bytes[index]
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return content
            case UInt8(ascii: "\\"):
                // `quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )`
                guard index < bytes.count, HTTPHeadWriter.isFieldValueByte(bytes[index]) else { return nil }
                content.append(bytes[index])
                index += 1
            default:
                // `qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text`
                guard HTTPHeadWriter.isFieldValueByte(c) else { return nil }
                content.append(c)
            }
        }
        return nil  // unterminated
    }

    /// Trims OWS from a substring.
    static func trimmingOWS(_ s: Substring) -> Substring {
        s[owsTrimmed(s.utf8)]
    }
}
