// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

/// What the blocking adapter gained with the one API shape: `cancel()`, the `messages` and
/// `connections` sequences, the awaited `ping`, `stop(closing:)` for connections that open later,
/// and `connectionCount`.
@Suite("Blocking adapter: the one API shape", .timeLimit(.minutes(2)), .onTestThreads)
struct SameShapeTests {
    @Test("cancel() from another thread: the thread blocked in receive() gets nil, the end is 1006 (aborted)")
    func cancelWhileReceiving() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions(receiveTimeout: nil))
            let received = Mailbox<String>()
            try spawnDetachedThread {
                do {
                    received.put(try client.receive().map { "\($0)" } ?? "nil")
                } catch {
                    received.put("threw \(error)")
                }
            }
            // The receive is under way (or about to be): cancelling ends it either way.
            client.cancel()
            #expect(received.take(timeout: .seconds(30)) == "nil")
            #expect(client.closeStatus?.code == .abnormalClosure)
            #expect(client.closeStatus?.failure == .aborted)
            #expect(throws: WebSocketError.connection(.notOpen)) { try client.send(text: "after") }
            client.cancel()   // a second cancel does nothing
        }
    }

    @Test("messages: every message in order, then the end of the sequence at the close")
    func messagesSequence() throws {
        try withServer(handler: { socket in
            for index in 0..<5 { try? socket.send(text: "message \(index)") }
            _ = try? socket.close()
        }) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            let messages = Array(client.messages)
            #expect(messages == (0..<5).map { .text("message \($0)") })
            #expect(client.closeStatus?.wasClean == true)
        }
    }

    @Test("ping(_:timeout:) returns the round trip; while another thread is in receive(), that thread carries the pong")
    func awaitedPing() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions(receiveTimeout: nil))
            #expect(try client.ping() > .zero)
            let received = Mailbox<WebSocketMessage>()
            try spawnDetachedThread {
                if let message = try? client.receive() { received.put(message) }
            }
            #expect(try client.ping(Array("mine".utf8), timeout: .seconds(30)) > .zero)
            try client.send(text: "echo")
            #expect(received.take(timeout: .seconds(30)) == .text("echo"))
            try client.close()
        }
    }

    @Test("A ping nobody answers times out and the connection goes on")
    func pingTimesOut() throws {
        var configuration = testConfiguration()
        configuration.respondsToPingsAutomatically = false
        try withServer(configuration: configuration) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            #expect(throws: WebSocketError.timedOut(.ping)) { try client.ping(timeout: .milliseconds(200)) }
            try client.send(text: "still open")
            #expect(try client.receive() == .text("still open"))
            try client.close()
        }
    }

    @Test("connections: each opened connection, in order, until stop(); connectionCount counts the open ones")
    func connectionsSequence() throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: serverOptions())
        let taken = Mailbox<Int>()
        let ended = Mailbox<Bool>()
        // The server's side of each connection, kept: dropping one closes it.
        let held = Locked<[BlockingWebSocket]>([])
        try spawnDetachedThread {
            var count = 0
            for socket in server.connections {
                count += 1
                held.withLock { $0.append(socket) }
                try? socket.send(text: "connection \(count)")
                if count == 3 { taken.put(count) }
            }
            ended.put(true)
        }
        var clients: [BlockingWebSocket] = []
        for index in 1...3 {
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", options: testOptions())
            #expect(try client.receive() == .text("connection \(index)"))
            clients.append(client)
        }
        #expect(taken.take(timeout: .seconds(30)) == 3)
        #expect(server.connectionCount == 3)
        // The client closes; the server's side reads its Close and finishes the handshake.
        func close(_ index: Int) throws {
            let serverSide = held.withLock { $0[index] }
            let serverEnded = Mailbox<Bool>()
            try spawnDetachedThread { serverEnded.put((try? serverSide.receive()) == .some(nil)) }
            try clients[index].sendClose()
            #expect(try clients[index].receive() == nil)
            #expect(serverEnded.take(timeout: .seconds(30)) == true)
        }
        try close(0)
        #expect(server.connectionCount == 2)
        server.stop()
        #expect(ended.take(timeout: .seconds(30)) == true)
        #expect(server.connectionCount == 2, "stop() leaves open connections open")
        try close(1)
        try close(2)
        #expect(server.connectionCount == 0)
    }

    @Test("stop(closing:) closes the open connections with its code, and a connection that opens later too")
    func stopClosingLater() throws {
        let handshakeReached = Mailbox<Bool>()
        let release = Locked(false)
        try withServer(handshake: { _ in
            handshakeReached.put(true)
            // The decision waits until the server has stopped: the connection opens after.
            _ = release.wait(until: { $0 }, deadline: now() + .seconds(30), now: now)
            return .accept()
        }) { server in
            let late = Mailbox<BlockingWebSocket>()
            try spawnDetachedThread {
                if let client = try? BlockingWebSocket.connect(to: server.url(), options: testOptions()) { late.put(client) }
            }
            #expect(handshakeReached.take(timeout: .seconds(30)) == true)
            server.server.stop(closing: .serviceRestart, reason: "restart")
            release.withLock { $0 = true }
            release.broadcast()
            let client = try #require(late.take(timeout: .seconds(30)))
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .serviceRestart)
            #expect(client.closeStatus?.reason == "restart")
        }
    }
}
