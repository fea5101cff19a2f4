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
    }
}
