// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore
@testable import WebSocketDeflate

@Suite("RFC 7692 §7.2.3 examples, byte for byte")
struct Deflate_RFC7692_7_Tests {
    static let hello = "Hello"

    @Test("§7.2.3.1: 'Hello' compressed in one frame, and in two fragments, decompresses")
    func decompressExamples() throws {
        var (client, _, _) = try deflatePair()
        client.receive([0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        #expect(drain(&client) == [.text("Hello")])
        client.receive([0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00])
        #expect(drain(&client) == [.text("Hello")])
    }

    @Test("§7.2.3.2: the second 'Hello' under context takeover uses the shared window")
    func sharedWindow() throws {
        var (_, server, _) = try deflatePair()
        try server.send(text: "Hello")
        #expect(server.takeOutput() == [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        try server.send(text: "Hello")
        #expect(server.takeOutput() == [0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
    }

    @Test("§7.2.3.2: the same two messages decompress on the client")
    func sharedWindowDecompress() throws {
        var (client, _, _) = try deflatePair()
        client.receive([0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00])
        #expect(drain(&client) == [.text("Hello"), .text("Hello")])
    }

    @Test("Without context takeover the second 'Hello' compresses like the first")
    func noContextTakeover() throws {
        var policy = PerMessageDeflate.ServerPolicy()
        policy.noContextTakeover = true
        var (client, server, extensions) = try deflatePair(server: PerMessageDeflate(serverPolicy: policy))
        #expect(extensions.first?.parameters.map(\.name) == ["server_no_context_takeover"])
        try server.send(text: "Hello")
        try server.send(text: "Hello")
        let wire = server.takeOutput()
        #expect(wire == [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00] + [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        client.receive(wire)
        #expect(drain(&client) == [.text("Hello"), .text("Hello")])
    }

    @Test("§7.2.3.3: a stored (uncompressed) DEFLATE block")
    func storedBlock() throws {
        var (client, _, _) = try deflatePair()
        client.receive([0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00])
        #expect(drain(&client) == [.text("Hello")])
    }

    @Test("§7.2.3.4: a block with BFINAL set")
    func finalBlock() throws {
        var (client, _, _) = try deflatePair()
        client.receive([0xc1, 0x08, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00])
        #expect(drain(&client) == [.text("Hello")])
        // The stream starts afresh for the next message.
        client.receive([0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
        #expect(drain(&client) == [.text("Hello")])
    }

    @Test("§7.2.3.5: two DEFLATE blocks in one message")
    func twoBlocks() throws {
        var (client, _, _) = try deflatePair()
        client.receive([0xc1, 0x0d, 0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00])
        #expect(drain(&client) == [.text("Hello")])
    }

    @Test("§7.2.3.6 and our choice: empty messages go out uncompressed, and compressed empty ones are read")
    func emptyMessages() throws {
        var (client, server, _) = try deflatePair()
        try server.send(text: "")
        #expect(server.takeOutput() == [0x81, 0x00])
        client.receive([0xc1, 0x01, 0x00])
        #expect(drain(&client) == [.text("")])
        client.receive([0xc1, 0x00])
        #expect(drain(&client) == [.text("")])
    }
}

@Suite("permessage-deflate failures: RSV1, corrupt data, bombs")
struct DeflateFailureTests {
    @Test("RSV1 on a continuation frame is 1002")
    func rsv1OnContinuation() throws {
        var (_, server, _) = try deflatePair()
        server.receive(clientFrame(0x41, [0xf2, 0x48]) + clientFrame(0xC0, [0xcd]))
        let events = drain(&server)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.reservedBitsSet)))
    }

    @Test("RSV1 on a control frame is 1002", arguments: [0xC9, 0xCA, 0xC8] as [UInt8])
    func rsv1OnControl(first: UInt8) throws {
        var (_, server, _) = try deflatePair()
        server.receive(clientFrame(first, []))
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.reservedBitsSet)))
    }

    @Test("RSV1 when deflate was not negotiated is 1002")
    func rsv1WithoutNegotiation() throws {
        var (_, server, extensions) = try deflatePair(client: nil)
        #expect(extensions.isEmpty)
        server.receive(clientFrame(0xC1, [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]))
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.reservedBitsSet)))
    }

    @Test("Corrupt compressed data is 1007")
    func corrupt() throws {
        var (client, _, _) = try deflatePair()
        client.receive(serverFrame(0xc1, [0xff, 0xff, 0xff, 0xff, 0x00]))
        let events = drain(&client)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.invalidTransformedData)))
        #expect(events.count == 2)
    }

    @Test("Trailing bytes after a final block are 1007")
    func trailingGarbage() throws {
        var (client, _, _) = try deflatePair()
        client.receive(serverFrame(0xc1, [0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x41, 0x42]))
        #expect(drain(&client).first == .protocolViolation(Connection.ProtocolViolation(.invalidTransformedData)))
    }

    @Test("Truncated streams end cleanly: a message or a 1007, never a trap or a hang", arguments: 1...6)
    func truncated(length: Int) throws {
        var (client, _, _) = try deflatePair()
        let hello: [UInt8] = [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]
        client.receive(serverFrame(0xc1, Array(hello.prefix(length))))
        let events = drain(&client)
        switch events.first {
        case .text?: #expect(events.count == 1)
        case .protocolViolation(let violation)?: #expect(violation.closeCode == .invalidPayloadData)
        default: Issue.record("unexpected \(events)")
        }
    }

    @Test("Invalid UTF-8 inside compressed text is 1007, found while inflating")
    func invalidUTF8() throws {
        var (client, server, _) = try deflatePair()
        try server.sendFragment([0x41, 0xC0, 0x80], kind: .binary, isFinal: true)
        var wire = server.takeOutput()
        wire[0] = 0xC1  // the same compressed bytes, claimed as text
        client.receive(wire)
        #expect(drain(&client).first == .protocolViolation(Connection.ProtocolViolation(.invalidUTF8)))
    }

    @Test("A 10 KiB bomb that inflates to 10 GiB fails with 1009 within the limit plus one chunk")
    func bomb() throws {
        let limit = 1 << 20
        var (client, server, _) = try deflatePair(clientConfig: configuration(PerMessageDeflate(), maxMessageSize: limit),
                                                  serverConfig: configuration(PerMessageDeflate(), maxMessageSize: 64 << 20))
        // 8 MiB of zeros per fragment compresses to about 8 KiB: a few fragments make an enormous message.
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        try server.sendFragment(zeros, kind: .binary, isFinal: false)
        let firstFragment = server.takeOutput()
        #expect(firstFragment.count < 16 << 10)
        client.receive(firstFragment)
        let events = drain(&client)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))
        #expect(client.retainedPayloadCapacity <= limit + InflateBox.chunkSize + 4096)
        #expect(decodeCloseCodes(client.takeOutput()) == [1009])
    }

    @Test("A bomb spread over many small compressed fragments fails with 1009 once the sum crosses the limit")
    func bombAcrossFragments() throws {
        let limit = 1 << 20
        var (client, server, _) = try deflatePair(clientConfig: configuration(PerMessageDeflate(), maxMessageSize: limit),
                                                  serverConfig: configuration(PerMessageDeflate(), maxMessageSize: 64 << 20))
        // 64 KiB of zeros per fragment, about 100 bytes on the wire each: the 17th crosses 1 MiB.
        let zeros = [UInt8](repeating: 0, count: 64 << 10)
        var events: [Connection.Event] = []
        var fragments = 0
        while events.isEmpty && fragments < 100 {
            try server.sendFragment(zeros, kind: .binary, isFinal: false)
            let wire = server.takeOutput()
            #expect(wire.count < 1024)
            client.receive(wire)
            events = drain(&client)
            fragments += 1
            #expect(client.retainedPayloadCapacity <= limit + InflateBox.chunkSize + 4096)
        }
        #expect(fragments == 17)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))
        #expect(decodeCloseCodes(client.takeOutput()) == [1009])
    }

    @Test("Fragment delivery bounds each decompressed piece by the message limit too")
    func bombWithFragmentDelivery() throws {
        var config = configuration(PerMessageDeflate(), maxMessageSize: 1 << 20)
        config.delivery = .fragments
        var (client, server, _) = try deflatePair(clientConfig: config)
        try server.send(binary: [UInt8](repeating: 0, count: 4 << 20))
        client.receive(server.takeOutput())
        let events = drain(&client)
        #expect(events.contains(.protocolViolation(Connection.ProtocolViolation(.messageTooLarge))))
    }

    func decodeCloseCodes(_ bytes: [UInt8]) -> [UInt16] {
        // A client's close frame: masked, short payload.
        guard bytes.count >= 8, bytes[0] == 0x88 else { return [] }
        let key = Array(bytes[2..<6])
        let payload = bytes[6...].enumerated().map { $0.element ^ key[$0.offset % 4] }
        return [UInt16(payload[0]) << 8 | UInt16(payload[1])]
    }
}
