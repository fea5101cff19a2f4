// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// An extension whose client side refuses every response: stands for one whose parameters the
/// server got wrong.
struct RefusingExtension: WebSocketExtension {
    var name: String { "x-refuse" }
    func makeOffers() -> [Connection.ExtensionHeader] { [Connection.ExtensionHeader(name: name)] }
    func accept(response: Connection.ExtensionHeader, offers: [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError> {
        .failure(Connection.ExtensionNegotiationError("parameter out of range"))
    }
    func negotiate(offers: [Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)? { nil }
}

/// The client's side of a 101 it cannot accept, and of extensions negotiated by hand.
@Suite("Client: malformed and unacceptable responses, extensions offered by hand (§4.1, §9.1)")
struct HandshakeResponseFailureTests {
    /// A client with `configuration` and a server that has read its request.
    static func requested(client configuration: Connection.Configuration = Connection.Configuration(), server serverConfiguration: Connection.Configuration = Connection.Configuration(),
                          extensions: [Connection.ExtensionHeader] = []) throws -> (client: Connection, server: Connection, request: Connection.HandshakeRequest) {
        var client = try Connection(role: .client(clientOptions(extensions: extensions)), configuration: configuration,
                                    random: Connection.SeededGenerator(seed: 7))
        var server = try Connection(role: .server, configuration: serverConfiguration)
        guard case .handshakeRequest(let request)? = pump(&client, into: &server).first else { throw TestFailure("no request") }
        return (client, server, request)
    }

    @Test("A malformed status line fails the handshake as an invalid response, and the transport closes", arguments: [
        "HTTP/1.1 10x Switching Protocols\r\n\r\n",
        "HTTP/1.1101 Switching Protocols\r\n\r\n",
        "SIP/2.0 101 Switching Protocols\r\n\r\n",
    ])
    func malformedStatusLine(response: String) throws {
        var client = try Connection(role: .client(clientOptions()))
        _ = client.takeOutput()
        client.receive(Array(response.utf8))
        let events = drain(&client)
        guard case .handshakeFailed(let failure)? = events.first, let error = failure.invalidResponse else { throw TestFailure("\(events)") }
        #expect(error == .malformedStatusLine)
        #expect(client.shouldCloseTransport)
        #expect(client.pendingOutputCount == 0)
    }

    @Test("An extension offered by hand and accepted by the server: header-level only, the handshake completes with it")
    func extensionOfferedByHand() throws {
        var (client, server, request) = try Self.requested(extensions: [Connection.ExtensionHeader(name: "x-manual")])
        #expect(request.extensions.map(\.name) == ["x-manual"])
        try server.accept(extensions: [Connection.ExtensionHeader(name: "x-manual")])
        let events = pump(&server, into: &client)
        guard case .handshakeCompleted(let result)? = events.first else { throw TestFailure("\(events)") }
        #expect(result.extensions == [Connection.ExtensionHeader(name: "x-manual")])
        // No transform: frames with RSV1 are still a violation.
        client.receive(frame(0x1, Array("x".utf8), rsv: 0x40))
        #expect(drain(&client).first == .protocolViolation(Connection.ProtocolViolation(.reservedBitsSet)))
    }

    @Test("The configured extension refuses the server's response: the handshake fails with its reason")
    func extensionRefusesResponse() throws {
        var config = Connection.Configuration()
        config.extensions = [RefusingExtension()]
        var (client, server, request) = try Self.requested(client: config)
        #expect(request.extensions.map(\.name) == ["x-refuse"])
        try server.accept(extensions: [Connection.ExtensionHeader(name: "x-refuse")])
        let events = pump(&server, into: &client)
        #expect(events.first == .handshakeFailed(.invalidResponse(.invalidExtensionResponse("parameter out of range"))))
        #expect(client.shouldCloseTransport)
    }

    @Test("The server accepts one extension twice (RFC 7692 §7.1): the handshake fails")
    func extensionAcceptedTwice() throws {
        var config = Connection.Configuration()
        config.extensions = [XORExtension()]
        // The server negotiates x-xor through its configured extension and lists it once more by hand.
        var (client, server, _) = try Self.requested(client: config, server: config)
        try server.accept(extensions: [Connection.ExtensionHeader(name: "x-xor")])
        let events = pump(&server, into: &client)
        #expect(events.first == .handshakeFailed(.invalidResponse(.invalidExtensionResponse("x-xor accepted twice"))))
        if case .closed = client.state {} else { Issue.record("client not closed: \(client.state)") }
    }
}
