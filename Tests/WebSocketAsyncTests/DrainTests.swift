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

@Suite("Draining a server: every client sees the Close, none is cut off", .timeLimit(.minutes(3)))
struct DrainTests {
    @Test("100 open connections drained with 1012: each client gets the code, each ends cleanly, none is aborted")
    func drainsEveryConnection() async throws {
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: testOptions()) { socket, event in
            if case .message(let message) = event { try? socket.send(message) }
        }
        var logs: [EventLog] = []
        for _ in 0..<100 {
            let log = EventLog()
            _ = try WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(), options: testOptions()) { _, event in
                log.append(event)
            }
            logs.append(log)
        }
        for log in logs { try await log.waitForOpen() }
        let report = await blocking { server.drain(code: .serviceRestart, timeout: Harness.patience) }
        #expect(report == WebSocketServer.DrainReport(closedCleanly: 100, closedUncleanly: 0, aborted: 0))
        for log in logs {
            let end = try await log.waitForEnd()
            guard case .closed(let status) = end else { Issue.record("ended with \(end.brief)"); continue }
            #expect(status.code == .serviceRestart)
            #expect(status.wasClean)
        }
    }

    @Test("During a drain an opening handshake gets 503 and Retry-After; a client that never answers the Close is aborted at the deadline")
    func handshakesRefusedAndSilentClientsAborted() async throws {
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: testOptions()) { _, _ in }
        // A client that opens, then reads nothing and answers nothing.
        let port = server.port
        let silent = try RawSocket.connect(port: port)
        let opened = await blocking { () -> Bool in
            guard var client = try? Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port)))) else {
                return false
            }
            silent.write(client.takeOutput())
            while let bytes = silent.read(timeout: Harness.patience), !bytes.isEmpty {
                client.receive(bytes)
                if case .handshakeCompleted? = client.nextEvent() { return true }
            }
            return false
        }
        #expect(opened)
        // A client connected before the drain that sends its request only once the drain began.
        let late = try RawSocket.connect(port: server.port)
        // Accepted by the loop (not only in the kernel's backlog, which the drain's stop would reset).
        let accepted = await blocking { () -> Bool in
            let deadline = now() + Harness.patience
            while server.core.endings.live < 2 {
                guard now() < deadline else { return false }
                usleep(5_000)
            }
            return true
        }
        #expect(accepted)
        let draining = Task { await blocking { server.drain(code: .goingAway, timeout: .seconds(8)) } }
        let began = await blocking { () -> Bool in
            let deadline = now() + Harness.patience
            while !server.core.isDraining {
                guard now() < deadline else { return false }
                usleep(5_000)
            }
            return true
        }
        #expect(began)
        var lateClient = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))))
        late.write(lateClient.takeOutput())
        let answer = await blocking { () -> String in
            var text = ""
            while let bytes = late.read(timeout: Harness.patience), !bytes.isEmpty {
                text += String(decoding: bytes, as: UTF8.self)
                if text.contains("\r\n\r\n") { break }
            }
            return text
        }
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
        #expect(answer.lowercased().contains("retry-after: 1"), "\(answer)")
        let report = await draining.value
        #expect(report == WebSocketServer.DrainReport(closedCleanly: 0, closedUncleanly: 0, aborted: 1))
        #expect(await blocking { silent.readUntilEOF() })
    }
}
