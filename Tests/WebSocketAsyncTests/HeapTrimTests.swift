// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// A loop gives freed memory back when it loses its connections, at most once per
/// `EventLoop.trimInterval`: a loop whose few connections come and go trimmed at every return to
/// zero, and faulted the same pages in again.
@Suite("Giving the heap back", .timeLimit(.minutes(3)))
struct HeapTrimTests {
    /// Reads the loop's trim state on its thread.
    private func trims(_ loop: EventLoop) async -> (count: Int, owed: Bool) {
        await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: (loop.trimCount, loop.trimOwed)) }
        }
    }

    @Test("Connections that come and go one at a time: a trim at most once a second, and the one held back done after it")
    func trimsAreSpacedAndNoneIsLost() async throws {
        // A loop of its own: its count of connections is this test's alone.
        let loop = try EventLoop(index: 95, backend: ReadinessBackend.selected)
        let server = try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil,
                                         backlog: 16, configuration: Harness.configuration(), options: Harness.options(),
                                         loops: 1, handshake: nil, face: .loopHandler({ _, _ in }), eventLoops: [loop])
        let start = now()
        let cycles = 6
        for _ in 0..<cycles {
            let (peer, connection, _) = try await RawPeers.client(port: server.port)
            var client = connection
            try client.close()
            peer.write(client.takeOutput())
            // The Close, then the end of the stream: the server answers, reads the end and closes;
            // the loop has no connection left then.
            peer.close()
            #expect(await blocking { server.waitUntilIdle(timeout: Harness.patience) })
        }
        let elapsed = now() - start
        let (count, _) = await trims(loop)
        // Each return to zero asked for a trim; the interval let through one per second at most.
        let allowed = 1 + Int(elapsed / EventLoop.trimInterval)
        #expect(count >= 1)
        #expect(count <= allowed, "\(count) trims in \(elapsed), at most \(allowed) allowed")
        // A trim held back is done once the interval has passed, with no connection to prompt it: one
        // at the first return to zero and one a second later at least, or one per return.
        let deadline = now() + Harness.patience
        while await trims(loop).owed {
            guard now() < deadline else { throw FaceFailure("the trim held back was never done") }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await trims(loop).count >= 2)
        server.stop()
    }
}
