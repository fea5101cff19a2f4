// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

@Suite("The blocking server behind a load balancer: PROXY protocol headers")
struct ProxyProtocol_Tests {
    @Test("A trusted proxy's version 1 header gives the client's address; an untrusted peer's header ends the connection")
    func headers() throws {
        var options = serverOptions()
        options.proxyProtocol = try TrustedProxies(["127.0.0.1"])
        let server = try BlockingWebSocketServer(configuration: testConfiguration(), options: options)
        let seen = Mailbox<String>()
        let running = try RunningServer(server, handshake: { _ in .accept() }, handler: { socket in
            seen.put("\(socket.clientAddress?.description ?? "none") via \(socket.remoteAddress?.host ?? "none")")
            echo(socket)
        })
        defer { #expect(running.stop()) }
        let header = Array("PROXY TCP6 2001:db8::5 ::1 40001 443\r\n".utf8)
        let socket = try RawSocket.connect(port: server.port)
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))))
        socket.write(header + client.takeOutput())
        var opened = false
        while !opened, let bytes = socket.read(), !bytes.isEmpty {
            client.receive(bytes)
            while let event = client.nextEvent() { if case .handshakeCompleted = event { opened = true } }
        }
        #expect(opened)
        #expect(seen.take() == "[2001:db8::5]:40001 via 127.0.0.1")
        socket.close()

        // The same server, trusting another address only: the header is refused.
        var strict = serverOptions()
        strict.proxyProtocol = try TrustedProxies(["192.0.2.1"])
        let other = try BlockingWebSocketServer(configuration: testConfiguration(), options: strict)
        let otherRunning = try RunningServer(other, handshake: { _ in .accept() }, handler: { socket in echo(socket) })
        defer { #expect(otherRunning.stop()) }
        let refused = try RawSocket.connect(port: other.port)
        var refusedClient = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: other.port))))
        refused.write(header + refusedClient.takeOutput())
        let answer = try refused.socket.readToEnd(timeout: .seconds(60))
        #expect(answer.sawEnd)
        #expect(answer.bytes.isEmpty, "the server answered \(answer.bytes.count) bytes to a refused header")
    }
}
