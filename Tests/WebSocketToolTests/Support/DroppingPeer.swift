// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport
import TransportTestSupport

/// A raw server that completes the opening handshake of each of its first `count` connections and
/// then drops the TCP connection without a Close frame: an abnormal closure (1006) every time, for
/// the retries of `--reconnect`. It counts the connections it accepted.
final class DroppingPeer: Sendable {
    private let server: RawServer
    private let accepted: Locked<Int>
    /// When each connection was accepted (the monotonic clock).
    private let times: Locked<[Connection.Instant]>

    init(count: Int) throws {
        let accepted = Locked(0), times = Locked<[Connection.Instant]>([])
        self.accepted = accepted
        self.times = times
        server = try RawServer(connections: count) { _, socket in
            times.withLock { $0.append(elapsedClock()) }
            _ = acceptHandshakeGenerously(on: socket)
            accepted.withLock { $0 += 1 }
            accepted.broadcast()
            socket.close()
        }
    }

    var url: String { server.url }

    /// How many connections it accepted so far.
    var acceptedCount: Int { accepted.withLock { $0 } }

    /// When each connection was accepted.
    var acceptTimes: [Connection.Instant] { times.withLock { $0 } }

    /// Waits until `condition` holds for the count of accepted connections.
    func wait(timeout: Duration = generousTimeout, until condition: (Int) -> Bool) -> Bool {
        accepted.wait(until: condition, deadline: elapsedClock() + timeout, now: elapsedClock)
    }
}
