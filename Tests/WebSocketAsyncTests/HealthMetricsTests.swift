// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

@Suite("Health checks and counters on the server's port", .timeLimit(.minutes(3)))
struct HealthMetricsTests {
    /// A decision that answers plain requests to /health with 200 and accepts upgrades except to /no.
    static let decide: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
        switch request.kind {
        case .plain:
            guard request.resource == "/health" else { return .accept() }
            return .reject(status: 200, headers: ["Content-Type": "text/plain"], body: Array("ok\n".utf8))
        case .upgrade:
            if request.resource == "/no" { return .reject(status: 403) }
            // A subprotocol the client did not offer: the connection answers 500.
            return request.resource == "/bad" ? .accept(subprotocol: "never.offered") : .accept()
        }
    }

    static func configuration(hook: Bool) -> Connection.Configuration {
        var configuration = testConfiguration()
        configuration.answersPlainRequests = hook
        return configuration
    }

    /// Sends `request` on a new connection and reads the answer to the end of the stream.
    static func ask(port: UInt16, _ request: String) async throws -> String {
        let socket = try RawSocket.connect(port: port)
        defer { socket.close() }
        return await blocking {
            socket.write(Array(request.utf8))
            var text = ""
            while let bytes = socket.read(timeout: Harness.patience), !bytes.isEmpty {
                text += String(decoding: bytes, as: UTF8.self)
            }
            return text
        }
    }

    @Test("With the hook GET and HEAD reach the decision; other paths and requests without the hook get 426")
    func plainRequests() async throws {
        let hooked = try shimServer(configuration: Self.configuration(hook: true), handshake: Self.decide)
        let get = try await Self.ask(port: hooked.port, "GET /health HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(get.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(get)")
        #expect(get.hasSuffix("\r\n\r\nok\n"), "\(get)")
        let head = try await Self.ask(port: hooked.port, "HEAD /health HTTP/1.0\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Length: 3\r\n") && head.hasSuffix("\r\n\r\n"), "\(head)")
        let other = try await Self.ask(port: hooked.port, "GET /other HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(other.hasPrefix("HTTP/1.1 426 "), "\(other)")
        hooked.stop()

        let plain = try shimServer(handshake: Self.decide)
        let unchanged = try await Self.ask(port: plain.port, "GET /health HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(unchanged.hasPrefix("HTTP/1.1 426 "), "\(unchanged)")
        #expect(unchanged.contains("Upgrade: websocket\r\n"), "\(unchanged)")
        plain.stop()
    }

    @Test("While the server drains, the health check accepted before gets 503")
    func healthDuringDrain() async throws {
        let server = try shimServer(configuration: Self.configuration(hook: true), handshake: Self.decide)
        // An open connection that never answers the Close keeps the drain going.
        let port = server.port
        let silent = try #require(try await openSilentClient(port: port))
        let check = try RawSocket.connect(port: server.port)
        let accepted = await eventually { server.core.endings.live >= 2 }
        #expect(accepted)
        // No deadline to race: the drain is aborted once the answer is in.
        let draining = Task { await blocking { server.drain(code: .goingAway, timeout: .seconds(600)) } }
        let answer = await blocking { () -> String in
            // Waited for here, on the thread that then writes: a task resumed between the two
            // could wait for Swift's cooperative pool.
            let deadline = now() + Harness.patience
            while !server.core.isDraining, now() < deadline { usleep(1_000) }
            guard server.core.isDraining else { return "the drain never began" }
            check.write(Array("GET /health HTTP/1.1\r\nHost: lb\r\n\r\n".utf8))
            var text = ""
            while let bytes = check.read(timeout: Harness.patience), !bytes.isEmpty { text += String(decoding: bytes, as: UTF8.self) }
            return text
        }
        #expect(answer.hasPrefix("HTTP/1.1 503 "), "\(answer)")
        server.abortDrain()
        _ = await draining.value
        #expect(server.metrics.plainRequests == [503: 1])
        check.close()
        silent.close()
    }

    @Test("After a known exchange the counters match it exactly")
    func countersMatchAnExchange() async throws {
        let pongs = Locked(0)
        let traffic = Locked<WebSocket.Traffic?>(nil)
        let server = try shimServer(configuration: Self.configuration(hook: true), handshake: Self.decide) { socket, event in
            switch event {
            case .open: socket.ping { result in if case .success = result { pongs.withLock { $0 += 1 } } }
            case .closed: traffic.withLock { $0 = socket.traffic }
            case .message(let message) where message.isData: try? socket.send(message)
            default: break
            }
        }
        let port = server.port
        // A client driven by hand: every byte it writes and reads is counted here.
        let (written, read) = try await blocking { () -> Result<(Int, Int), any Error> in
            Result {
                let socket = try RawSocket.connect(port: port)
                defer { socket.close() }
                var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
                var written = 0, read = 0, echoes = 0
                func flush() {
                    let output = client.takeOutput()
                    written += output.count
                    socket.write(output)
                }
                flush()
                while let bytes = socket.read(timeout: Harness.patience), !bytes.isEmpty {
                    read += bytes.count
                    client.receive(bytes)
                    while let event = client.nextEvent() {
                        switch event {
                        case .handshakeCompleted:
                            for text in ["a", "bb", "ccc"] { try client.send(text: text) }
                        case .text:
                            echoes += 1
                            if echoes == 3 { try client.close(code: .normalClosure, reason: "done") }
                        default:
                            break
                        }
                    }
                    flush()
                }
                return (written, read)
            }
        }.get()
        // A refused upgrade, and an invalid request.
        let refused = try await Self.ask(port: port, String(decoding: try Self.upgradeRequest(port: port, path: "/no"), as: UTF8.self))
        #expect(refused.hasPrefix("HTTP/1.1 403 "))
        let bad = try await Self.ask(port: port, String(decoding: try Self.upgradeRequest(port: port, path: "/bad"), as: UTF8.self))
        #expect(bad.hasPrefix("HTTP/1.1 500 "))
        let health = try await Self.ask(port: port, "GET /health HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(health.hasPrefix("HTTP/1.1 200 "))
        let invalid = try await Self.ask(port: port, "POST / HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(invalid.hasPrefix("HTTP/1.1 405 "))
        #expect(await blocking { server.waitUntilIdle(timeout: Harness.patience) })

        // The socket's own totals, read in its last event: the hand-driven client's bytes.
        let totals = try #require(traffic.withLock { $0 })
        #expect(totals.bytesReceived == written && totals.bytesSent == read)
        #expect(totals.duration != nil)
        let metrics = server.metrics
        #expect(metrics.connectionsAccepted == 5)
        #expect(metrics.connectionsOpened == 1)
        #expect(metrics.connectionsOpen == 0)
        #expect(metrics.connectionsEnded == 5)
        #expect(metrics.messagesReceived == 3)
        #expect(metrics.messagesSent == 3)
        #expect(metrics.closesReceived == [1000: 1])
        #expect(metrics.closesSent == [1000: 1])
        #expect(metrics.refused == [.rejected: 2, .invalidRequest: 1])
        #expect(metrics.handshakesFailed == [403: 1, 405: 1, 500: 1])
        #expect(metrics.plainRequests == [200: 1])
        #expect(metrics.pingsSent == 1)
        #expect(metrics.pingRoundTrips.count == pongs.withLock { $0 })
        #expect(metrics.pingRoundTrips.count == 1)
        #expect(metrics.pingRoundTrips.buckets.reduce(0, +) == 1)
        #expect(metrics.droppedForBackpressure == 0)
        // Every byte of the hand-driven client, and of the four short connections after it.
        let others = try Self.upgradeRequest(port: port, path: "/no").count + Self.upgradeRequest(port: port, path: "/bad").count + "GET /health HTTP/1.1\r\nHost: lb\r\n\r\n".utf8.count
            + "POST / HTTP/1.1\r\nHost: lb\r\n\r\n".utf8.count
        let answers = refused.utf8.count + bad.utf8.count + health.utf8.count + invalid.utf8.count
        #expect(metrics.bytesReceived == written + others)
        #expect(metrics.bytesSent == read + answers)
        server.stop()
    }

    static func upgradeRequest(port: UInt16, path: String) throws -> [UInt8] {
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port, resource: path))))
        return client.takeOutput()
    }
}
