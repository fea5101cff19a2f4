// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Something that happened on a connection, pulled with ``Connection/nextEvent()``.
    public enum Event: Sendable, Hashable {
        // The handshake's failure is indirect: its payload is large, and the frequent events (messages)
        // should not pay for moving it around. A request, a result and a close status are one
        // reference each (their fields are boxed), so they are stored as they are: boxed again, each
        // cost an allocation per connection.

        /// (Server) A valid opening handshake request arrived. Answer it with
        /// ``Connection/accept(subprotocol:extensions:headers:)`` or ``Connection/reject(status:headers:body:)``;
        /// no frame is read before then.
        case handshakeRequest(Connection.HandshakeRequest)
        /// The opening handshake succeeded: the connection is open.
        case handshakeCompleted(Connection.HandshakeResult)
        /// The opening handshake failed; the connection is closed and the transport should be closed.
        indirect case handshakeFailed(Connection.HandshakeFailure)
        /// A whole text message (``Connection/Delivery/messages``).
        case text(String)
        /// A whole binary message (``Connection/Delivery/messages``).
        case binary([UInt8])
        /// A piece of a message's payload (``Connection/Delivery/fragments``).
        case fragment(Connection.Fragment)
        /// A ping, with its payload. Answered automatically unless turned off.
        case ping([UInt8])
        /// A pong, with its payload. Unsolicited pongs are reported too.
        case pong([UInt8])
        /// The peer sent a Close frame. A reply has been queued, unless this answers ours.
        case closeReceived(Connection.CloseFrame)
        /// The peer violated the protocol: the Close frame with ``Connection/ProtocolViolation/closeCode`` is queued and
        /// a ``closed(_:)`` event follows.
        case protocolViolation(Connection.ProtocolViolation)
        /// The WebSocket connection is closed; nothing more can be sent or received.
        case closed(Connection.CloseStatus)
    }
}
