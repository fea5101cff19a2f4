// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Timers of a connection. All are optional (`nil` turns one off) and act only on the times the caller
    /// reports through ``Connection/advanceTime(to:)``.
    public struct Timeouts: Sendable, Hashable {
        /// How long the opening handshake may take. Default 10 seconds.
        public var handshake: Duration? = .seconds(10)
        /// How long to wait for the peer's Close frame after sending ours, and (client) for the server to
        /// close the transport after the closing handshake. Default 5 seconds.
        public var close: Duration? = .seconds(5)
        /// After the connection closed, how long to wait for the peer to close the transport once ours is
        /// half-closed (``Connection/TransportDirective/halfCloseAndDrain(deadline:)``), reading and discarding what
        /// it still sends, before closing anyway. Default 2 seconds: a peer that answers at all closes
        /// within a round trip; a peer that never does cannot hold the socket longer than this. `nil`
        /// closes the transport at once (``Connection/TransportDirective/close``), risking a reset.
        public var linger: Duration? = .seconds(2)
        /// How often to send a keepalive ping while open. Default `nil` (no keepalive).
        public var keepaliveInterval: Duration? = nil
        /// How long a keepalive ping may wait for a pong before the peer is declared dead. Default 20 seconds.
        public var keepaliveTimeout: Duration? = .seconds(20)

        /// The defaults above: a handshake and close bounded, no keepalive.
        public init() {}
    }
}
