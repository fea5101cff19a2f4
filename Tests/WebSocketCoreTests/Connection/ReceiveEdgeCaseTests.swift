// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Receiving: a text message that ends inside a character; output lent to a failing writer")
struct ReceiveEdgeCaseTests {
    @Test("A fragmented text message whose last fragment ends inside a UTF-8 sequence fails with 1007 (§8.1)",
          arguments: [Connection.Delivery.messages, .fragments])
    func fragmentedTextEndsMidCharacter(delivery: Connection.Delivery) throws {
        var config = Connection.Configuration()
        config.delivery = delivery
        var (_, server) = try openPair(server: config)
        // "κ" is CE BA: the message ends after CE.
        server.receive(clientFrame(0x1, Array("ab".utf8), fin: false) + clientFrame(0x0, [0x63, 0xCE], fin: true))
        let events = drain(&server)
        let violation = Connection.ProtocolViolation(.invalidUTF8)
        #expect(events.last == .closed(Connection.CloseStatus(code: .invalidPayloadData, reason: violation.reason, wasClean: false,
                                                    failure: .protocolViolation(violation))))
        #expect(events.contains(.protocolViolation(violation)))
        #expect(!events.contains { if case .text = $0 { return true } else { return false } })
        #expect(decodeFrames(server.takeOutput()).map(closeCode) == [1007])
    }

    @Test("The same message with its character completed in a third fragment is delivered")
    func fragmentedTextCompleted() throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x1, Array("ab".utf8), fin: false) + clientFrame(0x0, [0x63, 0xCE], fin: false)
                       + clientFrame(0x0, [0xBA], fin: true))
        #expect(drain(&server) == [.text("abcκ")])
    }

    struct WriteFailed: Error, Equatable {}

    @Test("withPendingOutput: the writer's error comes out typed, and the output stays pending, whole")
    func writerThrows() throws {
        var (client, _) = try openPair()
        try client.send(text: "hello")
        let pending = client.pendingOutputCount
        #expect(pending > 0)
        #expect(throws: WriteFailed()) {
            try client.withPendingOutput { (_: UnsafeRawBufferPointer) throws(WriteFailed) -> Int in throw WriteFailed() }
        }
        #expect(client.pendingOutputCount == pending)
        var written: [UInt8] = []
        client.withPendingOutput { bytes in
            written += bytes
            return bytes.count
        }
        #expect(client.pendingOutputCount == 0)
        #expect(decodeFrames(written).map(\.payload) == [Array("hello".utf8)])
    }
}
