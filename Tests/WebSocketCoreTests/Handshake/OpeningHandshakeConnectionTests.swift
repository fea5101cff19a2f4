// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Opening handshake through the Connection (§4)")
struct OpeningHandshakeConnectionTests {
    @Test("The client's request and its first frame in one chunk: the frame is not lost")
    func requestAndFrameTogether() throws {
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 1))
        var server = try Connection(role: .server)
        let request = client.takeOutput()
        server.receive(request + clientFrame(0x1, Array("early".utf8)))
        guard case .handshakeRequest(let req)? = server.nextEvent() else { throw TestFailure("no request") }
        #expect(req.resource == "/chat?room=1")
        #expect(server.nextEvent() == nil)  // no frame is read before the decision
        try server.accept()
        #expect(drain(&server).dropFirst() == [.text("early")])
    }

    @Test("The server's 101 and its first frame in one chunk: the frame is not lost")
    func responseAndFrameTogether() throws {
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 1))
        var server = try Connection(role: .server)
        _ = pump(&client, into: &server)
        try server.accept()
        try server.send(text: "welcome")
        let events = pump(&server, into: &client)
        #expect(events.count == 2)
        #expect(events.last == .text("welcome"))
    }

    @Test("Subprotocol negotiation reaches both sides")
    func subprotocol() throws {
        let (client, server) = try openPair(subprotocols: ["chat", "superchat"])
        _ = client
        _ = server
        var c = try Connection(role: .client(clientOptions(subprotocols: ["chat", "superchat"])))
        var s = try Connection(role: .server)
        guard case .handshakeRequest(let request)? = pump(&c, into: &s).first else { throw TestFailure("no request") }
        #expect(request.subprotocols == ["chat", "superchat"])
        #expect(throws: Connection.UsageError.subprotocolNotOffered("other")) { try s.accept(subprotocol: "other") }
        try s.accept(subprotocol: "superchat")
        guard case .handshakeCompleted(let result)? = pump(&s, into: &c).first else { throw TestFailure("no completion") }
        #expect(result.subprotocol == "superchat")
    }

    @Test("A rejected handshake reports status, headers and body to the client")
    func rejection() throws {
        var c = try Connection(role: .client(clientOptions()))
        var s = try Connection(role: .server)
        _ = pump(&c, into: &s)
        try s.reject(status: 403, headers: ["X-Why": "nope"], body: Array("forbidden".utf8))
        #expect(s.shouldCloseTransport)
        let events = pump(&s, into: &c)
        guard case .handshakeFailed(let failure)? = events.first, let response = failure.rejected else { throw TestFailure("\(events)") }
        #expect(response.status == 403)
        #expect(response.headers["x-why"] == "nope")
        #expect(response.body == Array("forbidden".utf8))
        #expect(c.shouldCloseTransport)
        if case .closed = c.state {} else { Issue.record("client not closed") }
    }

    @Test("respond(to:) applies a decision; one the core refuses becomes 500; without a request it throws")
    func respondToDecision() throws {
        func awaitingDecision() throws -> (Connection, Connection) {
            var c = try Connection(role: .client(clientOptions(subprotocols: ["chat"])), random: Connection.SeededGenerator(seed: 3))
            var s = try Connection(role: .server)
            guard case .handshakeRequest? = pump(&c, into: &s).first else { throw TestFailure("no request") }
            return (c, s)
        }
        func statusLine(_ bytes: [UInt8]) -> String {
            String(decoding: bytes.prefix { $0 != 13 }, as: UTF8.self)
        }
        // Accepted, with the offered subprotocol.
        var (client, server) = try awaitingDecision()
        try server.respond(to: .accept(subprotocol: "chat"))
        guard case .handshakeCompleted(let result)? = pump(&server, into: &client).first else { throw TestFailure("not accepted") }
        #expect(result.subprotocol == "chat")
        // Rejected as asked.
        (client, server) = try awaitingDecision()
        try server.respond(to: .reject(status: 404, body: Array("gone".utf8)))
        #expect(statusLine(server.takeOutput()).hasPrefix("HTTP/1.1 404"))
        // A subprotocol the client did not offer, or status 101 as a refusal: the application's error, 500.
        for decision in [Connection.HandshakeDecision.accept(subprotocol: "other"), .reject(status: 101)] {
            (client, server) = try awaitingDecision()
            try server.respond(to: decision)
            #expect(statusLine(server.takeOutput()).hasPrefix("HTTP/1.1 500"))
            #expect(server.pendingHandshakeRequest == nil)
        }
        // Nothing to answer.
        #expect(throws: Connection.UsageError.noPendingHandshakeRequest) { try server.respond(to: .accept()) }
    }

    @Test("Sending before the handshake completes throws notOpen")
    func sendBeforeOpen() throws {
        var c = try Connection(role: .client(clientOptions()))
        #expect(throws: Connection.UsageError.notOpen) { try c.send(text: "x") }
        #expect(throws: Connection.UsageError.notOpen) { try c.close() }
        #expect(throws: Connection.UsageError.noPendingHandshakeRequest) { try c.accept() }
        #expect(c.state == .connecting)
    }

    @Test("A bad request gets its HTTP error and the handshake fails", arguments: [
        ("POST / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 426),
        ("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n", 400),
    ])
    func badRequest(request: String, status: Int) throws {
        var s = try Connection(role: .server)
        s.receive(Array(request.utf8))
        let events = drain(&s)
        guard case .handshakeFailed(let failure)? = events.first, let error = failure.invalidRequest else { throw TestFailure("\(events)") }
        #expect(error.httpStatus == status)
        let response = String(decoding: s.takeOutput(), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 \(status) "))
        if status == 426 { #expect(response.contains("Sec-WebSocket-Version: 13")) }
        #expect(s.shouldCloseTransport)
    }

    @Test("A response with a wrong accept value fails the client's handshake")
    func wrongAccept() throws {
        var c = try Connection(role: .client(clientOptions()))
        _ = c.takeOutput()
        c.receive(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n".utf8))
        #expect(drain(&c).first == .handshakeFailed(.invalidResponse(.invalidAccept)))
    }

    @Test("End of stream during the handshake fails it")
    func eofDuringHandshake() throws {
        var c = try Connection(role: .client(clientOptions()))
        c.receive(Array("HTTP/1.1 101 Switching".utf8))
        c.receiveEOF()
        #expect(drain(&c).first == .handshakeFailed(.endOfStream))
    }

    @Test("Interim 1xx responses before the 101 are skipped")
    func interimResponse() throws {
        var c = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 3))
        var s = try Connection(role: .server)
        _ = pump(&c, into: &s)
        try s.accept()
        c.receive(Array("HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n".utf8))
        #expect(pump(&s, into: &c).count == 1)
        #expect(c.state == .open)
    }

    @Test("The client request carries Basic auth, cookies, origin and the RFC headers")
    func clientRequestHeaders() throws {
        var options = Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://alice:s%20cret@[::1]:9001/x?y=1"))
        options.origin = "http://example.com"
        options.cookies = [Connection.Cookie(name: "a", value: "1"), Connection.Cookie(name: "b", value: "2")]
        var c = try Connection(role: .client(options))
        let request = String(decoding: c.takeOutput(), as: UTF8.self)
        #expect(request.hasPrefix("GET /x?y=1 HTTP/1.1\r\n"))
        #expect(request.contains("Host: [::1]:9001\r\n"))
        #expect(request.contains("Authorization: Basic " + Base64.encode(Array("alice:s cret".utf8)) + "\r\n"))
        #expect(request.contains("Cookie: a=1; b=2\r\n"))
        #expect(request.contains("Origin: http://example.com\r\n"))
        #expect(request.contains("Sec-WebSocket-Version: 13\r\n"))
        #expect(request.hasSuffix("\r\n\r\n"))
    }
}
