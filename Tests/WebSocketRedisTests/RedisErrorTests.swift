// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketRedis

@Suite("RedisError: a server's text becomes one bounded line")
struct RedisErrorTests {
    @Test("Line breaks and other control characters from the server are escaped, never written raw")
    func controlCharactersEscaped() {
        let error = RedisError(.serverError, reason: "ERR one\r\ntwo\tthree\u{1B}[31m\u{7F}\u{85}end")
        #expect(error.reason == "ERR one\\r\\ntwo\\tthree\\u{1B}[31m\\u{7F}\\u{85}end")
        #expect(!error.description.contains("\n") && !error.description.contains("\r"))
        #expect(RedisError(.serverError, reason: "WRONGPASS é ✓").reason == "WRONGPASS é ✓")
    }

    @Test("A long text is cut to maxReasonLength characters, ending in an ellipsis; a short one is kept whole")
    func longTextCut() {
        let long = RedisError(.serverError, reason: String(repeating: "x", count: 100_000))
        #expect(long.reason.unicodeScalars.count == RedisError.maxReasonLength)
        #expect(long.reason.hasSuffix("…"))
        // Escapes count at their escaped length: a line of line breaks is cut as early.
        let breaks = RedisError(.serverError, reason: String(repeating: "\n", count: 10_000))
        #expect(breaks.reason.unicodeScalars.count <= RedisError.maxReasonLength)
        #expect(breaks.reason.hasPrefix("\\n\\n"))
        let short = String(repeating: "y", count: 100)
        #expect(RedisError(.timedOut, reason: short).reason == short)
    }
}
