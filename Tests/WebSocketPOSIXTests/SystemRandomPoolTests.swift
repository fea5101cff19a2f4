// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketPOSIX

@Suite("The masking-key pool")
struct SystemRandomPoolTests {
    @Test("Draws 64 words per fill, and they are not repeated")
    func refillsEvery64Words() {
        var pool = SystemRandomPool()
        var seen = Set<UInt64>()
        for _ in 0..<(2 * SystemRandomPool.wordCount + 2) { seen.insert(pool.next()) }
        #expect(pool.refills == 3)
        // 130 independent 64-bit values collide with probability below 1e-15.
        #expect(seen.count == 2 * SystemRandomPool.wordCount + 2)
        // Neither zeroed nor stuck: the bits vary.
        #expect(seen.reduce(0, |) == UInt64.max)
    }
}
