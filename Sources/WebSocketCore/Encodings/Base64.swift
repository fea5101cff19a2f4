// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Base64 with the standard alphabet and padding (RFC 4648 §4), as the opening handshake uses it.
///
/// Every server handshake decodes the client's key (to check it is 16 bytes) and encodes the accept
/// value: both work on contiguous bytes, with no intermediate array, and the handshake's own calls
/// (``decodedCount(_:)``, ``encode(_:appendingTo:)``) allocate nothing.
package enum Base64 {
    /// Encodes bytes as padded base64.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        let done: Void? = bytes.withContiguousStorageIfAvailable { encode(UnsafeRawBufferPointer($0), appendingTo: &out) }
        if done == nil { Array(bytes).withUnsafeBytes { encode($0, appendingTo: &out) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the padded base64 of `bytes` to `out`, in one pass: each symbol read from the
    /// alphabet by its value, the whole run written in a temporary buffer and appended at once.
    /// (Written in place past the array's end after growing it by zeros, a generic append, and each
    /// symbol chosen by comparisons: about 750 instructions for the 28 bytes of an accept value;
    /// appended a symbol at a time, about 590 before that.)
    package static func encode(_ bytes: UnsafeRawBufferPointer, appendingTo out: inout [UInt8]) {
        let count = (bytes.count + 2) / 3 * 4
        guard count > 0 else { return }
        // A literal: its bytes are constant data, read through a pointer with no lazy initializer
        // to check.
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let symbols = alphabet.utf8Start
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            guard let target = buffer.baseAddress else { return }
            var i = 0
            var o = 0
            while bytes.count &- i >= 3 {
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i &+ 1]) << 8 | UInt32(bytes[i &+ 2])
                target[o] = symbols[Int(n >> 18)]
                target[o &+ 1] = symbols[Int(n >> 12 & 63)]
                target[o &+ 2] = symbols[Int(n >> 6 & 63)]
                target[o &+ 3] = symbols[Int(n & 63)]
                i &+= 3
                o &+= 4
            }
            switch bytes.count &- i {
            case 1:
                let n = UInt32(bytes[i]) << 16
                target[o] = symbols[Int(n >> 18)]
                target[o &+ 1] = symbols[Int(n >> 12 & 63)]
                target[o &+ 2] = UInt8(ascii: "=")
                target[o &+ 3] = UInt8(ascii: "=")
            case 2:
                let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i &+ 1]) << 8
                target[o] = symbols[Int(n >> 18)]
                target[o &+ 1] = symbols[Int(n >> 12 & 63)]
                target[o &+ 2] = symbols[Int(n >> 6 & 63)]
                target[o &+ 3] = UInt8(ascii: "=")
            default:
                break
            }
            out.append(contentsOf: UnsafeBufferPointer(start: target, count: count))
        }
    }

    /// Decodes strict padded base64: the length is a multiple of 4, padding only at the end, no
    /// whitespace, and the unused bits of the last symbol are zero (RFC 4648 §3.5 canonical encoding).
    /// Returns `nil` for anything else.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var out: [UInt8] = []
        let valid = withUTF8(of: text) { input in
            out.reserveCapacity(input.count / 4 * 3)
            return decode(input) { out.append($0) }
        }
        return valid ? out : nil
    }

    /// How many bytes ``decode(_:)`` would return, without making them; `nil` where it returns `nil`.
    package static func decodedCount(_ text: some StringProtocol) -> Int? {
        var count = 0
        let valid = withUTF8(of: text) { input in decode(input) { _ in count += 1 } }
        return valid ? count : nil
    }

    /// Whether `bytes` is strict padded base64 of exactly 16 bytes (``decodedCount(_:)`` 16), as
    /// a valid `Sec-WebSocket-Key` is (RFC 6455 §4.2.1 item 5): 22 symbols and `==`, the last
    /// symbol carrying two bits of the 16th byte and four zero bits (so `A`, `Q`, `g` or `w`).
    /// The symbols are tested eight at a time (``areSymbols(_:)``), the last word overlapping the
    /// one before: the general decoder spent about 400 instructions on a key, a test a byte at a
    /// time about 250.
    static func isSixteenBytesEncoded(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 24, let base = bytes.baseAddress,
              base[22] == UInt8(ascii: "="), base[23] == UInt8(ascii: "=") else { return false }
        let raw = UnsafeRawPointer(base)
        guard areSymbols(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
              areSymbols(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
              areSymbols(raw.loadUnaligned(fromByteOffset: 14, as: UInt64.self)) else { return false }
        let last = base[21]
        return last == UInt8(ascii: "A") || last == UInt8(ascii: "Q") || last == UInt8(ascii: "g") || last == UInt8(ascii: "w")
    }

    /// Whether each of the eight bytes of `word` is a symbol of the alphabet (`A-Z a-z 0-9 + /`),
    /// whatever their order (``ByteWords/inRange(_:_:_:)``).
    @inline(__always)
    private static func areSymbols(_ word: UInt64) -> Bool {
        guard word & ByteWords.highs == 0 else { return false }
        let symbols = ByteWords.inRange(word, UInt8(ascii: "A"), UInt8(ascii: "Z"))
            | ByteWords.inRange(word, UInt8(ascii: "a"), UInt8(ascii: "z"))
            | ByteWords.inRange(word, UInt8(ascii: "0"), UInt8(ascii: "9"))
            | ByteWords.inRange(word, UInt8(ascii: "+"), UInt8(ascii: "+"))
            | ByteWords.inRange(word, UInt8(ascii: "/"), UInt8(ascii: "/"))
        return symbols == ByteWords.highs
    }

    /// The one decoder: hands each decoded byte of `input` to `emit`, in order, and returns whether
    /// all of `input` is strict padded base64 (bytes already emitted are then meaningless).
    @inline(__always)
    private static func decode(_ input: UnsafeBufferPointer<UInt8>, _ emit: (UInt8) -> Void) -> Bool {
        guard input.count % 4 == 0 else { return false }
        let pad = UInt8(ascii: "=")
        var i = 0
        while i < input.count {
            let (c0, c1, c2, c3) = (input[i], input[i + 1], input[i + 2], input[i + 3])
            guard let v0 = value(of: c0), let v1 = value(of: c1) else { return false }
            var n = v0 << 18 | v1 << 12
            // Padding only in the last quantum, only in its last two places, and only at its end:
            // "xx==" or "xxx=". Elsewhere `=` is no symbol, and `value(of:)` refuses it.
            if c3 == pad, i + 4 == input.count {
                if c2 == pad {
                    guard n & 0xFFFF == 0 else { return false }
                    emit(UInt8(truncatingIfNeeded: n >> 16))
                } else {
                    guard let v2 = value(of: c2) else { return false }
                    n |= v2 << 6
                    guard n & 0xFF == 0 else { return false }
                    emit(UInt8(truncatingIfNeeded: n >> 16))
                    emit(UInt8(truncatingIfNeeded: n >> 8))
                }
            } else {
                guard let v2 = value(of: c2), let v3 = value(of: c3) else { return false }
                n |= v2 << 6 | v3
                emit(UInt8(truncatingIfNeeded: n >> 16))
                emit(UInt8(truncatingIfNeeded: n >> 8))
                emit(UInt8(truncatingIfNeeded: n))
            }
            i += 4
        }
        return true
    }

    /// `body` over the text's UTF-8 where it lies (a native string's always does), else over a copy.
    @inline(__always)
    private static func withUTF8(of text: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    private static func value(of c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(c - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
