#if os(Linux)
import Glibc
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX
import TransportTestSupport
@testable import WebSocketEventLoop

@Suite struct HandlerFaceTests {
    @Test func echoesTextAndBinaryAndReportsEveryEventInOrder() async throws {
        try await offPool {
            let log = EventLog()
            let server = try echoServer(log: log)
            let messages: [WebSocketMessage] = [.text("hello"), .binary(pattern(70_000)), .text(String(repeating: "é", count: 40_000))]
            #expect(echoRoundTrip(port: server.port, messages: messages) == nil)
            #expect(log.waitForClosed(1))
            let events = try #require(log.all.first)
            guard case .open(let result) = events.first else { throw TestFailure("first event \(String(describing: events.first))") }
            #expect(result.resource == "/")
            #expect(events.dropFirst().prefix(3) == [.text("hello"), .binary(pattern(70_000)), .text(String(repeating: "é", count: 40_000))])
            guard case .closed(let status) = events.last else { throw TestFailure("last event \(String(describing: events.last))") }
            #expect(status.wasClean && status.code == .normalClosure)
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            #expect(server.connectionCount == 0)
        }
    }

    @Test func manyClientsAtOnceOnEveryLoopAreEachEchoed() async throws {
        try await offPool {
            raiseDescriptorLimit()
            let server = try echoServer()
            let failures = try onThreads(200) { index in
                echoRoundTrip(port: server.port, messages: (0..<5).map { .text("client \(index) message \($0)") })
            }
            #expect(failures.compactMap { $0 } == [])
            #expect(server.waitUntilIdle(timeout: .seconds(60)))
        }
    }

    @Test func framesPipelinedInOneWriteAreAllEchoedInOrder() async throws {
        try await offPool {
            let server = try echoServer()
            var client = try RawClient(port: server.port)
            try client.open()
            for index in 0..<500 { try client.connection.send(text: "m\(index)") }
            try client.socket.writeAll(client.connection.takeOutput())
            try client.pump { $0.filter { if case .text = $0 { return true } else { return false } }.count == 500 }
            let events = client.events
            let texts = events.compactMap { event -> String? in if case .text(let text) = event { return text } else { return nil } }
            #expect(texts == (0..<500).map { "m\($0)" })
        }
    }

    @Test func aRejectedHandshakeGetsItsStatusAndNeverReachesTheHandler() async throws {
        try await offPool {
            let log = EventLog()
            let server = try echoServer(log: log, handshake: { request in
                request.resource == "/private" ? .reject(status: 403) : .accept()
            })
            do throws(WebSocketError) {
                _ = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/private", options: clientOptions())
                Issue.record("connected")
            } catch {
                guard case .handshakeFailed(let failure) = error, let response = failure.rejected else { throw TestFailure("\(error)") }
                #expect(response.status == 403)
            }
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            #expect(log.all.isEmpty)
        }
    }

    @Test func theAgreedSubprotocolIsTheServersChoice() async throws {
        try await offPool {
            let server = try echoServer(handshake: { request in .accept(subprotocol: request.subprotocols.last) })
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", subprotocols: ["a", "b"],
                                                       options: clientOptions())
            #expect(client.subprotocol == "b")
            _ = try client.close()
        }
    }

    @Test func aMalformedFrameIsClosedWith1002AfterTheEchoOfTheMessageBeforeIt() async throws {
        try await offPool {
            let server = try echoServer()
            var client = try RawClient(port: server.port)
            try client.open()
            let socket = client.socket
            // A valid message, then in the same write an unmasked text frame from a client (RFC 6455
            // §5.1: the server must fail the connection). The echo of the first still comes first
            // (Autobahn 4.1.3: the answer to a message is not overtaken by the failure after it).
            try client.connection.send(text: "ok")
            try socket.writeAll(client.connection.takeOutput() + [0x81, 0x02, 0x68, 0x69])
            let (bytes, sawEnd) = try socket.readToEnd(timeout: .seconds(30))
            #expect(sawEnd)
            // The echo ("ok", unmasked), then a close frame with code 1002.
            #expect(Array(bytes.prefix(4)) == [0x81, 0x02, 0x6F, 0x6B])
            let close = Array(bytes.dropFirst(4))
            #expect(close.count >= 4 && close[0] == 0x88 && close[2] == 0x03 && close[3] == 0xEA)
        }
    }

    @Test func stopClosingEveryConnectionSendsGoingAway() async throws {
        try await offPool {
            let log = EventLog()
            let server = try echoServer(log: log)
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: clientConfiguration(),
                                                       options: clientOptions())
            try client.send(text: "x")
            #expect(try client.receive() == .text("x"))
            server.stop(closing: .goingAway)
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .goingAway)
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            // No longer listening.
            #expect(throws: WebSocketError.self) { try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", options: clientOptions()) }
        }
    }

    @Test func aSilentClientIsDroppedAtTheHandshakeTimeout() async throws {
        try await offPool {
            var configuration = clientConfiguration()
            configuration.timeouts.handshake = .milliseconds(200)
            let server = try echoServer(configuration: configuration)
            let socket = try rawConnect(port: server.port)
            let (bytes, sawEnd) = try socket.readToEnd(timeout: .seconds(30))
            #expect(sawEnd)
            #expect(bytes.isEmpty)
            socket.close()
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
        }
    }

    @Test func aClientThatStopsReadingHitsTheWriteTimeoutAndIsDropped() async throws {
        try await offPool {
            let log = EventLog()
            var options = TransportOptions()
            options.writeTimeout = .milliseconds(300)
            let flood = pattern(1 << 20)
            let server = try EventLoopServer(configuration: clientConfiguration(), options: options) { socket, event in
                log.record(socket, event)
                if case .open = event {
                    // Far more than the socket buffers hold: the rest waits for a reader that never comes.
                    for _ in 0..<16 { try? socket.send(binary: flood) }
                }
            }
            let socket = try rawConnect(port: server.port)
            var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))))
            try socket.writeAll(client.takeOutput())
            #expect(log.waitForClosed(1))
            guard case .closed(let status)? = log.all.first?.last else { throw TestFailure("\(log.all)") }
            #expect(status.code == .abnormalClosure)
            _ = socket
        }
    }

    @Test func unixSocketServerEchoesAndRemovesItsFile() async throws {
        try await offPool {
            let path = "/tmp/websocket-eventloop-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            let server = try EventLoopServer(unixSocketPath: path, configuration: clientConfiguration()) { socket, event in
                if case .text(let text) = event { try? socket.send(text: text) }
            }
            let failures = try onThreads(20) { index -> String? in
                do throws(WebSocketError) {
                    let client = try BlockingWebSocket.connect(to: "ws+unix://\(path):/", configuration: clientConfiguration(),
                                                               options: clientOptions())
                    try client.send(text: "u\(index)")
                    guard try client.receive() == .text("u\(index)") else { return "wrong echo" }
                    return try client.close().wasClean ? nil : "not clean"
                } catch {
                    return "\(error)"
                }
            }
            #expect(failures.compactMap { $0 } == [])
            server.stop()
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            // The file goes once every loop has let go of the socket.
            let deadline = now() + .seconds(30)
            while access(path, F_OK) == 0, now() < deadline { usleep(10_000) }
            #expect(access(path, F_OK) != 0)
        }
    }

    @Test func sendsFromAnotherThreadReachTheClientInOrder() async throws {
        try await offPool {
            let opened = Mailbox<EventLoopWebSocket>()
            let server = try EventLoopServer(configuration: clientConfiguration()) { socket, event in
                if case .open = event { opened.put(socket) }
            }
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: clientConfiguration(),
                                                       options: clientOptions())
            let socket = try #require(opened.take(timeout: .seconds(30)))
            #expect(!socket.loop.inLoop)
            for index in 0..<1000 { try socket.send(text: "\(index)") }
            for index in 0..<1000 { #expect(try client.receive() == .text("\(index)")) }
            try socket.sendClose(code: .goingAway)
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .goingAway)
        }
    }

    @Test func broadcastReachesEveryOpenConnectionOnEveryLoop() async throws {
        try await offPool {
            raiseDescriptorLimit()
            let opened = Locked(0)
            let server = try EventLoopServer(configuration: clientConfiguration()) { _, event in
                if case .open = event {
                    opened.withLock { $0 += 1 }
                    opened.broadcast()
                }
            }
            let clients = try (0..<60).map { _ in
                try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: clientConfiguration(),
                                              options: clientOptions())
            }
            #expect(opened.wait(until: { $0 == clients.count }, deadline: now() + .seconds(60), now: now))
            let payload = pattern(1024)
            for index in 0..<5 {
                server.broadcast(binary: payload)
                server.broadcast(text: "round \(index)")
            }
            for client in clients {
                for index in 0..<5 {
                    #expect(try client.receive() == .binary(payload))
                    #expect(try client.receive() == .text("round \(index)"))
                }
                #expect(try client.close().wasClean)
            }
            #expect(server.waitUntilIdle(timeout: .seconds(60)))
        }
    }
}
#endif
