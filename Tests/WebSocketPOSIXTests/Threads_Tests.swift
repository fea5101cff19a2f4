// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

/// The threading model: sends and closes from any thread, one receiver at a time, server stop.
@Suite("Threads: concurrent sends, close while receiving, server stop", .onTestThreads)
struct ThreadsTests {
    @Test("Several threads send at once: every message arrives whole")
    func concurrentSenders() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            let done = Locked(0)
            for sender in 0..<4 {
                try spawnDetachedThread {
                    for index in 0..<50 {
                        try? client.send(binary: [UInt8](repeating: UInt8(sender), count: 1000 + index))
                    }
                    done.withLock { $0 += 1 }
                    done.broadcast()
                }
            }
            var counts = [0, 0, 0, 0]
            for _ in 0..<200 {
                guard case .binary(let bytes)? = try client.receive(), let first = bytes.first else {
                    Issue.record("expected a binary message")
                    break
                }
                #expect(bytes.allSatisfy { $0 == first })
                counts[Int(first)] += 1
            }
            #expect(counts == [50, 50, 50, 50])
            #expect(done.wait(until: { $0 == 4 }, deadline: now() + .seconds(10), now: now))
            try client.close()
        }
    }

    @Test("close() from another thread while one thread is blocked in receive(): both end")
    func closeWhileReceiving() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions(receiveTimeout: nil))
            let receiverEnded = Mailbox<Bool>()
            try spawnDetachedThread {
                // Blocks with no deadline of its own until the close wakes it.
                while (try? client.receive()) != nil {}
                receiverEnded.put(true)
            }
            _ = receiverEnded.take(timeout: .milliseconds(100))   // let it block in poll
            let status = try client.close(code: .goingAway, reason: "from another thread")
            #expect(status.code == .goingAway)
            #expect(status.wasClean)
            #expect(receiverEnded.take() == true)
        }
    }

    @Test("A close started while another thread receives still obeys the close timeout")
    func closeTimeoutWhileReceiving() throws {
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            _ = try? socket.readToEnd(timeout: .seconds(5))   // never answers the Close
        }
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(200)
        let client = try BlockingWebSocket.connect(to: peer.url, configuration: configuration,
                                                   options: testOptions(receiveTimeout: nil))
        let receiverEnded = Mailbox<Connection.CloseStatus?>()
        try spawnDetachedThread {
            while (try? client.receive()) != nil {}
            receiverEnded.put(client.closeStatus)
        }
        _ = receiverEnded.take(timeout: .milliseconds(50))
        let start = now()
        let status = try client.close()
        #expect(status.failure == .closeTimeout)
        #expect(now() - start < .seconds(3))
        #expect(receiverEnded.take()??.failure == .closeTimeout)
        #expect(peer.join())
    }

    @Test("sendClose(): receive() returns what the peer sent before its Close, then nil")
    func sendCloseThenReceive() throws {
        try withServer(handler: { socket in
            guard case .text(let text)? = try? socket.receive() else { return }
            // Two messages, then the answer to the client's Close (which arrives meanwhile).
            try? socket.send(text: text + " 1")
            try? socket.send(text: text + " 2")
            while (try? socket.receive()) != nil {}
        }) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            try client.send(text: "reply")
            try client.sendClose(code: Connection.CloseCode(rawValue: 4001), reason: "done")
            #expect(client.state == .closing(initiatedBy: .local))
            #expect(throws: WebSocketError.connection(.closeAlreadySent)) { try client.send(text: "late") }
            #expect(try client.receive() == .text("reply 1"))
            #expect(try client.receive() == .text("reply 2"))
            #expect(try client.receive() == nil)
            #expect(client.closeStatus == Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4001), reason: "", wasClean: true))
        }
    }

    @Test("stop() closes open connections with 1001 and serve() returns")
    func serverStop() throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: serverOptions())
        let running = try RunningServer(server)
        let clients = try (0..<3).map { _ in try BlockingWebSocket.connect(to: running.url(), options: testOptions()) }
        for client in clients {
            try client.send(text: "ping")
            #expect(try client.receive() == .text("ping"))
        }
        // The clients keep reading, so that they answer the server's Close at once.
        let ended = Locked(0)
        for client in clients {
            try spawnDetachedThread {
                while (try? client.receive()) != nil {}
                ended.withLock { $0 += 1 }
                ended.broadcast()
            }
        }
        let start = now()
        #expect(running.stop())
        #expect(now() - start < .seconds(2))   // well under the 2-second close timeout
        #expect(ended.wait(until: { $0 == 3 }, deadline: now() + .seconds(5), now: now))
        for client in clients {
            #expect(client.closeStatus?.code == .goingAway)
            #expect(client.closeStatus?.wasClean == true)
        }
        // Nobody listens any more.
        let failure = error { try BlockingWebSocket.connect(to: running.url(), options: testOptions()) }
        guard case .connectFailed(_, .connectionRefused)? = failure else {
            Issue.record("expected connection refused, got \(String(describing: failure))")
            return
        }
    }

    @Test("serve() twice is refused; stop() before serve() makes serve() return at once")
    func serveTwice() throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0)
        server.stop()
        try server.serve { _ in }
        #expect(error { try server.serve { _ in } } == .invalidArgument("serve() is already running on this server"))
    }

    @Test("The handler's return closes the connection with 1000")
    func handlerReturns() throws {
        try withServer(handler: { socket in try? socket.send(text: "bye") }) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            #expect(try client.receive() == .text("bye"))
            #expect(try client.receive() == nil)
            #expect(client.closeStatus == Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))
        }
    }
}
