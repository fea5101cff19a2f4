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

    @Test("1,000 open connections drained with 1001: every client sees the Close before the deadline, none is lost (1006)")
    func drainsAThousand() async throws {
        raiseDescriptorLimit()   // 1,000 sockets on each side
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: testOptions()) { _, _ in }
        var logs: [EventLog] = []
        // In batches, each open before the next: a thousand SYNs at once would only test the backlog.
        for _ in 0..<10 {
            var batch: [EventLog] = []
            for _ in 0..<100 {
                let log = EventLog()
                _ = try WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(), options: testOptions()) { _, event in
                    log.append(event)
                }
                batch.append(log)
            }
            for log in batch { try await log.waitForOpen() }
            logs += batch
        }
        #expect(server.connectionCount == 1000)
        let started = now()
        let report = await blocking { server.drain(code: .goingAway, timeout: Harness.patience) }
        let took = now() - started
        #expect(report == WebSocketServer.DrainReport(closedCleanly: 1000, closedUncleanly: 0, aborted: 0))
        #expect(took < Harness.patience)
        var codes: [UInt16: Int] = [:]
        for log in logs {
            let end = try await log.waitForEnd()
            guard case .closed(let status) = end else {
                Issue.record("ended with \(end.brief)")
                continue
            }
            codes[status.code.rawValue, default: 0] += 1
            #expect(status.wasClean)
        }
        #expect(codes == [1001: 1000])
        print("drained 1,000 connections in \(took) (\(backend.rawValue))")
    }

    @Test("abortDrain() cuts a drain short: it returns at once, the clients still there aborted and counted so")
    func abortedDrain() async throws {
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: testOptions()) { _, _ in }
        // A client that opens, then reads nothing and answers nothing: the drain would wait for it.
        let port = server.port
        let silent = try #require(try await openSilentClient(port: port))
        let started = now()
        let draining = Task { await blocking { server.drain(code: .goingAway, timeout: .seconds(600)) } }
        let began = await eventually { server.core.isDraining }
        #expect(began)
        server.abortDrain()
        let report = await draining.value
        #expect(report == WebSocketServer.DrainReport(closedCleanly: 0, closedUncleanly: 0, aborted: 1))
        #expect(now() - started < .seconds(300))
        #expect(await blocking { silent.readUntilEOF() })
    }

    @Test("During a drain an opening handshake gets 503 and Retry-After; a client that never answers the Close is aborted at the deadline")
    func handshakesRefusedAndSilentClientsAborted() async throws {
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: testOptions()) { _, _ in }
        // A client that opens, then reads nothing and answers nothing.
        let port = server.port
        let silent = try #require(try await openSilentClient(port: port))
        // A client connected before the drain that sends its request only once the drain began.
        let late = try RawSocket.connect(port: server.port)
        // Accepted by the loop (not only in the kernel's backlog, which the drain's stop would reset).
        let accepted = await eventually { server.core.endings.live >= 2 }
        #expect(accepted)
        let draining = Task { await blocking { server.drain(code: .goingAway, timeout: .seconds(8)) } }
        var lateClient = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))))
        let request = lateClient.takeOutput()
        let answer = await blocking { () -> String in
            // The request goes out within the drain's 8 s from the thread that saw it begin: a task
            // resumed in between could wait for Swift's cooperative pool, which other tests hold.
            let deadline = now() + Harness.patience
            while !server.core.isDraining, now() < deadline { usleep(1_000) }
            guard server.core.isDraining else { return "the drain never began" }
            late.write(request)
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
