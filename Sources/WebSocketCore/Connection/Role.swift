// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Which end of the connection this is.
    public enum Role: Sendable, Hashable {
        /// The client: it sends the opening handshake request built from these options, masks its frames,
        /// and waits for the server to close the transport.
        ///
        /// Indirect: the options (128 bytes) would otherwise make every connection's `role` that
        /// large, a server's too, for the life of the connection.
        indirect case client(Connection.ClientOptions)
        /// The server: it reads the request, reports it as ``Connection/Event/handshakeRequest(_:)`` and waits for the
        /// caller to accept or reject it.
        case server

        /// Whether this is the client end.
        public var isClient: Bool {
            if case .client = self { return true }
            return false
        }
    }
}
