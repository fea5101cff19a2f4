// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// What an opening handshake agreed on, reported by ``Connection/Event/handshakeCompleted(_:)``.
    public struct HandshakeResult: Sendable, Hashable {
        /// The subprotocol chosen by the server, or `nil` when none was.
        public var subprotocol: String?
        /// The extensions in use, as the server's response listed them.
        public var extensions: [Connection.ExtensionHeader]
        /// The peer's headers: the server's 101 response for a client, the client's request for a server.
        public var headers: Connection.HTTPHeaders
        /// The resource the client asked for (path and query).
        public var resource: String
        /// A result from its parts; for tests and for adapters that report one of their own.
        public init(subprotocol: String?, extensions: [Connection.ExtensionHeader], headers: Connection.HTTPHeaders, resource: String) {
            self.subprotocol = subprotocol
            self.extensions = extensions
            self.headers = headers
            self.resource = resource
        }
    }
}
