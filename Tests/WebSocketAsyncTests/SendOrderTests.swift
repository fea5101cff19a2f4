// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

@Suite("Send order across threads", .timeLimit(.minutes(4)))
struct SendOrderTests {
    /// Sends from another thread wait in the socket's outbox until the loop carries them out; a send
    /// on the loop went straight into the connection, ahead of them, although their calls had
    /// returned before it was made. Here the handler is held while another thread sends, then
    /// sends itself: the peer must get the other thread's messages first. The loop it holds is the
    /// test's own.
    @Test("A send on the loop does not overtake sends from another thread whose calls returned before it")
    func loopSendAfterOtherThreadSends() async throws {
        // Blocking waits throughout: on a thread of their own, not on the cooperative pool.
        try await Harness.offPool { try Self.sendOrder() }
    }

    private static func sendOrder() throws {
        let listener = try RawListener()
        defer { listener.close() }
        // 0: waiting for "go"; 1: the handler holds; 2: released.
        let gate = Locked(0)
        // What `WebSocket.connect(to:handler:)` does, on the test's loop.
        let endpoint = try WebSocketEndpoint(parsing: "ws://127.0.0.1:\(listener.port)/")
        let handler: WebSocket.EventHandler = { socket, event in
            guard case .message(.text("go")) = event else { return }
            gate.withLock { $0 = 1 }
            gate.broadcast()
            _ = gate.wait(until: { $0 == 2 }, deadline: now() + Harness.patience, now: now)
            try? socket.send(text: "b")
        }
        let socket = try WebSocket.startClient(Connection.ClientOptions(url: endpoint.url), via: endpoint,
                                               configuration: Harness.configuration(), options: Harness.options(),
                                               consumer: .loopHandler(handler), system: .live, loop: Harness.privateLoop())
        defer { socket.cancel() }
        let peer = try listener.accept(timeout: Harness.patience)
        defer { peer.close() }
        var server = try peer.acceptHandshake()
        peer.write(serverFrame(0x81, Array("go".utf8)))
        #expect(gate.wait(until: { $0 == 1 }, deadline: now() + Harness.patience, now: now))
        // The connection is open (the handler ran); this thread is not the loop's.
        for i in 0..<10 { try socket.send(text: "a\(i)") }
        gate.withLock { $0 = 2 }
        gate.broadcast()

        var texts: [String] = []
        let deadline = now() + Harness.patience
        while texts.count < 11, now() < deadline {
            guard let bytes = peer.read(timeout: deadline - now()), !bytes.isEmpty else { break }
            server.receive(bytes)
            while let event = server.nextEvent() {
                if case .text(let text) = event { texts.append(text) }
            }
        }
        #expect(texts == (0..<10).map { "a\($0)" } + ["b"])
    }

    /// The same for a task that runs on the socket's loop (its executor) and closes: the close's
    /// work runs at once, in the task's job, before the loop's turn carries out the other thread's
    /// send; the Close must still follow that send (nothing is sent after a Close, RFC 6455 §5.5.1).
    /// The task holds the client's loop until this test's task has run again, which a busy
    /// cooperative pool can delay for long: the loop is the test's own.
    @Test("A close from a task on the loop does not overtake a send from another thread that returned before it")
    func taskCloseAfterOtherThreadSend() async throws {
        let texts = Locked<[String]>([])
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options()) { _, event in
            if case .message(.text(let text)) = event { texts.withLock { $0.append(text) } }
        }
        defer { server.stop() }
        // What `WebSocket.connect(to:)` does, on the test's loop.
        let endpoint = try WebSocketEndpoint(parsing: Harness.url("127.0.0.1", server.port))
        let client = try await WebSocket.connect(Connection.ClientOptions(url: endpoint.url), via: endpoint,
                                                 configuration: Harness.configuration(), options: Harness.options(),
                                                 system: .live, loop: Harness.privateLoop())
        // 1: the task's job is running on the loop; 2: the other thread's send returned.
        let gate = Locked(0)
        let closing = Task(executorPreference: client.executor) { () async throws(WebSocketError) -> Connection.CloseStatus in
            gate.withLock { $0 = 1 }
            gate.broadcast()
            _ = gate.wait(until: { $0 == 2 }, deadline: now() + Harness.patience, now: now)
            return try await client.close()
        }
        try await Harness.offPool {
            guard gate.wait(until: { $0 == 1 }, deadline: now() + Harness.patience, now: now) else { throw FaceFailure("no task") }
            try client.send(text: "before the close")
            gate.withLock { $0 = 2 }
            gate.broadcast()
        }
        let status = try await closing.value
        #expect(status.wasClean, "\(status)")
        #expect(texts.withLock { $0 } == ["before the close"])
    }

}
