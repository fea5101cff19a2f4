// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// ``Connection/isAwaitingInput``: adapters skip the pull it says would find nothing, so a `true`
/// that hides an event loses it, and a `false` in the steady state costs every message a pull.
@Suite("isAwaitingInput: true only when a pull would find nothing, and then in the steady state")
struct AwaitingInputTests {
    /// Feeds a server random client traffic in random pieces, pulling one event at a time, and
    /// checks the answer before every pull: when `true`, a pull (made on a copy) finds nothing; once
    /// pulled dry with whole frames read and the connection open, it is `true`; with part of a
    /// frame held, or once closed, `false`.
    @Test(arguments: 0..<40)
    func soundAndSteady(seed: UInt64) throws {
        var random = Connection.SeededGenerator(seed: seed)
        var (_, server) = try openPair(seed: seed)
        #expect(server.isAwaitingInput, "open and idle")

        // Whole frames, with where each ends in the stream; the last is a Close frame.
        var stream: [UInt8] = []
        var frameEnds: Set<Int> = []
        for _ in 0..<Int.random(in: 3...12, using: &random) {
            let size = [0, 1, 125, 126, 300, 70_000][Int.random(in: 0..<6, using: &random)]
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: stream += clientFrame(0x2, payload)
            case 1: stream += clientFrame(0x9, Array(payload.prefix(125)))
            case 2:
                // Two fragments of one text message (bytes 0x00...0x7E: ASCII, valid UTF-8).
                let text = payload.map { $0 & 0x7F }
                let cut = text.count / 2
                stream += clientFrame(0x1, Array(text[..<cut]), fin: false)
                frameEnds.insert(stream.count)
                stream += clientFrame(0x0, Array(text[cut...]))
            default: stream += clientFrame(0x1, payload.map { $0 & 0x7F })
            }
            frameEnds.insert(stream.count)
        }
        stream += clientFrame(0x8, [0x03, 0xE8])
        let closeEnd = stream.count

        var fed = 0
        while fed < stream.count {
            let count = min(stream.count - fed, Int.random(in: 1...400, using: &random))
            server.receive(Array(stream[fed..<(fed + count)]))
            fed += count
            _ = Self.pullAll(&server, checking: \.isAwaitingInput, "awaiting input (seed \(seed), at \(fed))")
            _ = server.takeOutput()
            let expected = fed != closeEnd && frameEnds.contains(fed)
            #expect(server.isAwaitingInput == expected, "pulled dry at \(fed) of \(stream.count) (seed \(seed))")
        }
        guard case .closed = server.state else {
            Issue.record("not closed after the peer's Close frame: \(server.state)")
            return
        }
        #expect(!server.isAwaitingInput)
    }

    /// The phases that read no frames answer `false`: a server awaiting the request head, a client
    /// awaiting the response head. A client that sent its Close frame still reads frames (the
    /// peer's messages and Close frame): idle, it answers `true`.
    @Test func byPhase() throws {
        let server = try Connection(role: .server)
        #expect(!server.isAwaitingInput)
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 7))
        _ = client.takeOutput()
        #expect(!client.isAwaitingInput)

        var (opened, peer) = try openPair()
        try opened.close()
        #expect(opened.state == .closing(initiatedBy: .local))
        #expect(opened.isAwaitingInput)
        // The peer's reply ends it.
        pump(&opened, into: &peer)
        pump(&peer, into: &opened)
        guard case .closed = opened.state else {
            Issue.record("client not closed: \(opened.state)")
            return
        }
        #expect(!opened.isAwaitingInput)
    }

    /// Pulls every event; before each pull, when `idle` answers `true`, checks on a copy that the
    /// pull finds nothing (a `true` that hid an event would lose it).
    static func pullAll(_ connection: inout Connection, checking idle: (Connection) -> Bool,
                        _ context: String) -> [Connection.Event] {
        var events: [Connection.Event] = []
        while true {
            if idle(connection) {
                var copy = connection
                #expect(copy.nextEvent() == nil, "\(context): idle, yet a pull found an event")
            }
            guard let event = connection.nextEvent() else { return events }
            events.append(event)
        }
    }

    /// `isIdleOutsideFrames`, which the transport's session checks beside `isAwaitingInput`: in the
    /// phases that read a head or nothing, `true` only when a pull finds nothing, and then in the
    /// states an adapter meets between reads.
    @Test func idleOutsideFrames() throws {
        let request = AllocationTests.plainRequest
        var server = try Connection(role: .server)
        server.advanceTime(to: .zero)
        #expect(server.isIdleOutsideFrames, "before the first byte")
        // The request in pieces: before every pull, `true` only when the pull finds nothing.
        var pieces = 0
        var fed = 0
        var sawRequest = false
        while fed < request.count {
            let count = min(request.count - fed, [1, 7, 40][pieces % 3])
            pieces += 1
            server.receive(Array(request[fed..<(fed + count)]))
            fed += count
            for event in Self.pullAll(&server, checking: \.isIdleOutsideFrames, "idle outside frames (at \(fed))") {
                if case .handshakeRequest = event { sawRequest = true }
            }
        }
        #expect(sawRequest)
        #expect(server.isIdleOutsideFrames, "awaiting the decision")
        try server.accept()
        #expect(!server.isIdleOutsideFrames, "open: the frame phases answer false")
        // The peer's Close: answered, closed, draining; then idle again.
        server.receive(clientFrame(0x8, [0x03, 0xE8]))
        #expect(!server.isIdleOutsideFrames, "unread input")
        while server.nextEvent() != nil {}
        guard case .closed = server.state else {
            Issue.record("not closed: \(server.state)")
            return
        }
        #expect(server.isIdleOutsideFrames, "closed, all read")
        var copy = server
        #expect(copy.nextEvent() == nil)
        server.receiveEOF()
        #expect(!server.isIdleOutsideFrames, "the input ended: pull")

        // Events queued without input (the handshake's timer ran out): not idle.
        var late = try Connection(role: .server)
        late.advanceTime(to: .zero)
        late.advanceTime(to: Connection.Instant(sinceOrigin: .seconds(60)))
        #expect(!late.isIdleOutsideFrames, "events queued by the timer")
        #expect(late.nextEvent() != nil)

        // A client awaiting its response, its request taken.
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 3))
        _ = client.takeOutput()
        #expect(client.isIdleOutsideFrames)
    }
}
