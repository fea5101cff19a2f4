// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

@Suite("Opening wait", .timeLimit(.minutes(4)))
struct OpeningWaitTests {
    /// The async `connect` starts the client, then sends its wait for the opening to the loop. When
    /// the calling task is descheduled in between (it was, under a one-CPU `taskset`, for about one
    /// connect in ten), the connection opens first, and the session answers the late wait with an
    /// action that nothing carried out until a stale timer fired: `connect` returned only at the
    /// handshake or connect timeout (10 s). Here the wait is made to arrive late on purpose.
    @Test("A wait for the opening that reaches the loop after the connection opened is answered at once")
    func waitAfterOpening() async throws {
        var serverConfiguration = Connection.Configuration()
        serverConfiguration.timeouts.handshake = .seconds(60)
        serverConfiguration.timeouts.close = .seconds(60)
        let server = try WebSocketServer(port: 0, configuration: serverConfiguration) { socket, event in
            if case .open = event { try? socket.send(text: "hello") }
        }
        defer { server.stop() }
        // With the fault, the wait ends at the first of these timers; well beyond the bound below.
        var options = TransportOptions()
        options.connectTimeout = .seconds(60)
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .seconds(60)
        configuration.timeouts.close = .seconds(60)
        let endpoint = try WebSocketEndpoint(parsing: "ws://127.0.0.1:\(server.port)/")
        let socket = try WebSocket.startClient(Connection.ClientOptions(url: endpoint.url), via: endpoint,
                                               configuration: configuration, options: options, consumer: .pending,
                                               system: .live)
        // The server's first message has been parsed by the client's loop: the connection is open there.
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hello"))

        let start = now()
        let result = await socket.waitUntilOpen()
        #expect(throws: Never.self) { try result.get() }
        #expect(now() - start < .seconds(30), "answered by a timer, not at once")
        #expect(try await socket.close().wasClean)
    }
}
