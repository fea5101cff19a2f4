// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// Seeded property tests: each runs a few seeds; a failure names its seed.
@Suite("Properties: round trips, split invariance, determinism, value semantics")
struct PropertyTests {
    enum Action: Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case streamed(Connection.MessageKind, [[UInt8]])
    }

    static let alphabet: [String] = ["a", "Z", "0", " ", "é", "ß", "κ", "ό", "中", "文", "🎉", "𝄞", "\u{10FFFF}", "\u{FFFD}"]

    static func randomText(_ rng: inout Connection.SeededGenerator, maxScalars: Int) -> String {
        let n = Int.random(in: 0...maxScalars, using: &rng)
        var s = ""
        for _ in 0..<n { s += alphabet.randomElement(using: &rng)! }
        return s
    }

    static func randomSize(_ rng: inout Connection.SeededGenerator) -> Int {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return 0
        case 1: return [125, 126, 127, 65535, 65536].randomElement(using: &rng)!
        case 2: return Int.random(in: 0...(1 << 20), using: &rng)
        default: return Int.random(in: 0...300, using: &rng)
        }
    }

    static func randomActions(_ rng: inout Connection.SeededGenerator, count: Int) -> [Action] {
        (0..<count).map { _ in
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return .text(randomText(&rng, maxScalars: Int.random(in: 0...2, using: &rng) == 0 ? 20_000 : 50))
            case 1: return .binary((0..<randomSize(&rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            case 2: return .ping((0..<Int.random(in: 0...125, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            default:
                let kind: Connection.MessageKind = Bool.random(using: &rng) ? .text : .binary
                let whole = kind == .text ? Array(randomText(&rng, maxScalars: 200).utf8)
                    : (0..<Int.random(in: 0...500, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                var pieces: [[UInt8]] = []
                var i = 0
                while i < whole.count {
                    let n = Int.random(in: 0...min(64, whole.count - i), using: &rng)
                    pieces.append(Array(whole[i..<(i + n)]))
                    i += n
                }
                pieces.append([])
                return .streamed(kind, pieces)
            }
        }
    }

    static func perform(_ action: Action, on connection: inout Connection) throws {
        switch action {
        case .text(let s): try connection.send(text: s)
        case .binary(let b): try connection.send(binary: b)
        case .ping(let p): try connection.ping(p)
        case .streamed(let kind, let pieces):
            for (i, piece) in pieces.enumerated() {
                try connection.sendFragment(piece, kind: kind, isFinal: i == pieces.count - 1)
            }
        }
    }

    static func expectedEvent(_ action: Action) -> Connection.Event {
        switch action {
        case .text(let s): return .text(s)
        case .binary(let b): return .binary(b)
        case .ping(let p): return .ping(p)
        case .streamed(.text, let pieces): return .text(String(decoding: pieces.flatMap { $0 }, as: UTF8.self))
        case .streamed(.binary, let pieces): return .binary(pieces.flatMap { $0 })
        }
    }

    @Test("A client and a server exchange random messages and see exactly what the other sent", arguments: [1, 2, 3, 4] as [UInt64])
    func roundTrip(seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        var clientConfig = Connection.Configuration()
        clientConfig.fragmentationSize = seed % 2 == 0 ? Int.random(in: 1...4096, using: &rng) : nil
        var (client, server) = try openPair(client: clientConfig, seed: seed)
        for _ in 0..<6 {
            let toServer = Self.randomActions(&rng, count: 5)
            let toClient = Self.randomActions(&rng, count: 5)
            for action in toServer { try Self.perform(action, on: &client) }
            for action in toClient { try Self.perform(action, on: &server) }
            let serverSaw = pump(&client, into: &server).filter { if case .pong = $0 { return false } else { return true } }
            let clientSaw = pump(&server, into: &client).filter { if case .pong = $0 { return false } else { return true } }
            #expect(serverSaw == toServer.map(Self.expectedEvent), "seed \(seed)")
            #expect(clientSaw == toClient.map(Self.expectedEvent), "seed \(seed)")
            // The automatic pongs come back with the pings' payloads.
            let pongs = pump(&client, into: &server).compactMap { if case .pong(let p) = $0 { return p } else { return nil } }
            #expect(pongs == toClient.compactMap { if case .ping(let p) = $0 { return p } else { return nil } })
        }
        try client.close()
        _ = pump(&client, into: &server)
        _ = pump(&server, into: &client)
        #expect(client.state == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
    }

    /// Everything a server sees: the client's handshake request and frames of every kind.
    static func recordedClientInput(seed: UInt64, maxBytes: Int) throws -> [UInt8] {
        var rng = Connection.SeededGenerator(seed: seed)
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: seed))
        var wire = client.takeOutput()
        var server = try Connection(role: .server)
        server.receive(wire)
        _ = drain(&server)
        try server.accept()
        client.receive(server.takeOutput())
        _ = drain(&client)
        for action in randomActions(&rng, count: 12) {
            if case .binary(let b) = action, b.count > maxBytes { continue }
            if case .text(let t) = action, t.utf8.count > maxBytes { continue }
            try Self.perform(action, on: &client)
        }
        try client.close(code: .goingAway, reason: "done")
        wire += client.takeOutput()
        // Hostile tail: a frame after the close must be ignored the same way however it is split.
        wire += clientFrame(0x1, [0xFF])
        return wire
    }

    /// Feeds `input` to a server in `chunks` (copied in by receive(_:)), pulling every event after
    /// each; accepts the handshake. The events and everything written.
    /// `input` cut into pieces of the sizes `chunks` gives in turn (at least 1 byte each; the last
    /// piece may be shorter).
    static func pieces(of input: [UInt8], chunks: [Int]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var i = 0
        var k = 0
        while i < input.count {
            let n = min(max(1, chunks[k % chunks.count]), input.count - i)
            pieces.append(input[i..<(i + n)])
            i += n
            k += 1
        }
        return pieces
    }

    static func run(_ input: [UInt8], chunks: [Int], configuration: Connection.Configuration = Connection.Configuration())
        throws -> (events: [Connection.Event], output: [UInt8])
    {
        var server = try Connection(role: .server, configuration: configuration)
        var events: [Connection.Event] = []
        var output: [UInt8] = []
        for piece in pieces(of: input, chunks: chunks) {
            server.receive(piece)
            while let event = server.nextEvent() {
                events.append(event)
                if case .handshakeRequest = event { try server.accept() }
            }
            output += server.takeOutput()
        }
        server.receiveEOF()
        events += drain(&server)
        return (events, output + server.takeOutput())
    }

    @Test("The same input split at random boundaries, or byte by byte, gives the same events and output", arguments: [11, 12, 13] as [UInt64])
    func splitInvariance(seed: UInt64) throws {
        let input = try Self.recordedClientInput(seed: seed, maxBytes: 8192)
        let whole = try Self.run(input, chunks: [input.count])
        #expect(whole.events.count > 3)
        var rng = Connection.SeededGenerator(seed: seed)
        for _ in 0..<5 {
            let chunks = (0..<50).map { _ in Int.random(in: 1...200, using: &rng) }
            let split = try Self.run(input, chunks: chunks)
            #expect(split.events == whole.events, "seed \(seed)")
            #expect(split.output == whole.output, "seed \(seed)")
        }
        let byByte = try Self.run(input, chunks: [1])
        #expect(byByte.events == whole.events)
        #expect(byByte.output == whole.output)
    }

    @Test("Same seed, same inputs: identical output bytes; another seed: other masks")
    func determinism() throws {
        func transcript(seed: UInt64) throws -> [UInt8] {
            var (client, server) = try openPair(seed: seed)
            var out: [UInt8] = []
            try client.send(text: "deterministic")
            try client.send(binary: [1, 2, 3])
            try client.ping([7])
            out += client.takeOutput()
            _ = server
            return out
        }
        #expect(try transcript(seed: 5) == transcript(seed: 5))
        #expect(try transcript(seed: 5) != transcript(seed: 6))
        var a = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 9))
        var b = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 9))
        #expect(a.takeOutput() == b.takeOutput())
    }

    @Test("Copying a connection forks it: the copies go their own ways")
    func valueSemantics() throws {
        var (client, server) = try openPair()
        try client.send(text: "one")
        client.receive([0x81, 0x02])  // half a frame buffered
        var fork = client
        client.receive(Array("hi".utf8))
        fork.receive([0x6F, 0x6B])
        #expect(drain(&client) == [.text("hi")])
        #expect(drain(&fork) == [.text("ok")])
        try fork.close()
        #expect(client.state == .open)
        #expect(fork.state == .closing(initiatedBy: .local))
        #expect(pump(&client, into: &server) == [.text("one")])
    }
}

@Suite("Lending payloads: nextEventView")
struct EventViewTests {
    /// What nextEventView lends, turned into owned events.
    static func viewEvents(_ connection: inout Connection) -> [Connection.Event] {
        var events: [Connection.Event] = []
        while connection.nextEventView({ view in
            switch view {
            case .text(let bytes): events.append(.text(String(decoding: bytes, as: UTF8.self)))
            case .binary(let bytes): events.append(.binary(Array(bytes)))
            case .other(let event): events.append(event)
            }
        }) {}
        return events
    }

    @Test("Lent events equal owned events for the same input, split anywhere", arguments: [21, 22] as [UInt64])
    func sameAsOwned(seed: UInt64) throws {
        let input = try PropertyTests.recordedClientInput(seed: seed, maxBytes: 70_000)
        var rng = Connection.SeededGenerator(seed: seed)
        for _ in 0..<3 {
            var owned = try Connection(role: .server)
            var lent = try Connection(role: .server)
            var ownedEvents: [Connection.Event] = []
            var lentEvents: [Connection.Event] = []
            var i = 0
            while i < input.count {
                let n = min(input.count - i, Int.random(in: 1...5000, using: &rng))
                owned.receive(input[i..<(i + n)])
                lent.receive(input[i..<(i + n)])
                i += n
                for event in drain(&owned) {
                    ownedEvents.append(event)
                    if case .handshakeRequest = event { try owned.accept() }
                }
                for event in Self.viewEvents(&lent) {
                    lentEvents.append(event)
                    if case .handshakeRequest = event { try lent.accept() }
                }
            }
            #expect(lentEvents == ownedEvents)
            #expect(lent.takeOutput() == owned.takeOutput())
        }
    }

    @Test("A lent message's buffer is reused for the next message")
    func bufferReused() throws {
        var (client, server) = try openPair()
        for _ in 0..<3 {
            try client.sendFragment([UInt8](repeating: 1, count: 1000), kind: .binary, isFinal: false)
            try client.sendFragment([UInt8](repeating: 2, count: 1000), kind: .binary, isFinal: true)
            server.receive(client.takeOutput())
            var count = -1
            #expect(server.nextEventView { view in
                if case .binary(let bytes) = view { count = bytes.count }
            })
            #expect(count == 2000)
            #expect(server.messageBuffer.capacity >= 2000)
        }
    }
}
