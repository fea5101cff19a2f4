// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// What a connection keeps of its opening handshake for its whole life: the request's fields, as
/// their bytes in room made for what most clients send, and a parser and role that take little
/// space inline.
@Suite("The handshake's footprint in a connection")
struct HTTPHeadRoomTests {
    /// A request head with `count` fields, the first the WebSocket ones.
    static func request(fields count: Int) -> String {
        let fields = ["Host: example.com", "Upgrade: websocket", "Connection: Upgrade",
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
            + (0..<max(0, count - 5)).map { "X-Field-\($0): value \($0)" }
        return "GET /chat HTTP/1.1\r\n" + fields.prefix(count).map { $0 + "\r\n" }.joined() + "\r\n"
    }

    @Test("A request of a library's 5 to 8 fields is kept as its bytes in 256; a browser's dozen grown once, within twice its size",
          arguments: [5, 7, 8, 12, 16, 40])
    func fieldsRoom(count: Int) throws {
        let text = Self.request(fields: count)
        guard case .request(let head) = HTTPTestSupport.parse(text) else {
            Issue.record("the request was not parsed")
            return
        }
        #expect(head.headers.count == count)
        #expect(head.headers.fields.count == count)
        // The fields are kept as `name:value` and a line feed each: fewer bytes than the head's lines.
        let fieldBytes = text.utf8.count - "GET /chat HTTP/1.1\r\n\r\n".utf8.count
        let room = try #require(head.headers.parsedByteCapacity, "the parsed fields are not kept as bytes")
        if fieldBytes <= HTTPFieldLines.initialCapacity {
            #expect(room >= HTTPFieldLines.initialCapacity && room < 2 * HTTPFieldLines.initialCapacity,
                    "\(count) fields (\(fieldBytes) bytes) kept in room for \(room)")
        } else {
            #expect(room < 2 * fieldBytes, "\(count) fields (\(fieldBytes) bytes) kept in room for \(room)")
        }
        // Changed, they become strings.
        var changed = head.headers
        changed.append(name: "X-Added", value: "1")
        #expect(changed.parsedByteCapacity == nil)
        #expect(changed.count == count + 1)
    }

    @Test("A server connection's role and head parser take little room inline: the role and the parser a pointer each, the connection under 900 bytes")
    func inlineFootprint() {
        // A client's options (128 bytes) are boxed: a server's role is no larger than a reference.
        #expect(MemoryLayout<Connection.Role>.size <= MemoryLayout<AnyObject>.size)
        // The parser keeps the three limits it reads, not all of them, and is boxed while it reads.
        #expect(MemoryLayout<HTTPHeadParser>.size <= 216)
        #expect(MemoryLayout<Connection.HeadReading>.size <= MemoryLayout<AnyObject>.size)
        #expect(MemoryLayout<Connection>.size <= 900, "\(MemoryLayout<Connection>.size) bytes")
    }

    @Test("A connection holds its head parser only while it reads a head, a head cut across reads, in both roles and across an interim response")
    func parserOnlyWhileReading() throws {
        var server = try Connection(role: .server)
        #expect(server.headParser == nil)  // nothing made before the first byte
        let request = Array(Self.request(fields: 7).utf8)
        server.receive(request[..<30])
        #expect(server.nextEvent() == nil)
        #expect(server.headParser != nil)
        server.receive(request[30...])
        guard case .handshakeRequest? = server.nextEvent() else {
            Issue.record("no request")
            return
        }
        #expect(server.headParser == nil)
        try server.accept(subprotocol: nil)
        #expect(server.headParser == nil)

        // A client reads an interim response, then the 101, each head with its own parser.
        let url = try WebSocketURL(parsing: "ws://example.com/chat")
        var client = try Connection(role: .client(Connection.ClientOptions(url: url)))
        let out = HTTPTestSupport.text(client.takeOutput())
        let key = try #require(out.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") })
            .dropFirst("Sec-WebSocket-Key: ".count)
        let accept = AcceptKey.accept(forKey: String(key))
        client.receive(Array("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 101 Switching".utf8))
        #expect(client.nextEvent() == nil)
        #expect(client.headParser != nil)  // the 101's head, half read
        client.receive(Array(" Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8))
        guard case .handshakeCompleted? = client.nextEvent() else {
            Issue.record("the client did not open")
            return
        }
        #expect(client.headParser == nil)
    }

    @Test("A copy of a connection made in the middle of a head reads on apart from the original: the parser they shared is copied, not changed under the other")
    func copyMidHead() throws {
        var original = try Connection(role: .server)
        let request = Array(Self.request(fields: 6).utf8)
        original.receive(request[..<40])
        #expect(original.nextEvent() == nil)
        var copy = original
        // The copy reads a valid rest; the original a line that is not a field.
        copy.receive(request[40...])
        guard case .handshakeRequest(let head)? = copy.nextEvent() else {
            Issue.record("the copy did not read its request")
            return
        }
        #expect(head.head.headers.fields.count == 6)
        original.receive(Array("bad line without a colon\r\n\r\n".utf8))
        var events: [Connection.Event] = []
        while let event = original.nextEvent() { events.append(event) }
        #expect(events.contains { if case .handshakeFailed = $0 { true } else { false } })
        #expect(!events.contains { if case .handshakeRequest = $0 { true } else { false } })
        // And the other way round: the original reads on after the copy failed.
        var second = try Connection(role: .server)
        second.receive(request[..<40])
        _ = second.nextEvent()
        var failing = second
        failing.receive(Array("bad line without a colon\r\n\r\n".utf8))
        while failing.nextEvent() != nil {}
        second.receive(request[40...])
        guard case .handshakeRequest? = second.nextEvent() else {
            Issue.record("the original did not read its request after its copy failed")
            return
        }
    }

    @Test("A refused head is answered once: what follows it is not read as a new head")
    func failedHeadStays() throws {
        var server = try Connection(role: .server)
        server.receive(Array("GET /chat HTTP/1.1\r\nBad Header\r\n\r\n".utf8))
        var events: [Connection.Event] = []
        while let event = server.nextEvent() { events.append(event) }
        #expect(events.contains { if case .handshakeFailed = $0 { true } else { false } })
        #expect(server.takeOutput().starts(with: Array("HTTP/1.1 400".utf8)))
        server.receive(Array(Self.request(fields: 5).utf8))
        #expect(server.nextEvent() == nil)
        #expect(server.pendingHandshakeRequest == nil)
        #expect(server.takeOutput().isEmpty)
    }

    @Test("A client connection's boxed options still make its handshake request")
    func clientRoleBoxed() throws {
        let url = try WebSocketURL(parsing: "ws://example.com/chat")
        var connection = try Connection(role: .client(Connection.ClientOptions(url: url)))
        guard case .client(let options) = connection.role else {
            Issue.record("not a client")
            return
        }
        #expect(options.url == url)
        let request = HTTPTestSupport.text(connection.takeOutput())
        #expect(request.hasPrefix("GET /chat HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: example.com\r\n"))
    }
}
