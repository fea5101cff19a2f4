// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("answerNextEvent(_:): a lent message answered with its own bytes, no copy out")
struct LentReplyTests {
    /// Pulls every event of `connection`, answering each lent message with `reply`; the events seen.
    static func answerAll(_ connection: inout Connection, _ reply: (Connection.EventView) -> Connection.LentReply) throws -> [String] {
        var seen: [String] = []
        while try connection.answerNextEvent({ view in
            switch view {
            case .text(let bytes): seen.append("text \(bytes.count)")
            case .binary(let bytes): seen.append("binary \(bytes.count)")
            case .other(let event): seen.append("\(event)")
            }
            return reply(view)
        }) {}
        return seen
    }

    @Test("Echo in both roles: whole messages (the scratch buffer, the input), fragmented ones (the message buffer), text and binary")
    func echo() throws {
        var fragmented = Connection.Configuration()
        fragmented.fragmentationSize = 100
        var (client, server) = try openPair(client: fragmented, server: fragmented)
        let text = String(repeating: "é😀", count: 60)
        let binary = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try client.send(text: "short")
        try client.send(binary: [1, 2, 3])
        try client.send(text: text)          // fragmented: assembled in the message buffer
        try client.send(binary: binary)
        server.receive(client.takeOutput())
        #expect(try Self.answerAll(&server) { _ in .echo }.count == 4)
        // The client (unmasked frames, lent from its input) echoes back what it got.
        client.receive(server.takeOutput())
        var lentToClient: [String] = []
        while try client.answerNextEvent({ view in
            if case .text(let bytes) = view { lentToClient.append(String(decoding: bytes, as: UTF8.self)) }
            if case .binary(let bytes) = view { lentToClient.append("\(Array(bytes).count):\(Array(bytes).reduce(0, &+))") }
            return .echo
        }) {}
        #expect(lentToClient == ["short", "3:6", text, "1000:\(binary.reduce(0, &+))"])
        server.receive(client.takeOutput())
        #expect(drain(&server) == [.text("short"), .binary([1, 2, 3]), .text(text), .binary(binary)])
    }

    @Test("Parts: a binary range (clamped to the payload), a text range validated, .none sends nothing, other events pass")
    func parts() throws {
        var (client, server) = try openPair()
        try client.send(binary: Array(0..<10))
        try client.send(text: "héllo")          // é is two bytes: 1..<2 cuts it
        try client.send(text: "hello")
        try client.ping([7])
        server.receive(client.takeOutput())
        var replies: [Connection.LentReply] = [.binary(-5..<4), .text(1..<2), .none]
        var seen: [String] = []
        var refused = 0
        while true {
            do throws(Connection.UsageError) {
                let more = try server.answerNextEvent({ view in
                    if case .other(let event) = view { seen.append("\(event)"); return .echo }  // ignored
                    return replies.isEmpty ? .none : replies.removeFirst()
                })
                if !more { break }
            } catch {
                #expect(error == .invalidUTF8)
                refused += 1
            }
        }
        #expect(refused == 1)
        #expect(seen.count == 1)  // the ping
        client.receive(server.takeOutput())
        // The binary range clamped to 0..<4; the text part refused; nothing for the third; the pong.
        #expect(drain(&client) == [.binary([0, 1, 2, 3]), .pong([7])])
    }
}
