// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a socket of the non-blocking adapter reports to its event handler, on the connection's event
/// loop or on the queue you chose.
///
/// Messages are the same ``WebSocketMessage`` values that ``WebSocketMessage`` names everywhere
/// else: what a blocking socket's `receive` returns, what an async socket's `messages` yields, and
/// what every socket sends. An event adds the connection's life around them.
///
/// ```swift
/// switch event {
/// case .open(let handshake): print("open, subprotocol", handshake.subprotocol ?? "none")
/// case .message(.text(let text)): print(text)
/// case .message(.binary(let bytes)): print(bytes.count, "bytes")
/// case .closed(let status): print("closed:", status)
/// default: break
/// }
/// ```
///
/// Every socket reports, in order: ``open(_:)`` once the opening handshake succeeds, then its
/// messages as they arrive (pings, pongs and the peer's Close frame too when
/// ``TransportOptions/receivesControlFrames`` is on), ``drained(bufferedAmount:)`` whenever the
/// output buffer falls back to the low-water mark after a send was refused, and exactly one last
/// event: ``closed(_:)`` if the connection opened, ``failed(_:)`` if it never did. The last event
/// comes after the socket is closed.
public enum WebSocketEvent: Sendable, Hashable {
    // A failure is indirect: its payload is large, and the frequent events (messages) should not
    // pay for moving it around. The opening's result is one reference (its fields are boxed).

    /// The opening handshake succeeded: the subprotocol and extensions agreed, the peer's headers.
    case open(Connection.HandshakeResult)
    /// A message, a piece of one, or (when asked for) a control frame.
    case message(WebSocketMessage)
    /// The buffered output fell to ``TransportOptions/lowWaterMark`` or below after a send was refused
    /// with ``WebSocketError/bufferFull(bufferedAmount:)`` or the buffer reached the high-water mark:
    /// send again.
    case drained(bufferedAmount: Int)
    /// The connection ended after it had opened, and the socket is closed. Check
    /// ``WebSocketCore/Connection/CloseStatus/wasClean`` and ``WebSocketCore/Connection/CloseStatus/failure``: 1006 means the connection was lost.
    case closed(Connection.CloseStatus)
    /// The connection never opened (resolution, TCP connect, TLS, opening handshake), and the socket
    /// is closed.
    indirect case failed(WebSocketError)
}
