// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Output after a partial write")
struct PartialWriteTests {
    @Test("takeOutput after withPendingOutput wrote part of the output returns exactly the rest", arguments: [1, 3, 6])
    func takeOutputAfterPartialWrite(written count: Int) throws {
        var (client, server) = try openPair()
        try server.send(text: "hello")
        try server.ping([9])
        var reference = server
        let all = reference.takeOutput()
        var first: [UInt8] = []
        server.withPendingOutput { bytes in
            first = Array(bytes.prefix(count))
            return count
        }
        #expect(server.pendingOutputCount == all.count - count)
        let rest = server.takeOutput()
        #expect(first + rest == all)
        #expect(server.pendingOutputCount == 0)
        #expect(server.takeOutput().isEmpty)
        client.receive(first + rest)
        #expect(drain(&client) == [.text("hello"), .ping([9])])
    }

    @Test("Writes of any size, with sends between them, give the bytes in order: the written prefix moved down (4 KiB and more) and the buffer's room reused",
          arguments: [1, 700, 5_000, 9_999])
    func partialWritesWithSendsBetween(chunk: Int) throws {
        var (client, server) = try openPair()
        var reference = server
        var expected: [UInt8] = []
        var written: [UInt8] = []
        // Messages of growing and shrinking sizes, sent in rounds between writes of `chunk` bytes:
        // the pending bytes start past 4 KiB of written ones (moved down), and after everything
        // is written, the next frames go into the room the buffer keeps.
        let sizes = [3_000, 10, 6_000, 0, 125, 126, 70_000, 1]
        var messages: [[UInt8]] = []
        for round in 0..<24 {
            let payload = (0..<sizes[round % sizes.count]).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
            messages.append(payload)
            try server.send(binary: payload)
            try reference.send(binary: payload)
            expected += reference.takeOutput()
            for _ in 0..<(round % 3 + 1) {
                server.withPendingOutput { bytes in
                    let count = min(chunk, bytes.count)
                    written += bytes.prefix(count)
                    return count
                }
            }
        }
        while server.pendingOutputCount > 0 {
            server.withPendingOutput { bytes in
                written += bytes.prefix(chunk)
                return min(chunk, bytes.count)
            }
        }
        #expect(written == expected)
        client.receive(written)
        #expect(drain(&client) == messages.map { .binary($0) })
    }

    @Test("An array handed back to takeOutput(into:) holding more bytes than the next output comes back holding exactly that output")
    func takeOutputIntoAShorterOutput() throws {
        var (_, server) = try openPair()
        var buffer: [UInt8] = []
        try server.send(binary: [UInt8](repeating: 1, count: 1_000))
        server.takeOutput(into: &buffer)
        #expect(buffer.count == 1_004)
        try server.send(binary: [UInt8](repeating: 2, count: 2_000))
        server.takeOutput(into: &buffer)   // the 1,004-byte array becomes the connection's room
        #expect(buffer.count == 2_004)
        try server.send(binary: [7, 8, 9])   // written into that room
        server.takeOutput(into: &buffer)
        #expect(buffer == [0x82, 3, 7, 8, 9])
        #expect(server.pendingOutputCount == 0)
        try server.send(text: "hi")
        #expect(server.takeOutput() == [0x81, 2, UInt8(ascii: "h"), UInt8(ascii: "i")])
    }
}
