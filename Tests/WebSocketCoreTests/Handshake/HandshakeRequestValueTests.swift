// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// `HandshakeRequest` keeps its fields in one shared box: it must still behave as a value.
@Suite("HandshakeRequest is a value: copies share their fields until one changes")
struct HandshakeRequestValueTests {
    static func request() throws -> Connection.HandshakeRequest {
        let head = try OpenedConnectionTests.requestHead(clientOptions(subprotocols: ["chat", "superchat"]))
        return try Connection.HandshakeRequest(validating: head)
    }

    @Test("Changing a copy's field leaves the original as it was, and makes the two unequal")
    func copyOnWrite() throws {
        let original = try Self.request()
        let resource = original.resource
        var copy = original
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)

        copy.resource = "/elsewhere"
        copy.subprotocols.append("third")
        copy.kind = .plain
        #expect(original.resource == resource)
        #expect(resource != "/elsewhere")
        #expect(original.subprotocols == ["chat", "superchat"])
        #expect(original.kind == .upgrade)
        #expect(copy.resource == "/elsewhere")
        #expect(copy.subprotocols == ["chat", "superchat", "third"])
        #expect(copy.kind == .plain)
        #expect(copy != original)
    }

    @Test("Two requests built apart from the same head are equal and hash alike")
    func equalAcrossStorage() throws {
        let one = try Self.request()
        var other = try Self.request()
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(Set([one, other]).count == 1)
        // Changed and changed back: a box of its own, the same fields.
        let host = other.host
        other.host = "changed.example"
        other.host = host
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
    }

    @Test("A connection's pending request and the event's are the same request, answerable once")
    func pendingRequestMatchesEvent() throws {
        var server = try Connection(role: .server)
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 3))
        server.receive(client.takeOutput())
        guard case .handshakeRequest(let request)? = server.nextEvent() else {
            Issue.record("no request")
            return
        }
        #expect(server.pendingHandshakeRequest == request)
        try server.accept()
        #expect(server.pendingHandshakeRequest == nil)
        #expect(server.state == .open)
    }
}
