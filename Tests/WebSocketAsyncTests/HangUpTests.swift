// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// A server's connection after the closing handshake: the sending side shut down, the socket drains
/// until the peer closes. The peer's hang-up, reported by the readiness backend, is the end of the
/// stream; no read is made to find it.
@Suite("A peer's hang-up while the server drains", .timeLimit(.minutes(2)))
struct HangUpTests {
    /// The receives the server's sockets made, and how many of them found the end of the stream.
    final class Reads: Sendable {
        let counts = Locked<(all: Int, endOfStream: Int)>((0, 0))

        var system: SystemCalls {
            let live = SystemCalls.live
            var system = live
            system.receive = { [self] fd, buffer, count in
                let result = live.receive(fd, buffer, count)
                counts.withLock {
                    $0.all += 1
                    if result == 0 { $0.endOfStream += 1 }
                }
                return result
            }
            return system
        }
    }

    @Test("The client's Close, the server's reply and shutdown, the client's close: the server ends cleanly without reading the end of the stream",
          arguments: 1...3)
    func closesOnHangUpWithoutAnEndOfStreamRead(round: Int) async throws {
        let reads = Reads()
        let serverLog = EventLog()
        let server = try shimServer(reads.system, log: serverLog)
        defer { server.stop() }
        let log = EventLog()
        let client = try WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(),
                                           options: testOptions()) { _, event in log.append(event) }
        try await log.waitForOpen()
        try client.send(text: "before the close \(round)")
        try await log.wait(for: "the echo") { $0.contains(.message(.text("before the close \(round)"))) }
        try client.sendClose()
        guard case .closed(let status) = try await log.waitForEnd() else { throw TestFailure("client: \(log.all.map(\.brief))") }
        #expect(status.wasClean)
        guard case .closed(let serverStatus) = try await serverLog.waitForEnd() else {
            throw TestFailure("server: \(serverLog.all.map(\.brief))")
        }
        #expect(serverStatus.wasClean)
        #expect(serverStatus.code == .normalClosure)
        // The server ends once the client's FIN arrives (the client closes on the server's). The
        // readiness reported it as a hang-up while the socket drained: ended without a read.
        let counts = reads.counts.withLock { $0 }
        #expect(counts.endOfStream == 0)
        #expect(counts.all >= 3)  // the request, the message, the Close: the reads before still happen
    }
}
