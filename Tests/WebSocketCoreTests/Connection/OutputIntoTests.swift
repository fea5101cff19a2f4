// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
@testable import WebSocketCore

@Suite("takeOutput(into:) and send(textUTF8:): output into the caller's array, text from bytes validated once")
struct OutputIntoTests {
    @Test("takeOutput(into:) gives the bytes takeOutput() gives: one piece, after a partial write, with prepared messages")
    func sameBytes() throws {
        let (_, server) = try openPair()
        let prepared = Connection.PreparedMessage(text: "to everyone")
        func load(_ connection: inout Connection) throws {
            try connection.send(text: "one")
            try connection.send(prepared)
            try connection.send(binary: [UInt8](repeating: 7, count: 300))
        }
        var a = server, b = server
        try load(&a)
        try load(&b)
        var buffer: [UInt8] = [1, 2, 3]  // what it held goes
        b.takeOutput(into: &buffer)
        #expect(buffer == a.takeOutput())
        #expect(b.pendingOutputCount == 0)

        // One piece, partly written first.
        var c = server, d = server
        try c.send(binary: [UInt8](repeating: 9, count: 1_000))
        try d.send(binary: [UInt8](repeating: 9, count: 1_000))
        c.withPendingOutput { $0.count > 10 ? 10 : $0.count }
        d.withPendingOutput { $0.count > 10 ? 10 : $0.count }
        d.takeOutput(into: &buffer)
        #expect(buffer == c.takeOutput())
        try d.send(text: "after")
        d.takeOutput(into: &buffer)
        try c.send(text: "after")
        #expect(buffer == c.takeOutput())
    }

    @Test("A loop that hands the same array back allocates nothing for its output once both have grown")
    func noAllocationInSteadyState() throws {
        var (_, server) = try openPair()
        var buffer: [UInt8] = []
        let payload = [UInt8](repeating: 5, count: 512)
        for _ in 0..<10 {  // warm-up: both arrays reach their size
            try server.send(binary: payload)
            server.takeOutput(into: &buffer)
        }
        let before = allocation_count_for_current_thread()
        var written = 0
        for _ in 0..<1_000 {
            try server.send(binary: payload)
            server.takeOutput(into: &buffer)
            written += buffer.count
        }
        #expect(allocation_count_for_current_thread() - before == 0)
        #expect(written == 1_000 * (512 + 4))
    }

    @Test("send(textUTF8:) sends valid UTF-8 as text, refuses invalid bytes and sends nothing")
    func textFromBytes() throws {
        var (client, server) = try openPair()
        let text = "héllo, 世界 😀"
        try client.send(textUTF8: Array(text.utf8))
        try client.send(textUTF8: Array(text.utf8)[...])  // a slice, also contiguous
        #expect(pump(&client, into: &server) == [.text(text), .text(text)])
        for invalid: [UInt8] in [[0xFF], [0xC3], [0xE4, 0xB8], [0xED, 0xA0, 0x80], [0x61, 0xC0, 0xAF]] {
            #expect(throws: Connection.UsageError.invalidUTF8) { try client.send(textUTF8: invalid) }
        }
        #expect(client.pendingOutputCount == 0)
        // Not contiguous: a lazy collection goes through an array, validated the same.
        try client.send(textUTF8: text.utf8.lazy.map { $0 })
        #expect(pump(&client, into: &server) == [.text(text)])
    }
}
