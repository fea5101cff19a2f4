// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Hexadecimal digits and percent-encoding (RFC 3986 §2.1), written once for the URL parser and
/// printer, the client's request target, the chunked-body reader, and (at `package` access) the
/// transport's proxy URLs.
///
/// Encoding writes upper-case digits, as §2.1 says producers should; decoding takes either case.
package enum PercentEncoding {
    /// The value of one hexadecimal digit, either case; `nil` for any other byte.
    @inline(__always)
    package static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    package static func isHex(_ b: UInt8) -> Bool { hexValue(b) != nil }

    /// Appends `%XX` for `b`.
    package static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { hex in
            out.append(UInt8(ascii: "%"))
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0x0F)])
        }
    }

    /// The value of the escape `%XX` starting at `i`, or `nil` when there is none there (a `%` without
    /// two hex digits after it, or `i` outside the bytes).
    package static func escape(in bytes: ArraySlice<UInt8>, at i: Int) -> UInt8? {
        guard i >= bytes.startIndex, i < bytes.endIndex, bytes.endIndex - i >= 3, bytes[i] == UInt8(ascii: "%"),
              let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else { return nil }
        return hi << 4 | lo
    }

    /// `bytes` with every byte that `keeps` refuses written as `%XX`. With `keepingEscapes`, a `%`
    /// that starts a valid escape stays as written (so encoding is idempotent) and any other `%` is
    /// encoded as `%25`; without it, every `%` that `keeps` refuses is encoded.
    package static func encode(_ bytes: some Collection<UInt8>, keepingEscapes: Bool = false,
                       keeps: (UInt8) -> Bool) -> [UInt8] {
        let text = ArraySlice(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let b = text[i]
            if keepingEscapes, b == UInt8(ascii: "%"), escape(in: text, at: i) != nil {
                out.append(contentsOf: text[i..<(i + 3)])
                i += 3
                continue
            }
            if keeps(b) && !(keepingEscapes && b == UInt8(ascii: "%")) {
                out.append(b)
            } else {
                appendEscape(b, to: &out)
            }
            i += 1
        }
        return out
    }

    /// `text` with every escape decoded, or `nil` when a `%` is not followed by two hex digits. The
    /// result is bytes: whether they are valid UTF-8 is the caller's question.
    package static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == UInt8(ascii: "%") {
                guard let b = escape(in: text, at: i) else { return nil }
                out.append(b)
                i += 3
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return out
    }

    /// Whether `bytes` are valid UTF-8, by the validator text frames go through (no `String` round
    /// trip, and nothing newer than the package's platforms).
    package static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }
}
