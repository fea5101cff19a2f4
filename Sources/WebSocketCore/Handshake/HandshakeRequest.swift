// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A valid opening handshake request, as a server sees it (RFC 6455 §4.2.1), waiting for
    /// ``Connection/accept(subprotocol:extensions:headers:)`` or ``Connection/reject(status:headers:body:)``.
    public struct HandshakeRequest: Sendable, Hashable {
        /// The fields, shared by the copies (copy on write): a request is copied from the reader to
        /// its event, to the phase that awaits the decision and to the adapter's decision, and each
        /// copy of eight fields in line retained every string and array in them (about 36 retains
        /// and as many releases per opening handshake), where a copy of the box retains once.
        private var storage: SharedFields<Fields>

        /// The stored fields, as the properties below name them.
        struct Fields: Sendable, Hashable {
            var head: Connection.HTTPRequestHead
            var resource: String
            var host: String
            var origin: String?
            var key: ClientKey
            var subprotocols: [String]
            var extensions: [Connection.ExtensionHeader]
            var kind: Kind
        }

        init(head: Connection.HTTPRequestHead, resource: String, host: String, origin: String?, key: ClientKey,
             subprotocols: [String], extensions: [Connection.ExtensionHeader], kind: Kind = .upgrade) {
            storage = SharedFields(Fields(head: head, resource: resource, host: host, origin: origin, key: key,
                                   subprotocols: subprotocols, extensions: extensions, kind: kind))
        }

        /// The whole request head, every header included.
        public var head: Connection.HTTPRequestHead {
            get { storage.fields.head }
            set { storage.change { $0.head = newValue } }
        }
        /// The resource name: path and query from the request target.
        public var resource: String {
            get { storage.fields.resource }
            set { storage.change { $0.resource = newValue } }
        }
        /// The `Host` header value.
        public var host: String {
            get { storage.fields.host }
            set { storage.change { $0.host = newValue } }
        }
        /// The `Origin` header value, if any (browsers always send it: check it against CSRF-style attacks).
        public var origin: String? {
            get { storage.fields.origin }
            set { storage.change { $0.origin = newValue } }
        }
        /// The client's `Sec-WebSocket-Key`, as sent.
        public var key: String {
            get { storage.fields.key.string }
            set { storage.change { $0.key = ClientKey(newValue) } }
        }
        /// The key as it is kept: the 101 hashes its bytes, with no string made.
        var clientKey: ClientKey { storage.fields.key }
        /// The subprotocols the client offered, in its order of preference.
        public var subprotocols: [String] {
            get { storage.fields.subprotocols }
            set { storage.change { $0.subprotocols = newValue } }
        }
        /// The extensions the client offered, in its order of preference.
        public var extensions: [Connection.ExtensionHeader] {
            get { storage.fields.extensions }
            set { storage.change { $0.extensions = newValue } }
        }
        /// An opening handshake, or a plain HTTP request that only
        /// ``Connection/Configuration/answersPlainRequests`` lets through.
        public var kind: Kind {
            get { storage.fields.kind }
            set { storage.change { $0.kind = newValue } }
        }

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
