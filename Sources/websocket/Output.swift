// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `message` to standard error, with a newline.
func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    writeAll(line, to: 2)
}

/// Writes `line` and a newline to standard output at once (unbuffered: each message shows as it
/// arrives, even through a pipe).
func printOut(_ line: String) {
    writeAll(line + "\n", to: 1)
}

/// Writes `bytes` to standard output as they are, at once.
func writeOut(_ bytes: [UInt8]) {
    writeAll(bytes, to: 1)
}

private func writeAll(_ text: String, to descriptor: Int32) {
    writeAll(Array(text.utf8), to: descriptor)
}

/// write(2) until all of `bytes` is written (the C `stdout`/`stderr` globals are shared mutable state
/// to Swift 6); `false` when the descriptor refuses more (a closed pipe).
@discardableResult
func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
    }
    return true
}

func exitProcess(_ status: Int32) -> Never {
    exit(status)
}

/// Lowercase hex of `bytes`.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
}
