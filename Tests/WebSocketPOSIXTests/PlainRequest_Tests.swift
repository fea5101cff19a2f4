// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

@Suite("The blocking server answers plain HTTP requests through its handshake decision")
struct PlainRequest_Tests {
    @Test("With answersPlainRequests a GET reaches the decision; without, 426 as before")
    func health() throws {
        var configuration = testConfiguration()
        configuration.answersPlainRequests = true
        let decide: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
            request.kind == .plain && request.resource == "/health" ? .reject(status: 200, body: Array("ok\n".utf8)) : .accept()
        }
        for (configuration, expected) in [(configuration, "HTTP/1.1 200 OK\r\n"), (testConfiguration(), "HTTP/1.1 426 ")] {
            let server = try BlockingWebSocketServer(configuration: configuration, options: serverOptions())
            let running = try RunningServer(server, handshake: decide, handler: { socket in echo(socket) })
            defer { #expect(running.stop()) }
            let socket = try RawSocket.connect(port: server.port)
            socket.write(Array("GET /health HTTP/1.1\r\nHost: lb\r\n\r\n".utf8))
            let answer = try socket.socket.readToEnd(timeout: .seconds(60))
            socket.close()
            #expect(answer.sawEnd)
            #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix(expected), "\(String(decoding: answer.bytes, as: UTF8.self))")
        }
    }
}
