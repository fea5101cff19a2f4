// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A valid opening handshake request, as a server sees it (RFC 6455 §4.2.1), waiting for
    /// ``Connection/accept(subprotocol:extensions:headers:)`` or ``Connection/reject(status:headers:body:)``.
    public struct HandshakeRequest: Sendable, Hashable {
        /// The whole request head, every header included.
        public var head: Connection.HTTPRequestHead
        /// The resource name: path and query from the request target.
        public var resource: String
        /// The `Host` header value.
        public var host: String
        /// The `Origin` header value, if any (browsers always send it: check it against CSRF-style attacks).
        public var origin: String?
        /// The client's `Sec-WebSocket-Key`, as sent.
        public var key: String
        /// The subprotocols the client offered, in its order of preference.
        public var subprotocols: [String]
        /// The extensions the client offered, in its order of preference.
        public var extensions: [Connection.ExtensionHeader]
        /// An opening handshake, or a plain HTTP request that only
        /// ``Connection/Configuration/answersPlainRequests`` lets through.
        public var kind: Kind = .upgrade

        /// What a request asks for.
        public enum Kind: Sendable, Hashable {
            /// A valid opening handshake (RFC 6455 §4.2.1).
            case upgrade
            /// A `GET` or `HEAD` without `Upgrade: websocket` (a load balancer's health check, a metrics
            /// scrape): answer it with ``Connection/reject(status:headers:body:)`` (any status from 200);
            /// ``Connection/accept(subprotocol:extensions:headers:)`` answers it as the core does without
            /// the hook, 426. Its ``HandshakeRequest/key`` is empty, and it offers no subprotocol or
            /// extension.
            case plain
        }
    }
}
