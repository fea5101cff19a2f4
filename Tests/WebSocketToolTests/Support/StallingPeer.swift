// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport
import TransportTestSupport

/// A raw server for one connection that stops answering at a chosen point: after reading the
/// opening handshake request (never answering it), or after completing the handshake (never
/// replying to a Close). It records the bytes it read after that point, so that a test can wait
/// for the tool to have got there (its request sent, its Close frame sent) before acting.
final class StallingPeer: Sendable {
    enum Point: Sendable {
        /// Reads the request and never answers it.
        case handshake
        /// Completes the handshake, then reads everything and never writes again.
        case close
    }

    private struct State: Sendable {
        var reachedPoint = false
        var bytesAfter: [UInt8] = []
    }
    private let peer: RawServer
    private let state = Locked(State())

    init(stallingAt point: Point) throws {
        let state = self.state
        peer = try RawServer { _, socket in
            if point == .close {
                guard acceptHandshakeGenerously(on: socket) != nil else { return }
            }
            state.withLock { $0.reachedPoint = true }
            state.broadcast()
            while let bytes = try? socket.readSome(timeout: generousTimeout), !bytes.isEmpty {
                state.withLock { $0.bytesAfter += bytes }
                state.broadcast()
            }
        }
    }

    var url: String { peer.url }

    /// Waits until the peer has accepted the TCP connection (`.handshake`) or completed the opening
    /// handshake (`.close`).
    func waitForPoint(timeout: Duration = generousTimeout) -> Bool {
        state.wait(until: { $0.reachedPoint }, deadline: elapsedClock() + timeout, now: elapsedClock)
    }

    /// Waits until at least `count` bytes came after the point (a request's, a masked Close frame's).
    func waitForBytes(atLeast count: Int = 1, timeout: Duration = generousTimeout) -> Bool {
        state.wait(until: { $0.bytesAfter.count >= count }, deadline: elapsedClock() + timeout, now: elapsedClock)
    }

    /// The bytes read after the point.
    var bytesAfter: [UInt8] { state.withLock { $0.bytesAfter } }
}
