// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Base64 with the standard alphabet and padding (RFC 4648 §4), as the opening handshake uses it.
package enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes as padded base64.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(UInt8(ascii: "="))
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes strict padded base64: the length is a multiple of 4, padding only at the end, no
    /// whitespace, and the unused bits of the last symbol are zero (RFC 4648 §3.5 canonical encoding).
    /// Returns `nil` for anything else.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var i = 0
        while i < input.count {
            let isLast = i + 4 == input.count
            var values: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
            var padding = 0
            for j in 0..<4 {
                let c = input[i + j]
                let v: UInt32
                if c == UInt8(ascii: "=") {
                    // Padding: only in the last quantum, only in the last two places, and only at the end.
                    guard isLast, j >= 2 else { return nil }
                    padding += 1
                    v = 0
                } else {
                    guard padding == 0, let d = value(of: c) else { return nil }
                    v = d
                }
                switch j {
                case 0: values.0 = v
                case 1: values.1 = v
                case 2: values.2 = v
                default: values.3 = v
                }
            }
            let n = values.0 << 18 | values.1 << 12 | values.2 << 6 | values.3
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            switch padding {
            case 0:
                out.append(UInt8(truncatingIfNeeded: n >> 8))
                out.append(UInt8(truncatingIfNeeded: n))
            case 1:
                guard n & 0xFF == 0 else { return nil }
                out.append(UInt8(truncatingIfNeeded: n >> 8))
            default:
                guard n & 0xFFFF == 0 else { return nil }
            }
            i += 4
        }
        return out
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
