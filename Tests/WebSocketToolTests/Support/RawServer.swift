// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport
import TransportTestSupport

/// A raw TCP server on 127.0.0.1 whose connections are handed, one after the other, to `body` on a
/// thread of its own: a peer that misbehaves on purpose (drops connections, stalls, sends bad
/// frames). Like TransportTestSupport's RawPeer, with every wait bounded by ``generousTimeout``,
/// since the tool it waits for is a separate process on a machine that may be loaded.
final class RawServer: Sendable {
    private let listener: RawListener

    /// - Parameters:
    ///   - connections: how many connections to accept before the thread ends.
    ///   - body: runs with each accepted connection and its index (0 for the first).
    init(connections: Int = 1, _ body: @escaping @Sendable (Int, Socket) -> Void) throws {
        let listener = try RawListener()
        self.listener = listener
        try spawnDetachedThread {
            for index in 0..<connections {
                guard let socket = try? listener.accept(timeout: generousTimeout) else { return }
                body(index, socket.socket)
                socket.close()
            }
        }
    }

    deinit { listener.close() }

    var url: String { "ws://127.0.0.1:\(listener.port)/" }
}

/// The server side of the opening handshake over a raw socket, by a core `Connection`: the open
/// connection (for framing what the test sends next), or `nil` when the client went away or took
/// longer than the generous bound.
func acceptHandshakeGenerously(on socket: Socket) -> Connection? {
    guard var connection = try? Connection(role: .server) else { return nil }
    let deadline = elapsedClock() + generousTimeout
    while elapsedClock() < deadline {
        guard let bytes = try? socket.readSome(timeout: deadline - elapsedClock()), !bytes.isEmpty else { return nil }
        connection.receive(bytes)
        while let event = connection.nextEvent() {
            switch event {
            case .handshakeRequest:
                guard (try? connection.accept()) != nil else { return nil }
            case .handshakeCompleted:
                guard (try? socket.writeAll(connection.takeOutput())) != nil else { return nil }
                return connection
            default:
                break
            }
        }
    }
    return nil
}
