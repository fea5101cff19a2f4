// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// What an opening handshake agreed on, reported by ``Connection/Event/handshakeCompleted(_:)``.
    public struct HandshakeResult: Sendable, Hashable {
        /// The fields, shared by the copies (copy on write), as ``HandshakeRequest`` keeps its own: a
        /// result goes from the connection's event to the phase's reader, the session and the
        /// adapter's open event, and each copy of four fields in line retained every string and array
        /// in them (through a generic copy of the optional array, at that), where a copy of the box
        /// retains once. One pointer wide, the events that carry it need no box of their own.
        private var storage: SharedFields<Fields>

        /// The stored fields, as the properties below name them.
        struct Fields: Sendable, Hashable {
            var subprotocol: String?
            var extensions: [Connection.ExtensionHeader]
            var headers: Connection.HTTPHeaders
            var resource: String
        }

        /// A result from its parts; for tests and for adapters that report one of their own.
        public init(subprotocol: String?, extensions: [Connection.ExtensionHeader], headers: Connection.HTTPHeaders, resource: String) {
            storage = SharedFields(Fields(subprotocol: subprotocol, extensions: extensions, headers: headers, resource: resource))
        }

        /// The subprotocol chosen by the server, or `nil` when none was.
        public var subprotocol: String? {
            get { storage.fields.subprotocol }
            set { storage.change { $0.subprotocol = newValue } }
        }
        /// The extensions in use, as the server's response listed them.
        public var extensions: [Connection.ExtensionHeader] {
            get { storage.fields.extensions }
            set { storage.change { $0.extensions = newValue } }
        }
        /// The peer's headers: the server's 101 response for a client, the client's request for a server.
        public var headers: Connection.HTTPHeaders {
            get { storage.fields.headers }
            set { storage.change { $0.headers = newValue } }
        }
        /// The resource the client asked for (path and query).
        public var resource: String {
            get { storage.fields.resource }
            set { storage.change { $0.resource = newValue } }
        }

    }
}
