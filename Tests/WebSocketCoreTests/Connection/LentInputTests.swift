// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("receive(lending:): input parsed and unmasked in the caller's buffer")
struct LentInputTests {
    /// A lent view as an owned event.
    static func owned(_ view: Connection.EventView) -> Connection.Event {
        switch view {
        case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
        case .binary(let bytes): return .binary(Array(bytes))
        case .other(let event): return event
        }
    }

    /// Feeds `input` to a server in `chunks`, each lent from a fresh buffer that is overwritten once
    /// the call returns (so that a pointer kept past the call would read garbage); accepts the
    /// handshake after the call that delivers its request and pulls the rest with `nextEvent()`.
    static func runLent(_ input: [UInt8], chunks: [Int], configuration: Connection.Configuration = Connection.Configuration())
        throws -> (events: [Connection.Event], output: [UInt8])
    {
        var server = try Connection(role: .server, configuration: configuration)
        var events: [Connection.Event] = []
        var output: [UInt8] = []
        for piece in PropertyTests.pieces(of: input, chunks: chunks) {
            var buffer = Array(piece)
            var requested = false
            buffer.withUnsafeMutableBytes { bytes in
                server.receive(lending: bytes) { view in
                    let event = Self.owned(view)
                    if case .handshakeRequest = event { requested = true }
                    events.append(event)
                }
                bytes.initializeMemory(as: UInt8.self, repeating: 0xEE)
            }
            if requested {
                try server.accept()
                events += drain(&server)
            }
            output += server.takeOutput()
        }
        server.receiveEOF()
        events += drain(&server)
        return (events, output + server.takeOutput())
    }

    @Test("Any split, messages or fragments delivery: the same events and output as input copied in", arguments: [31, 32, 33] as [UInt64])
    func sameAsCopied(seed: UInt64) throws {
        try Self.expectSameAsCopied(seed: seed, Self.runLent)
    }

    /// Requires `run` (input read some other way, in the given pieces and configuration) to give the
    /// same events and output as input copied in, for recorded client input of `seed`, every split
    /// of several, messages and fragments delivery.
    static func expectSameAsCopied(seed: UInt64,
                                   _ run: ([UInt8], [Int], Connection.Configuration) throws -> (events: [Connection.Event], output: [UInt8]))
        throws
    {
        let input = try PropertyTests.recordedClientInput(seed: seed, maxBytes: 70_000)
        var fragments = Connection.Configuration()
        fragments.delivery = .fragments
        var rng = Connection.SeededGenerator(seed: seed)
        for configuration in [Connection.Configuration(), fragments] {
            var splits: [[Int]] = [[input.count], [1], [7, 300, 2]]
            splits += (0..<3).map { _ in (0..<40).map { _ in Int.random(in: 1...9000, using: &rng) } }
            for chunks in splits {
                // Fragments follow the reads, so the reference is split the same way.
                let reference = try PropertyTests.run(input, chunks: chunks, configuration: configuration)
                #expect(reference.events.count > 3)
                let lent = try run(input, chunks, configuration)
                // Compared as a whole, reported briefly: the events are long.
                let same = lent.events == reference.events
                let firstDifference = lent.events.indices.first { $0 >= reference.events.count || lent.events[$0] != reference.events[$0] }
                #expect(same, "seed \(seed), \(configuration.delivery), chunks \(chunks.prefix(3)), \(lent.events.count) events against \(reference.events.count), first difference at \(String(describing: firstDifference)): \(firstDifference.map { String(String(describing: lent.events[$0]).prefix(150)) + " vs " + String(String(describing: reference.events[$0]).prefix(150)) } ?? "")")
                #expect(lent.output == reference.output, "seed \(seed), chunks \(chunks.prefix(3))")
            }
        }
    }

    @Test("Hostile input: the same close code and output as input copied in, however it is split", arguments: [41, 42] as [UInt64])
    func hostileSameAsCopied(seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        let valid = try PropertyTests.recordedClientInput(seed: seed, maxBytes: 2000)
        // A valid prefix, then bytes that go wrong: random ones, an unmasked frame, invalid UTF-8.
        let tails: [[UInt8]] = [
            (0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) },
            frame(0x2, [1, 2, 3]),
            clientFrame(0x1, [0xC3, 0x28]),
        ]
        let cut = valid.count / 2
        for tail in tails {
            let input = Array(valid[..<cut]) + tail
            let reference = try PropertyTests.run(input, chunks: [input.count])
            for chunks in [[input.count], [1], [5, 11, 200]] {
                let lent = try Self.runLent(input, chunks: chunks)
                let same = lent.events == reference.events
                #expect(same, "chunks \(chunks): \(lent.events.count) events against \(reference.events.count)")
                #expect(lent.output == reference.output)
            }
        }
    }

    @Test("A whole masked message is unmasked in the caller's buffer and lent from there")
    func lentFromTheCallersBuffer() throws {
        var (_, server) = try openPair()
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var wire = clientFrame(0x2, payload)
        let headerSize = wire.count - payload.count
        var lentRange: Range<Int>? = nil
        var lentBytes: [UInt8] = []
        wire.withUnsafeMutableBytes { bytes in
            let base = UInt(bitPattern: bytes.baseAddress)
            server.receive(lending: bytes) { view in
                guard case .binary(let lent) = view else { return }
                let start = Int(UInt(bitPattern: lent.baseAddress) - base)
                lentRange = start..<(start + lent.count)
                lentBytes = Array(lent)
            }
        }
        #expect(lentRange == headerSize..<wire.count)   // the payload where it lay: no copy
        #expect(lentBytes == payload)
        #expect(Array(wire[headerSize...]) == payload)  // unmasked in place
        #expect(server.bufferedInputCount == 0)
    }

    @Test("A frame cut across calls is kept by copy: each buffer is the caller's again when the call returns")
    func incompleteFrameKept() throws {
        var (client, server) = try openPair()
        try client.send(text: String(repeating: "wxyz", count: 100))
        try client.send(binary: [9, 8, 7])
        let wire = client.takeOutput()
        var events: [Connection.Event] = []
        for range in [0..<1, 1..<150, 150..<(wire.count - 2), (wire.count - 2)..<wire.count] {
            var buffer = Array(wire[range])
            buffer.withUnsafeMutableBytes { bytes in
                server.receive(lending: bytes) { events.append(Self.owned($0)) }
                bytes.initializeMemory(as: UInt8.self, repeating: 0)
            }
            // Half a header is kept as it came; a payload begun goes on into the message.
            if range.lowerBound == 0 { #expect(server.bufferedInputCount == 1) }
        }
        #expect(events == [.text(String(repeating: "wxyz", count: 100)), .binary([9, 8, 7])])
        #expect(server.bufferedInputCount == 0)
    }

    @Test("Lent bytes join input received before, and bytes after the peer's Close are dropped")
    func joinsAndDrops() throws {
        var (client, server) = try openPair()
        try client.send(binary: [1, 2, 3, 4])
        let first = client.takeOutput()
        server.receive(Array(first[..<3]))           // a frame started by copy
        #expect(drain(&server).isEmpty)
        try client.close(code: .goingAway, reason: "bye")
        var rest = Array(first[3...]) + client.takeOutput() + clientFrame(0x1, Array("late".utf8))
        var copied = server
        copied.receive(rest)
        let reference = drain(&copied)
        var events: [Connection.Event] = []
        rest.withUnsafeMutableBytes { bytes in
            server.receive(lending: bytes) { events.append(Self.owned($0)) }
        }
        #expect(events == reference)
        #expect(events.first == .binary([1, 2, 3, 4]))
        #expect(!events.contains(.text("late")))
        #expect(server.bufferedInputCount == 0)
        let output = server.takeOutput()
        #expect(decodeFrames(output).last.flatMap(closeCode) == 1001)
        #expect(copied.takeOutput() == output)
    }

    @Test("receiveAndAnswer: echoes framed from the caller's buffer, byte for byte what answerNextEvent sends")
    func answeringEchoes() throws {
        var fragmented = Connection.Configuration()
        fragmented.fragmentationSize = 100
        var (client, server) = try openPair(client: fragmented)
        var copied = server
        try client.send(text: "short")
        try client.send(binary: Array(0..<200))
        try client.send(text: String(repeating: "é", count: 150))   // fragmented: assembled in the message buffer
        try client.ping([5])
        var wire = client.takeOutput()
        copied.receive(wire)
        while try copied.answerNextEvent({ _ in .echo }) {}
        var others: [Connection.Event] = []
        try wire.withUnsafeMutableBytes { bytes in
            try server.receiveAndAnswer(lending: bytes, { view in
                if case .other(let event) = view { others.append(event) }
                return .echo
            })
        }
        #expect(others == [.ping([5])])
        let output = server.takeOutput()
        #expect(output == copied.takeOutput())
        client.receive(output)
        #expect(drain(&client) == [.text("short"), .binary(Array(0..<200)), .text(String(repeating: "é", count: 150)), .pong([5])])
    }

    @Test("receiveAndAnswer: a refused reply stops the call; the events after it are kept for nextEvent()")
    func answeringRefusal() throws {
        var (client, server) = try openPair()
        try client.send(text: "héllo")
        try client.send(binary: [4, 5])
        var wire = client.takeOutput()
        var seen = 0
        #expect(throws: Connection.UsageError.invalidUTF8) {
            try wire.withUnsafeMutableBytes { bytes in
                try server.receiveAndAnswer(lending: bytes, { _ in
                    seen += 1
                    return .text(1..<2)   // cuts é in half
                })
            }
        }
        #expect(seen == 1)
        wire.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0xFF) }
        #expect(drain(&server) == [.binary([4, 5])])
    }
}
