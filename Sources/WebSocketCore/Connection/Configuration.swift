// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// How received data messages are delivered.
    public enum Delivery: Sendable, Hashable {
        /// Whole messages: ``Connection/Event/text(_:)`` and ``Connection/Event/binary(_:)``. The default.
        case messages
        /// Payload as it arrives: ``Connection/Event/fragment(_:)`` for every piece of payload available, even part of
        /// a frame, so that large messages never have to be held whole. Text is still validated as UTF-8
        /// across pieces.
        case fragments
    }
}

extension Connection {
    /// Everything that tunes a ``Connection``.
    public struct Configuration: Sendable {
        /// The bounds on what the peer may make the connection hold: frame, message and header sizes,
        /// fragments, buffered output. Each is checked before memory is spent.
        public var limits = Connection.Limits()
        /// The handshake, close, linger and keepalive timers, driven by ``Connection/advanceTime(to:)``.
        public var timeouts = Connection.Timeouts()
        /// Whole messages (the default) or payload as it arrives.
        public var delivery = Connection.Delivery.messages
        /// Answer every ping with a pong automatically (RFC 6455 §5.5.2). Default `true`. Pings are
        /// reported as events either way.
        public var respondsToPingsAutomatically = true
        /// Split outgoing messages into frames of at most this many payload bytes. Default `nil` (one frame
        /// per message).
        public var fragmentationSize: Int? = nil
        /// The extensions to negotiate, boxed (see ``extensions``, which reads and sets the same
        /// list as `any WebSocketExtension`). Default: none.
        public var configuredExtensions: [Connection.ConfiguredExtension] = []
        /// (Server) Hand a plain HTTP request (`GET` or `HEAD`, HTTP/1.0 or 1.1, without
        /// `Upgrade: websocket` and without a body) to the decision as a ``Connection/HandshakeRequest`` of
        /// kind ``Connection/HandshakeRequest/Kind/plain``, for a health check or a metrics scrape on the
        /// WebSocket port. Default `false`: such a request is answered 426 Upgrade Required. Its head is
        /// bounded by the same ``Connection/Limits`` as an opening handshake's.
        public var answersPlainRequests = false

        #if !hasFeature(Embedded)
        /// Extensions to negotiate (RFC 6455 §9), such as permessage-deflate from the `WebSocketDeflate`
        /// module. A client offers them in this order; a server accepts the first acceptable offer of each.
        /// Default: none. (In Embedded Swift, which has no `any WebSocketExtension`, use ``add(_:)`` and
        /// ``configuredExtensions``.)
        public var extensions: [any WebSocketExtension] {
            get { configuredExtensions.map { $0.configured } }
            set { configuredExtensions = newValue.map { Connection.ConfiguredExtension($0) } }
        }
        #endif

        /// Adds `configured` to the extensions to negotiate, after those already there.
        public mutating func add(_ configured: some WebSocketExtension) {
            configuredExtensions.append(Connection.ConfiguredExtension(configured))
        }

        /// The defaults: the limits and timeouts above, whole messages, automatic pongs, no
        /// fragmentation, no extensions.
        public init() {}
    }
}
