// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// Waits that reach a socket's loop after the socket opened, or after it ended: they are answered
/// at once, never left waiting for an input that will not come.
@Suite("Waits on a socket that opened or ended meanwhile", .timeLimit(.minutes(4)))
struct EndedSocketTests {
    /// A server that greets each connection with its number and closes it with 1012 at once.
    static func greetingServer() throws -> WebSocketServer {
        let count = Locked(0)
        return try WebSocketServer(port: 0, configuration: testConfiguration()) { socket, event in
            guard case .open = event else { return }
            let index = count.withLock { count in
                defer { count += 1 }
                return count
            }
            try? socket.send(text: "hello \(index)")
            try? socket.sendClose(code: .serviceRestart)
        }
    }

    @Test("The wait for the opening, after the connection opened and ended: success, and the messages that came are there")
    func openingWaitAfterTheEnd() async throws {
        let server = try Self.greetingServer()
        defer { server.stop() }
        let endpoint = try WebSocketEndpoint(parsing: "ws://127.0.0.1:\(server.port)/")
        let socket = try WebSocket.startClient(Connection.ClientOptions(url: endpoint.url), via: endpoint, configuration: testConfiguration(),
                                               options: testOptions(), consumer: .pending, system: .live)
        let ending = await withCheckedContinuation { continuation in socket.whenEnded { continuation.resume(returning: $0) } }
        #expect(ending == .closed(Connection.CloseStatus(code: .serviceRestart, reason: "", wasClean: true)))
        let opening = await socket.waitUntilOpen()
        #expect((try? opening.get()) != nil, "\(opening)")
        var messages: [WebSocketMessage] = []
        for try await message in socket.messages { messages.append(message) }
        #expect(messages == [.text("hello 0")])
    }

    @Test("The wait for the opening, after a connect that failed: its error, at once")
    func openingWaitAfterAFailure() async throws {
        let server = try WebSocketServer(port: 0, configuration: testConfiguration(), handshake: { _ in .reject(status: 403) }) { _, _ in }
        defer { server.stop() }
        let endpoint = try WebSocketEndpoint(parsing: "ws://127.0.0.1:\(server.port)/")
        let socket = try WebSocket.startClient(Connection.ClientOptions(url: endpoint.url), via: endpoint, configuration: testConfiguration(),
                                               options: testOptions(), consumer: .pending, system: .live)
        _ = await withCheckedContinuation { continuation in socket.whenEnded { continuation.resume(returning: $0) } }
        let opening = await socket.waitUntilOpen()
        guard case .failure(.handshakeFailed(let failure)) = opening else {
            Issue.record("\(opening)")
            return
        }
        #expect(failure.rejected?.head.status == 403)
    }

    @Test("An async send on a socket that has ended throws at once")
    func sendAfterTheEnd() async throws {
        let server = try Self.greetingServer()
        defer { server.stop() }
        let socket = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(), options: testOptions())
        // The messages end once the socket is closed.
        for try await _ in socket.messages {}
        await #expect(throws: WebSocketError.self) { try await socket.send(.text("late")) }
        await #expect(throws: WebSocketError.self) { try await socket.send(.ping([1])) }
    }

    @Test("Connects to a server that greets and closes at once, 200 times: each returns its socket with the greeting")
    func connectRace() async throws {
        let server = try Self.greetingServer()
        defer { server.stop() }
        for index in 0..<200 {
            let socket = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(), options: testOptions())
            var messages: [WebSocketMessage] = []
            for try await message in socket.messages { messages.append(message) }
            #expect(messages == [.text("hello \(index)")])
        }
    }
}
