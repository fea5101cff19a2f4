// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing

/// The tests' JSON reader itself, so that a `--jsonl` failure is the tool's and not the reader's.
@Suite("The tests' JSON reader")
struct MiniJSONTests {
    @Test("An event line: strings with escapes, numbers, booleans, null, nesting")
    func parses() {
        let json = JSON(parsing: #"{"type":"text","time":0.25,"data":"a\"b\\c\n\u00e9\ud83d\ude00","clean":true,"x":null,"list":[1,-2e3,{}]}"#)
        #expect(json?["type"]?.string == "text")
        #expect(json?["time"]?.number == 0.25)
        #expect(json?["data"]?.string == "a\"b\\c\né😀")
        #expect(json?["clean"]?.bool == true)
        #expect(json?["x"] == .null)
        #expect(json?["list"] == .array([.number(1), .number(-2000), .object([:])]))
    }

    @Test("Not JSON: rejected", arguments: ["", "{", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":\"\u{01}\"}", "{} x", "text", "{\"a\":tru}"])
    func rejects(text: String) {
        #expect(JSON(parsing: text) == nil)
    }
}
