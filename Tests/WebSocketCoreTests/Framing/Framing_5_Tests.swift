// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("RFC 6455 §5.7 examples and framing (§5.2)")
struct Framing_5_Tests {
    static let hello = Array("Hello".utf8)

    @Test("§5.7: a client reads the unmasked single-frame and fragmented text examples")
    func clientReadsExamples() throws {
        var (client, _) = try openPair()
        client.receive([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        #expect(drain(&client) == [.text("Hello")])
        client.receive([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f])
        #expect(drain(&client) == [.text("Hello")])
        client.receive([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])
        #expect(drain(&client) == [.ping(Self.hello)])
        // The automatic pong is masked, and carries the ping's payload.
        let pong = decodeFrames(client.takeOutput())
        #expect(pong == [DecodedFrame(fin: true, opcode: 0xA, masked: true, payload: Self.hello)])
    }

    @Test("§5.7: a server reads the masked examples")
    func serverReadsMaskedExamples() throws {
        var (_, server) = try openPair()
        server.receive([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(drain(&server) == [.text("Hello")])
        server.receive([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        #expect(drain(&server) == [.pong(Self.hello)])
    }

    @Test("§5.7: 256-byte and 64 KiB binary frames use the 16- and 64-bit length forms")
    func lengthForms() throws {
        var (client, server) = try openPair()
        let small = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
        try server.send(binary: small)
        let smallWire = server.takeOutput()
        #expect(Array(smallWire.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(smallWire.count == 4 + 256)
        client.receive(smallWire)
        #expect(drain(&client) == [.binary(small)])

        let large = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try server.send(binary: large)
        let largeWire = server.takeOutput()
        #expect(Array(largeWire.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00])
        client.receive(largeWire)
        #expect(drain(&client) == [.binary(large)])
    }

    @Test("§5.7: the server's unmasked 'Hello' and the client's masked one, byte for byte")
    func serializeExamples() throws {
        var (_, server) = try openPair()
        try server.send(text: "Hello")
        #expect(server.takeOutput() == [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f])

        // Masking key 37 fa 21 3d comes from the injected generator (low byte first).
        var client = try Connection(role: .client(clientOptions()), random: FixedGenerator([0x3d21_fa37]))
        var server2 = try Connection(role: .server)
        guard case .handshakeRequest? = pump(&client, into: &server2).first else { throw TestFailure("no request") }
        try server2.accept()
        _ = drain(&server2)
        _ = pump(&server2, into: &client)
        try client.send(text: "Hello")
        #expect(client.takeOutput() == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        try client.pong(Self.hello)
        #expect(client.takeOutput() == [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    @Test("Length boundaries round-trip in both directions", arguments: [0, 1, 125, 126, 127, 65535, 65536, 100_000])
    func lengthBoundaries(length: Int) throws {
        var (client, server) = try openPair()
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 3) }
        try client.send(binary: payload)
        #expect(pump(&client, into: &server) == [.binary(payload)])
        try server.send(binary: payload)
        #expect(pump(&server, into: &client) == [.binary(payload)])
    }

    @Test("A frame fed one byte at a time is read exactly once")
    func byteAtATime() throws {
        var (client, server) = try openPair()
        try client.send(text: "fragmented κόσμε 🎉")
        var events: [Connection.Event] = []
        for byte in client.takeOutput() {
            server.receive([byte])
            events += drain(&server)
        }
        #expect(events == [.text("fragmented κόσμε 🎉")])
    }

    @Test("Control frames interleaved in a fragmented message are handled (§5.4)")
    func interleavedControl() throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x1, Array("Hel".utf8), fin: false))
        server.receive(clientFrame(0x9, [1, 2]))
        server.receive(clientFrame(0xA, [3]))
        server.receive(clientFrame(0x0, Array("lo".utf8), fin: true))
        #expect(drain(&server) == [.ping([1, 2]), .pong([3]), .text("Hello")])
        #expect(decodeFrames(server.takeOutput()) == [DecodedFrame(fin: true, opcode: 0xA, masked: false, payload: [1, 2])])
    }

    @Test("Outgoing messages are split at fragmentationSize")
    func autoFragmentation() throws {
        var config = Connection.Configuration()
        config.fragmentationSize = 4
        var (client, server) = try openPair(client: config)
        try client.send(text: "0123456789")
        let wire = client.takeOutput()
        let frames = decodeFrames(wire)
        #expect(frames.map(\.opcode) == [0x1, 0x0, 0x0])
        #expect(frames.map(\.fin) == [false, false, true])
        #expect(frames.map(\.payload.count) == [4, 4, 2])
        server.receive(wire)
        #expect(drain(&server) == [.text("0123456789")])
    }

    @Test("Caller-streamed fragments, with pings in between")
    func streamedFragments() throws {
        var (client, server) = try openPair()
        try client.sendFragment(Array("κό".utf8).dropLast(), kind: .text, isFinal: false)  // splits a sequence
        try client.ping([9])
        try client.sendFragment([Array("κό".utf8).last!] + Array("σμε".utf8), kind: .text, isFinal: true)
        #expect(pump(&client, into: &server) == [.ping([9]), .text("κόσμε")])
        #expect(throws: Connection.UsageError.fragmentKindMismatch) {
            try client.sendFragment([1], kind: .binary, isFinal: false)
            try client.sendFragment([2], kind: .text, isFinal: true)
        }
        #expect(throws: Connection.UsageError.messageInProgress) { try client.send(text: "x") }
        try client.sendFragment([2], kind: .binary, isFinal: true)
        #expect(pump(&client, into: &server) == [.binary([1, 2])])
    }

    @Test("Invalid UTF-8 in streamed text fragments is refused and nothing is sent")
    func streamedInvalidUTF8() throws {
        var (client, _) = try openPair()
        #expect(throws: Connection.UsageError.invalidUTF8) { try client.sendFragment([0xC0, 0x80], kind: .text, isFinal: false) }
        #expect(client.pendingOutputCount == 0)
        try client.sendFragment([0xCE], kind: .text, isFinal: false)
        #expect(throws: Connection.UsageError.invalidUTF8) { try client.sendFragment([], kind: .text, isFinal: true) }
        try client.sendFragment([0xBA], kind: .text, isFinal: true)
    }

    @Test("Fragment delivery hands out payload as it arrives, validated across pieces")
    func fragmentDelivery() throws {
        var config = Connection.Configuration()
        config.delivery = .fragments
        var (client, server) = try openPair(server: config)
        let text = Array("Hello κόσμε".utf8)
        let wire = clientFrame(0x1, Array(text[0..<7]), fin: false) + clientFrame(0x0, Array(text[7...]), fin: true)
        var pieces: [Connection.Fragment] = []
        for chunk in stride(from: 0, to: wire.count, by: 5).map({ Array(wire[$0..<min(wire.count, $0 + 5)]) }) {
            server.receive(chunk)
            for event in drain(&server) {
                guard case .fragment(let piece) = event else { throw TestFailure("unexpected \(event)") }
                pieces.append(piece)
            }
        }
        #expect(pieces.flatMap(\.bytes) == text)
        #expect(pieces.first?.isFirst == true)
        #expect(pieces.dropFirst().allSatisfy { !$0.isFirst })
        #expect(pieces.last?.isFinal == true)
        #expect(pieces.dropLast().allSatisfy { !$0.isFinal })
        #expect(pieces.allSatisfy { $0.kind == .text })
        // An empty message is one empty, first and final piece.
        server.receive(clientFrame(0x2, []))
        #expect(drain(&server) == [.fragment(Connection.Fragment(kind: .binary, bytes: [], isFirst: true, isFinal: true))])
        _ = client
    }

    @Test("Fragment delivery still fails fast on invalid UTF-8 across pieces")
    func fragmentDeliveryUTF8() throws {
        var config = Connection.Configuration()
        config.delivery = .fragments
        var (_, server) = try openPair(server: config)
        server.receive(clientFrame(0x1, [0x41, 0xCE], fin: false))
        #expect(drain(&server) == [.fragment(Connection.Fragment(kind: .text, bytes: [0x41, 0xCE], isFirst: true, isFinal: false))])
        server.receive(clientFrame(0x0, [0x41], fin: true))
        let events = drain(&server)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.invalidUTF8)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1007])
    }
}
