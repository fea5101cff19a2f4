// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore

/// The opening handshake's head read where it lies: by the in-place pulls
/// (`nextEvent(readingInPlace:from:)`, `receive(lending:)`) and by `receive(readingHeadFrom:)`, the
/// transport's session's way in. Each must make the same events and output as the head copied in,
/// however the input is split and whatever the head holds, and a head that comes whole leaves the
/// connection no inbox.
@Suite("The opening handshake's head read where it lies")
struct HeadInPlaceTests {
    /// How the input reaches the connection.
    enum Way: CaseIterable, CustomStringConvertible {
        /// `receive(_:)`, then `nextEvent()`: the reference.
        case copied
        /// `nextEvent(readingInPlace:from:)` over each piece.
        case pulledInPlace
        /// `receive(lending:)` over each piece.
        case lent
        /// `receive(readingHeadFrom:)`, then `nextEvent()`.
        case headWhereItLies

        var description: String {
            switch self {
            case .copied: "copied"
            case .pulledInPlace: "pulled in place"
            case .lent: "lent"
            case .headWhereItLies: "head where it lies"
            }
        }
    }

    /// Feeds `input` in `chunks` to `connection` the given way, pulling every event after each
    /// piece; a server accepts a request as soon as it is pulled. Each piece read in place is
    /// overwritten once read, so nothing may keep pointing into it. The events, everything written,
    /// and the inbox's capacity after the first piece.
    static func run(_ connection: Connection, _ input: [UInt8], chunks: [Int], way: Way)
        throws -> (events: [Connection.Event], output: [UInt8], inboxAfterFirst: Int)
    {
        var connection = connection
        var events: [Connection.Event] = []
        var output: [UInt8] = []
        var inboxAfterFirst = -1
        func handle(_ event: Connection.Event, _ connection: inout Connection) throws {
            events.append(event)
            if case .handshakeRequest = event { try connection.accept() }
        }
        for piece in PropertyTests.pieces(of: input, chunks: chunks) {
            var buffer = Array(piece)
            switch way {
            case .copied:
                connection.receive(piece)
            case .headWhereItLies:
                buffer.withUnsafeBytes { connection.receive(readingHeadFrom: $0) }
            case .pulledInPlace:
                try buffer.withUnsafeMutableBytes { bytes in
                    var offset = 0
                    while let view = connection.nextEvent(readingInPlace: bytes, from: &offset) {
                        try handle(LentInputTests.owned(view), &connection)
                    }
                    #expect(offset == bytes.count)
                }
            case .lent:
                var lentEvents: [Connection.Event] = []
                buffer.withUnsafeMutableBytes { bytes in
                    connection.receive(lending: bytes) { lentEvents.append(LentInputTests.owned($0)) }
                }
                // receive(lending:) hands events out during the call; a request is answered after it.
                for event in lentEvents { try handle(event, &connection) }
            }
            buffer.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0xEE) }
            while let event = connection.nextEvent() { try handle(event, &connection) }
            if inboxAfterFirst < 0 { inboxAfterFirst = connection.inbox.capacity }
            output += connection.takeOutput()
        }
        connection.receiveEOF()
        events += drain(&connection)
        return (events, output + connection.takeOutput(), inboxAfterFirst)
    }

    /// Runs `input` every way for every split and expects each the same as copied in.
    static func expectSameEveryWay(_ make: () throws -> Connection, _ input: [UInt8], label: String, seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        var splits: [[Int]] = [[input.count], [1], [2, 7], [input.count / 2 + 1]]
        splits += (0..<3).map { _ in (0..<20).map { _ in Int.random(in: 1...300, using: &rng) } }
        for chunks in splits {
            let reference = try run(make(), input, chunks: chunks, way: .copied)
            #expect(!reference.events.isEmpty || !reference.output.isEmpty, "\(label): the reference did something")
            for way in Way.allCases where way != .copied {
                let other = try run(make(), input, chunks: chunks, way: way)
                #expect(other.events == reference.events, "\(label), \(way), chunks \(chunks.prefix(3)): \(other.events) against \(reference.events)")
                #expect(other.output == reference.output, "\(label), \(way), chunks \(chunks.prefix(3))")
            }
        }
    }

    /// A client's request as `Connection` writes it.
    static func clientRequest(seed: UInt64 = 1) throws -> [UInt8] {
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: seed))
        return client.takeOutput()
    }

    /// A browser's request (Chrome's fields), with `ending` as every line's end.
    static func browserRequest(ending: String = "\r\n") -> [UInt8] {
        let lines = ["GET /chat?room=lobby HTTP/1.1", "Host: chat.example.com", "Connection: Upgrade", "Pragma: no-cache",
                     "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0",
                     "Upgrade: websocket", "Origin: https://chat.example.com", "Sec-WebSocket-Version: 13",
                     "Cookie: session=6f1c2a9e0b7d4e3f8a5c1d2e3f4a5b6c; theme=dark",
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
        return Array((lines.joined(separator: ending) + ending + ending).utf8)
    }

    @Test("A server: valid and hostile requests, frames after them, any split: the same events and output every way")
    func serverSameEveryWay() throws {
        let request = try Self.clientRequest()
        let frames = clientFrame(0x2, [1, 2, 3]) + clientFrame(0x1, Array("hi".utf8)) + clientFrame(0x8, [0x03, 0xE8])
        var small = Connection.Configuration()
        small.limits.maxHeaderBytes = 300
        small.limits.maxHeaderCount = 5
        small.limits.maxRequestLineLength = 40
        var plain = Connection.Configuration()
        plain.answersPlainRequests = true
        let long = String(repeating: "a", count: 400)
        let cases: [(String, [UInt8], Connection.Configuration)] = [
            ("request alone", request, Connection.Configuration()),
            ("request and frames", request + frames, Connection.Configuration()),
            ("browser request and frames", Self.browserRequest() + frames, Connection.Configuration()),
            ("bare line feeds", Self.browserRequest(ending: "\n") + frames, Connection.Configuration()),
            ("empty lines first", Array("\r\n\r\n".utf8) + request + frames, Connection.Configuration()),
            ("bare CR", Array("GET / HTTP/1.1\rHost: a\r\n\r\n".utf8), Connection.Configuration()),
            ("obsolete line folding", Array("GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n".utf8), Connection.Configuration()),
            ("control byte in a value", Array("GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n".utf8), Connection.Configuration()),
            ("no colon", Array("GET / HTTP/1.1\r\nHost a\r\n\r\n".utf8), Connection.Configuration()),
            ("not a request line", Array("HELLO\r\n\r\n".utf8), Connection.Configuration()),
            ("HTTP/1.0", Array("GET / HTTP/1.0\r\nHost: a\r\n\r\n".utf8), Connection.Configuration()),
            ("no upgrade", Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8) + frames, Connection.Configuration()),
            ("a plain request answered", Array("GET /health HTTP/1.1\r\nHost: a\r\n\r\n".utf8), plain),
            ("random bytes", (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }, Connection.Configuration()),
            ("head over its limit", Self.browserRequest(), small),
            ("too many fields", request, small),
            ("request line too long", Array("GET /\(long) HTTP/1.1\r\nHost: a\r\n\r\n".utf8), small),
            ("field line over the head's limit", Array("GET / HTTP/1.1\r\nX: \(long)\r\n\r\n".utf8), small),
            ("cut short", Array(request.prefix(request.count - 3)), Connection.Configuration()),
        ]
        for (index, (label, input, configuration)) in cases.enumerated() {
            try Self.expectSameEveryWay({ try Connection(role: .server, configuration: configuration) }, input,
                                        label: label, seed: UInt64(index) + 1)
        }
    }

    @Test("A client: the server's response and its first frames, valid and hostile, any split: the same events and output every way")
    func clientSameEveryWay() throws {
        func client() throws -> Connection {
            try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 9))
        }
        var probe = try client()
        var server = try Connection(role: .server)
        server.receive(probe.takeOutput())
        _ = drain(&server)
        try server.accept()
        try server.send(text: "first")
        try server.send(binary: [1, 2, 3])
        let wire = server.takeOutput()
        let head = Array(wire.prefix { $0 != 0x81 })   // the 101, up to the first frame (a text's first byte)
        #expect(head.count < wire.count)
        let cases: [(String, [UInt8])] = [
            ("101 and frames", wire),
            ("101 alone", head),
            ("refused", Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 5\r\n\r\nnope!".utf8)),
            ("wrong accept", Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n".utf8)),
            ("bare CR", Array("HTTP/1.1 101 OK\rUpgrade: websocket\r\n\r\n".utf8)),
            ("not a status line", Array("HELLO\r\n\r\n".utf8)),
            ("interim then refused", Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)),
        ]
        for (index, (label, input)) in cases.enumerated() {
            try Self.expectSameEveryWay(client, input, label: label, seed: UInt64(index) + 100)
        }
    }

    @Test("A head that comes whole leaves no inbox, in place or where it lies; bytes after it are copied while the request awaits a decision")
    func noInboxForAWholeHead() throws {
        let request = try Self.clientRequest()
        for way in [Way.pulledInPlace, .lent, .headWhereItLies] {
            let whole = try Self.run(Connection(role: .server), request, chunks: [request.count], way: way)
            #expect(whole.inboxAfterFirst == 0, "\(way)")
            #expect(whole.events.first.map { if case .handshakeRequest = $0 { true } else { false } } == true, "\(way)")
            // Copied in, the request took an inbox of its own.
            let copied = try Self.run(Connection(role: .server), request, chunks: [request.count], way: .copied)
            #expect(copied.inboxAfterFirst >= request.count)
            // Cut in two, the parser holds the rest of the line; the inbox still holds nothing.
            let cut = try Self.run(Connection(role: .server), request, chunks: [request.count / 2, request.count], way: way)
            #expect(cut.inboxAfterFirst == 0, "\(way)")
            #expect(cut.events == whole.events, "\(way)")
        }
        // Bytes after a request that waits for its decision stay with the connection, copied.
        var server = try Connection(role: .server)
        let frame = clientFrame(0x2, [7, 8, 9])
        (request + frame).withUnsafeBytes { server.receive(readingHeadFrom: $0) }
        #expect(server.inbox.count - server.inboxStart == frame.count)
        guard case .handshakeRequest? = server.nextEvent() else {
            Issue.record("no request")
            return
        }
        try server.accept()
        guard case .handshakeCompleted? = server.nextEvent() else {
            Issue.record("not opened")
            return
        }
        #expect(server.nextEvent() == .binary([7, 8, 9]))
    }

    @Test("receive(readingHeadFrom:) outside a head: as receive(_:) (frames copied, input after the end dropped)")
    func readingHeadFromOutsideAHead() throws {
        var server = try Connection(role: .server)
        try Self.clientRequest().withUnsafeBytes { server.receive(readingHeadFrom: $0) }
        _ = drain(&server)
        try server.accept()
        _ = drain(&server)
        _ = server.takeOutput()
        let frames = clientFrame(0x2, [1]) + clientFrame(0x2, [2, 3])
        Array(frames.prefix(10)).withUnsafeBytes { server.receive(readingHeadFrom: $0) }
        #expect(server.nextEvent() == .binary([1]))
        #expect(server.nextEvent() == nil)
        Array(frames.dropFirst(10)).withUnsafeBytes { server.receive(readingHeadFrom: $0) }
        #expect(server.nextEvent() == .binary([2, 3]))
        server.receiveEOF()
        _ = drain(&server)
        let before = server.inbox.count
        clientFrame(0x2, [4]).withUnsafeBytes { server.receive(readingHeadFrom: $0) }
        #expect(server.inbox.count == before)
    }
}
