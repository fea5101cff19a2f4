// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketTransport

/// `websocket connect --reconnect N`: a connection that ends with 1001, 1011, 1012, 1013 or 1014 (or
/// abnormally, or fails to open) is made again, at most N times; other endings are final.
@Suite("connect: --reconnect", .onTestThreads)
struct ConnectReconnectTests {
    @Test("The server closes the first connection with a code worth retrying: the tool connects again, and carries on", arguments: [UInt16(1001), 1011, 1012, 1013, 1014])
    func reconnects(code: UInt16) throws {
        let server = try RecordingServer(onOpen: { index, socket in
            if index == 0 { try? socket.sendClose(code: Connection.CloseCode(rawValue: code)) }
        })
        let tool = try ToolProcess(["connect", server.url(), "--reconnect", "3", "--reconnect-delay", "0.1"])
        try #require(server.wait { $0.connections == 2 }, "no second connection: \(tool.transcript)")
        tool.write("after reconnecting\n")
        #expect(tool.waitForOutput(containing: "after reconnecting"), "\(tool.transcript)")
        tool.closeStdin()
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(server.seen.requests.count == 2)
        #expect(server.seen.texts == ["after reconnecting"])
    }

    @Test("The server drops the connection without a Close (abnormal): --reconnect 1 connects once more, then exits 6")
    func reconnectsAfterAbnormalClosure() throws {
        // Every connection is dropped: one try and one retry, then the abnormal closure is final.
        let peer = try DroppingPeer(count: 2)
        let tool = try ToolProcess(["connect", peer.url, "--reconnect", "1", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
        #expect(peer.wait { $0 == 2 }, "the tool connected \(peer.acceptedCount) times, not 2 (one try and one retry): \(tool.transcript)")
    }

    @Test("The waits between tries start at --reconnect-delay and double")
    func doublingDelays() throws {
        let peer = try DroppingPeer(count: 4)
        let tool = try ToolProcess(["connect", peer.url, "--reconnect", "3", "--reconnect-delay", "0.4"])
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
        let times = peer.acceptTimes
        try #require(times.count == 4, "\(times.count) connections: \(tool.transcript)")
        // Lower bounds only: a loaded machine makes the gaps longer, never shorter than the waits.
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps[0] >= .milliseconds(360), "first wait \(gaps[0]), expected 0.4 s")
        #expect(gaps[1] >= .milliseconds(720), "second wait \(gaps[1]), expected 0.8 s")
        #expect(gaps[2] >= .milliseconds(1440), "third wait \(gaps[2]), expected 1.6 s")
    }

    @Test("A 503 refusal may pass: retried; the next handshake succeeds and the run goes on")
    func retriesAfter503() throws {
        let refusals = Locked(0)
        let server = try RecordingServer(decide: { request in
            let first = refusals.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            return first ? .reject(status: 503) : .accept()
        })
        let run = try runTool(["connect", server.url(), "--reconnect", "2", "--reconnect-delay", "0.1"], input: "after 503\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["after 503"], "\(run.transcript)")
        #expect(server.seen.requests.count == 2)
    }

    @Test("A 4xx refusal ends the run: not retried, exit 4")
    func noRetryAfter403() throws {
        let server = try RecordingServer(decide: { _ in .reject(status: 403) })
        let run = try runTool(["connect", server.url(), "--reconnect", "3", "--reconnect-delay", "0.1"])
        #expect(run.status == 4, "\(run.transcript)")
        #expect(server.seen.requests.count == 1, "\(run.transcript)")
    }

    @Test("A final ending (1000, 4000) is not retried", arguments: [(UInt16(1000), Int32(0)), (4000, 1)])
    func noRetry(code: UInt16, status: Int32) throws {
        let server = try RecordingServer(onOpen: { _, socket in try? socket.sendClose(code: Connection.CloseCode(rawValue: code)) })
        let tool = try ToolProcess(["connect", server.url(), "--reconnect", "3", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == status, "\(tool.transcript)")
        #expect(server.seen.connections == 1, "\(tool.transcript)")
    }

    @Test("Refused every time: N retries, then exit 3")
    func refusedEveryTime() throws {
        let port = try unusedPort()
        let tool = try ToolProcess(["connect", "ws://127.0.0.1:\(port)/", "--reconnect", "2", "--reconnect-delay", "0.1"])
        #expect(tool.waitForExit() == 3, "\(tool.transcript)")
    }
}
