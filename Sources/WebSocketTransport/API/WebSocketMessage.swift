// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a WebSocket receives and sends, in both adapters: a whole message, a piece of one, or (for
/// those who ask for them) a control frame.
///
/// ```swift
/// switch message {
/// case .text(let text): print(text)
/// case .binary(let bytes): print(bytes.count, "bytes")
/// default: break      // fragments, pings, pongs and the peer's Close only when asked for
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A whole text message (valid UTF-8, checked by the core).
    case text(String)
    /// A whole binary message.
    case binary([UInt8])
    /// A piece of a message, when ``WebSocketCore/Connection/Configuration/delivery`` is ``WebSocketCore/Connection/Delivery/fragments``.
    case fragment(Connection.Fragment)
    /// A ping and its payload, when ``TransportOptions/receivesControlFrames`` is on. It has been
    /// answered already, unless ``WebSocketCore/Connection/Configuration/respondsToPingsAutomatically`` is off. Sent, a ping.
    case ping([UInt8])
    /// A pong and its payload, when ``TransportOptions/receivesControlFrames`` is on. Sent, an
    /// unsolicited pong (or the answer to a ping, when automatic pongs are off).
    case pong([UInt8])
    /// The peer's Close frame, when ``TransportOptions/receivesControlFrames`` is on: the closing
    /// handshake has begun, and the reply is queued unless it answers ours. Sent, the start of the
    /// closing handshake with this code and reason.
    case close(Connection.CloseFrame)
}

extension Connection {
    /// Sends `message`: a whole message, a fragment of one, a ping, a pong, or (``WebSocketMessage/close(_:)``)
    /// the start of the closing handshake.
    ///
    /// - Throws: what the matching call throws (``send(text:compress:)``, ``sendFragment(_:kind:isFinal:compress:)``,
    ///   ``ping(_:)``, ``pong(_:)``, ``close(code:reason:)``).
    package mutating func send(_ message: WebSocketMessage) throws(Connection.UsageError) {
        switch message {
        case .text(let text): try send(text: text)
        case .binary(let bytes): try send(binary: bytes)
        case .fragment(let fragment): try sendFragment(fragment.bytes, kind: fragment.kind, isFinal: fragment.isFinal)
        case .ping(let payload): try ping(payload)
        case .pong(let payload): try pong(payload)
        case .close(let frame): try close(code: frame.code, reason: frame.reason)
        }
    }
}
