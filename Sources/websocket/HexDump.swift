// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Formats bytes as a hex dump: offset, 16 bytes in hex, and their printable ASCII.
func hexDump(_ bytes: [UInt8], indent: String = "    ", maxLines: Int = 12) -> String {
    var lines: [String] = []
    var offset = 0
    while offset < bytes.count {
        if lines.count == maxLines {
            lines.append("\(indent)... \(bytes.count - offset) more bytes")
            break
        }
        let row = bytes[offset..<min(offset + 16, bytes.count)]
        var hex = row.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined(separator: " ")
        hex += String(repeating: " ", count: max(0, 47 - hex.count))
        let ascii = String(row.map { (0x20..<0x7F).contains($0) ? Character(Unicode.Scalar($0)) : "." })
        let off = String(offset, radix: 16)
        lines.append("\(indent)\(String(repeating: "0", count: max(0, 4 - off.count)))\(off)  \(hex)  \(ascii)")
        offset += 16
    }
    return lines.joined(separator: "\n")
}
