// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketAsync
import WebSocketTransport

/// `serve --broadcast` on topics: each client is in the room of its resource's path (`/a?x=1` is
/// room `/a`), and in ``everyone``. A client's message is published to its room, the sender
/// excluded; a line of standard input is published to ``everyone``: every room.
///
/// `@unchecked Sendable`: the server behind its lock.
final class BroadcastRooms: @unchecked Sendable {
    /// The topic every client subscribes to, for standard input. Rooms are paths, which begin
    /// with `/`: no room can be called this.
    static let everyone = "*"

    private let server = Locked<WebSocketServer?>(nil)

    /// The server whose connections the rooms hold, set as soon as it exists (a message that came
    /// before, in the microseconds between the first accept and this, is printed, not relayed).
    func attach(_ server: WebSocketServer) {
        self.server.withLock { $0 = server }
    }

    /// A client opened: it joins its room and ``everyone``. A path too long for a topic
    /// (``WebSocketTransport/TransportOptions/maxTopicLength``) leaves it in ``everyone`` only, said
    /// on standard error.
    func joined(_ socket: WebSocket, handshake: Connection.HandshakeResult, peer: String) {
        _ = try? socket.subscribe(Self.everyone)
        do throws(WebSocketError) {
            try socket.subscribe(String(handshake.path))
        } catch {
            printError("\(peer): not in a room: \(error)")
        }
    }

    /// A client's message, to the others in its room.
    func said(_ message: WebSocketMessage, by socket: WebSocket) {
        guard let server = server.withLock({ $0 }), let handshake = socket.handshake else { return }
        let room = String(handshake.path)
        switch message {
        case .text(let text): server.publish(topic: room, text: text, excluding: socket)
        case .binary(let bytes): server.publish(topic: room, binary: bytes, excluding: socket)
        default: break
        }
    }

    /// A line of standard input, to every room.
    func announce(text: String) {
        server.withLock { $0 }?.publish(topic: Self.everyone, text: text)
    }

    /// A line of standard input as bytes (`--binary`), to every room.
    func announce(binary: [UInt8]) {
        server.withLock { $0 }?.publish(topic: Self.everyone, binary: binary)
    }
}
