// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

@Suite("The loop's timers")
struct DeadlineHeapTests {
    @Test("Stale entries dropped at once: the rest still pop earliest first", arguments: [0, 1, 2, 3, 100, 1_000] as [Int])
    func removeStale(count: Int) {
        var heap = DeadlineHeap()
        var rng = Connection.SeededGenerator(seed: UInt64(count) + 7)
        var expected: [(UInt64, UInt64)] = []
        for token in 0..<UInt64(count) {
            let at = UInt64.random(in: 0..<1_000_000, using: &rng)
            heap.push(Connection.Instant(nanosecondsSinceOrigin: at), token: token)
            if token % 3 != 0 { expected.append((at, token)) }
        }
        heap.removeStale { $0 % 3 != 0 }
        #expect(heap.count == expected.count)
        var popped: [UInt64] = []
        var tokens: Set<UInt64> = []
        while let token = heap.popDue(now: Connection.Instant(nanosecondsSinceOrigin: UInt64.max)) {
            tokens.insert(token)
            popped.append(expected.first { $0.1 == token }?.0 ?? UInt64.max)
        }
        #expect(popped == popped.sorted())
        #expect(tokens == Set(expected.map(\.1)))
    }

    /// A server on a loop of the test's own (so that its timers are this server's alone), with
    /// `cycles` raw clients in turn that open, send a Close and leave: at once, or (where
    /// `waitsForClose`) after the server's Close and end of stream. Returns once the server is idle.
    static func cycle(_ cycles: Int, loopIndex: Int, waitsForClose: @escaping @Sendable (Int) -> Bool = { _ in false })
        async throws -> (loop: EventLoop, server: WebSocketServer)
    {
        let loop = try EventLoop(index: loopIndex, backend: ReadinessBackend.selected)
        let server = try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 128,
                                         configuration: testConfiguration(), options: testOptions(), loops: 1, handshake: nil,
                                         face: .loopHandler({ _, _ in }), eventLoops: [loop])
        let outcome: String? = await blocking {
            do {
                for cycle in 0..<cycles {
                    var client = try LendingFaceTests.RawClient(port: server.port)
                    try client.connection.close()
                    client.socket.write(client.connection.takeOutput())
                    if waitsForClose(cycle), !client.socket.readUntilEOF(timeout: Harness.patience) { return "no end of stream" }
                    client.socket.close()
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == nil)
        #expect(await blocking { server.waitUntilIdle(timeout: Harness.patience) })
        return (loop, server)
    }

    @Test("A server closing connections by the thousand keeps a bounded timer heap, not one entry per connection it ever had")
    func closedConnectionsLeaveNoTimers() async throws {
        let cycles = 3_000
        let (loop, server) = try await Self.cycle(cycles, loopIndex: 91)
        defer { server.stop() }
        let entries = await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: loop.timers.count) } }
        // Each connection scheduled its handshake timeout (seconds away) at least once: without the
        // compaction, at least `cycles` entries.
        #expect(entries <= 2 * EventLoop.minimumStaleTimersMark, "\(entries) timer entries after \(cycles) connections")
    }

    @Test("A timer a connection arms in a turn starts in that turn: opening and closing connections wakes the loop for no timer due at once")
    func armedTimersStartAtOnce() async throws {
        // Half wait for the server's Close (its close timer armed by the read of ours, then its
        // drain once it shut down its side), half leave at once.
        let cycles = 40
        let (loop, server) = try await Self.cycle(cycles, loopIndex: 92) { $0 % 2 == 0 }
        defer { server.stop() }
        let (wakeUps, ended) = await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: (loop.immediateWakeUps, server.metrics.connectionsEnded)) }
        }
        #expect(ended == cycles)
        // Reported in the next turn, a timer armed in this one was a wake-up due at once: each
        // connection that waited for the server's Close cost one (its drain, armed as the server
        // shut down its side), 20 here.
        #expect(wakeUps == 0, "\(wakeUps) wake-ups due at once for \(cycles) connections")
    }
}
