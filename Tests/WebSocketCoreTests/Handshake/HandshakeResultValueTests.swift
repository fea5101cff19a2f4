// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// `HandshakeResult` keeps its fields in one shared box, as `HandshakeRequest` does: it must still
/// behave as a value.
@Suite("HandshakeResult is a value: copies share their fields until one changes")
struct HandshakeResultValueTests {
    static func result() -> Connection.HandshakeResult {
        Connection.HandshakeResult(subprotocol: "chat", extensions: [Connection.ExtensionHeader(name: "x-one")],
                                   headers: ["Server": "test"], resource: "/room?id=1")
    }

    @Test("Changing a copy's field leaves the original as it was, and makes the two unequal")
    func copyOnWrite() {
        let original = Self.result()
        var copy = original
        #expect(copy == original)
        #expect(copy.hashValue == original.hashValue)

        copy.subprotocol = nil
        copy.extensions.append(Connection.ExtensionHeader(name: "x-two"))
        copy.headers = [:]
        copy.resource = "/elsewhere"
        #expect(original.subprotocol == "chat")
        #expect(original.extensions.map(\.name) == ["x-one"])
        #expect(original.headers["Server"] == "test")
        #expect(original.resource == "/room?id=1")
        #expect(copy.subprotocol == nil)
        #expect(copy.extensions.map(\.name) == ["x-one", "x-two"])
        #expect(copy.headers["Server"] == nil)
        #expect(copy.resource == "/elsewhere")
        #expect(copy != original)
    }

    @Test("Two results built apart from the same parts are equal and hash alike")
    func equalAcrossStorage() {
        let one = Self.result()
        var other = Self.result()
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
        #expect(Set([one, other]).count == 1)
        other.resource = "/changed"
        #expect(one != other)
        other.resource = "/room?id=1"
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
    }

    @Test("Both ends of a handshake report the result their own side agreed on")
    func bothEnds() throws {
        var server = try Connection(role: .server)
        var client = try Connection(role: .client(clientOptions(subprotocols: ["chat"])), random: Connection.SeededGenerator(seed: 5))
        server.receive(client.takeOutput())
        guard case .handshakeRequest? = server.nextEvent() else {
            Issue.record("no request")
            return
        }
        try server.accept(subprotocol: "chat")
        guard case .handshakeCompleted(let serverResult)? = server.nextEvent() else {
            Issue.record("server: no result")
            return
        }
        client.receive(server.takeOutput())
        guard case .handshakeCompleted(let clientResult)? = client.nextEvent() else {
            Issue.record("client: no result")
            return
        }
        #expect(serverResult.subprotocol == "chat")
        #expect(clientResult.subprotocol == "chat")
        #expect(serverResult.resource == clientResult.resource)
        #expect(serverResult.headers["Sec-WebSocket-Protocol"] == "chat")   // the client's request
        #expect(clientResult.headers["Sec-WebSocket-Protocol"] == "chat")   // the server's 101
    }
}

/// `CloseStatus` keeps its fields in one shared box too.
@Suite("CloseStatus is a value: copies share their fields until one changes")
struct CloseStatusValueTests {
    @Test("Changing a copy's field leaves the original as it was; statuses built apart are equal and hash alike")
    func copyOnWrite() {
        let original = Connection.CloseStatus(code: .normalClosure, reason: "bye", wasClean: true)
        var copy = original
        #expect(copy == original)
        copy.code = .goingAway
        copy.reason = "later"
        copy.wasClean = false
        copy.failure = .aborted
        #expect(original.code == .normalClosure && original.reason == "bye" && original.wasClean && original.failure == nil)
        #expect(copy.code == .goingAway && copy.reason == "later" && !copy.wasClean && copy.failure == .aborted)
        #expect(copy != original)
        let again = Connection.CloseStatus(code: .normalClosure, reason: "bye", wasClean: true)
        #expect(again == original)
        #expect(again.hashValue == original.hashValue)
        #expect(Set([again, original, copy]).count == 2)
    }
}
