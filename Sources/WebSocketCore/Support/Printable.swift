// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// What a peer sent, made safe for a log line or a terminal: the descriptions of errors and outcomes
// print only what passes through here.

/// `text` without control characters: what a peer sends must not drive a terminal.
func printable(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
}

/// `text` in quotes, escaped as a Swift string literal: what `String(reflecting:)` prints, which
/// Embedded Swift does not have (it has no reflection).
func quoted(_ text: String) -> String {
    var quoted = "\""
    for scalar in text.unicodeScalars { quoted += scalar.escaped(asASCII: false) }
    quoted += "\""
    return quoted
}
