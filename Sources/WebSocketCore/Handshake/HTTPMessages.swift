/// An HTTP version from a request or status line.
public struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    public static func < (l: HTTPVersion, r: HTTPVersion) -> Bool { (l.major, l.minor) < (r.major, r.minor) }
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A parsed HTTP request head: request line and header fields.
public struct HTTPRequestHead: Sendable, Hashable {
    public var method: String
    /// The request target as sent (origin-form `/path?query`, or absolute-form).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public init(method: String, target: String, version: HTTPVersion, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }
}

/// A parsed HTTP response head: status line and header fields.
public struct HTTPResponseHead: Sendable, Hashable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public init(version: HTTPVersion, status: Int, reason: String, headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }
}

/// A whole HTTP response that refused the upgrade: what a client reports when the server answers with
/// anything but 101. The body is cut at ``Limits/maxRejectionBodySize``.
public struct HTTPResponse: Sendable, Hashable {
    public var head: HTTPResponseHead
    public var body: [UInt8]
    public init(head: HTTPResponseHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }
    public var status: Int { head.status }
    public var headers: HTTPHeaders { head.headers }
}

/// A valid opening handshake request, as a server sees it (RFC 6455 §4.2.1), waiting for
/// ``Connection/accept(subprotocol:extensions:headers:)`` or ``Connection/reject(status:headers:body:)``.
public struct HandshakeRequest: Sendable, Hashable {
    /// The whole request head, every header included.
    public var head: HTTPRequestHead
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
    public var extensions: [ExtensionHeader]
}

/// What an opening handshake agreed on, reported by ``Event/handshakeCompleted(_:)``.
public struct HandshakeResult: Sendable, Hashable {
    /// The subprotocol chosen by the server, or `nil` when none was.
    public var subprotocol: String?
    /// The extensions in use, as the server's response listed them.
    public var extensions: [ExtensionHeader]
    /// The peer's headers: the server's 101 response for a client, the client's request for a server.
    public var headers: HTTPHeaders
    /// The resource the client asked for (path and query).
    public var resource: String
    public init(subprotocol: String?, extensions: [ExtensionHeader], headers: HTTPHeaders, resource: String) {
        self.subprotocol = subprotocol
        self.extensions = extensions
        self.headers = headers
        self.resource = resource
    }
}
