// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// What a client puts into its opening handshake request (RFC 6455 §4.1).
    public struct ClientOptions: Sendable, Hashable {
        /// Where to connect. Its user and password, when present, become `Authorization: Basic`.
        public var url: WebSocketURL
        /// The `Origin` header, if any (browsers send one; other clients usually do not).
        public var origin: String?
        /// Subprotocols to offer, in order of preference (`Sec-WebSocket-Protocol`).
        public var subprotocols: [String]
        /// Extensions to offer, in order of preference (`Sec-WebSocket-Extensions`).
        public var extensions: [Connection.ExtensionHeader]
        /// Cookies, sent in one `Cookie` header as `name=value; name=value`.
        public var cookies: [Connection.Cookie]
        /// More headers, sent after the ones the handshake needs.
        public var headers: Connection.HTTPHeaders

        /// Options for a handshake to `url`; everything else defaults to none. Nothing is checked here:
        /// the request is checked as it is written, when the ``Connection`` is created, which throws
        /// ``Connection/UsageError/invalidHeader(_:)`` for a value that cannot be sent safely.
        public init(url: WebSocketURL, origin: String? = nil, subprotocols: [String] = [],
                    extensions: [Connection.ExtensionHeader] = [], cookies: [Connection.Cookie] = [], headers: Connection.HTTPHeaders = [:]) {
            self.url = url
            self.origin = origin
            self.subprotocols = subprotocols
            self.extensions = extensions
            self.cookies = cookies
            self.headers = headers
        }
    }
}

extension Connection {
    /// A cookie to send with the opening handshake.
    public struct Cookie: Sendable, Hashable {
        /// The cookie's name, a token (RFC 6265 §4.1.1).
        public var name: String
        /// The cookie's value; it may not hold `;`, CR or LF.
        public var value: String
        /// A cookie; checked when the request is written.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }
}
