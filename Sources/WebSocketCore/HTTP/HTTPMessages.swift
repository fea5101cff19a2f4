// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// An HTTP version from a request or status line.
    public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The digit before the dot (RFC 9112 §2.3).
        public var major: Int
        /// The digit after the dot.
        public var minor: Int
        /// A version, as in `HTTPVersion(major: 1, minor: 1)`.
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }
        /// HTTP/1.1, the least version an opening handshake may use (RFC 6455 §4.1, §4.2.1).
        public static let http1_1 = Connection.HTTPVersion(major: 1, minor: 1)
        /// Orders versions by major, then minor number.
        public static func < (l: Connection.HTTPVersion, r: Connection.HTTPVersion) -> Bool { (l.major, l.minor) < (r.major, r.minor) }
        /// The version as written on the wire, as in `"HTTP/1.1"`.
        public var description: String { "HTTP/\(major).\(minor)" }
    }
}

extension Connection {
    /// A parsed HTTP request head: request line and header fields.
    public struct HTTPRequestHead: Sendable, Hashable {
        /// The method, case-sensitive (RFC 9110 §9.1); an opening handshake is a `GET`.
        public var method: String
        /// The request target as sent (origin-form `/path?query`, or absolute-form).
        public var target: String
        /// The version from the request line.
        public var version: Connection.HTTPVersion
        /// The header fields, in order.
        public var headers: Connection.HTTPHeaders
        /// A request head from its parts.
        public init(method: String, target: String, version: Connection.HTTPVersion, headers: Connection.HTTPHeaders) {
            self.method = method
            self.target = target
            self.version = version
            self.headers = headers
        }
    }
}

extension Connection {
    /// A parsed HTTP response head: status line and header fields.
    public struct HTTPResponseHead: Sendable, Hashable {
        /// The version from the status line.
        public var version: Connection.HTTPVersion
        /// The three-digit status code; 101 completes an opening handshake (RFC 6455 §4.2.2).
        public var status: Int
        /// The reason phrase, as sent (it carries no meaning, RFC 9112 §4).
        public var reason: String
        /// The header fields, in order.
        public var headers: Connection.HTTPHeaders
        /// A response head from its parts.
        public init(version: Connection.HTTPVersion, status: Int, reason: String, headers: Connection.HTTPHeaders) {
            self.version = version
            self.status = status
            self.reason = reason
            self.headers = headers
        }
    }
}

extension Connection {
    /// A whole HTTP response that refused the upgrade: what a client reports when the server answers with
    /// anything but 101. The body is cut at ``Connection/Limits/maxRejectionBodySize``.
    public struct HTTPResponse: Sendable, Hashable {
        /// The status line and header fields.
        public var head: Connection.HTTPResponseHead
        /// The body as far as it was read: by `Content-Length`, chunked coding or the end of the
        /// stream, at most ``Connection/Limits/maxRejectionBodySize`` bytes.
        public var body: [UInt8]
        /// A response from its parts.
        public init(head: Connection.HTTPResponseHead, body: [UInt8]) {
            self.head = head
            self.body = body
        }
        /// The status code of ``head``.
        public var status: Int { head.status }
        /// The header fields of ``head``.
        public var headers: Connection.HTTPHeaders { head.headers }
    }
}
