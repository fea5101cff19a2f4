// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A `ws://` or `wss://` URI (RFC 6455 §3), split into what the opening handshake needs.
public struct WebSocketURL: Sendable, Hashable {
    /// `true` for `wss` (TLS), `false` for `ws`.
    public var isSecure: Bool
    /// The host: a registered name, an IPv4 address, or an IPv6 address without its brackets.
    public var host: String
    /// The port; 80 for `ws` and 443 for `wss` when the URI names none.
    public var port: UInt16
    /// The resource name: the path (at least `/`) and the query with its `?`, never a fragment.
    public var resource: String
    /// The percent-decoded user from `user:password@`, if any.
    public var user: String?
    /// The percent-decoded password from `user:password@`, if any.
    public var password: String?

    /// A URL from its parts, unchecked (``init(parsing:)`` checks a written URI). `port` defaults to
    /// the scheme's (80 or 443), `resource` to `/`.
    public init(isSecure: Bool = false, host: String, port: UInt16? = nil, resource: String = "/",
                user: String? = nil, password: String? = nil) {
        self.isSecure = isSecure
        self.host = host
        self.port = port ?? (isSecure ? 443 : 80)
        self.resource = resource
        self.user = user
        self.password = password
    }

    /// Whether ``port`` is the scheme's default (80 for `ws`, 443 for `wss`).
    public var isDefaultPort: Bool { port == (isSecure ? 443 : 80) }

    /// Whether ``host`` is an IPv6 literal (it holds a colon), which URIs and `Host` put in brackets.
    public var isIPv6Literal: Bool { host.utf8.contains(UInt8(ascii: ":")) }

    /// The `Host` header value (RFC 6455 §4.1 item 4): the host, bracketed if IPv6, with `:port`
    /// only when the port is not the default.
    public var hostHeaderValue: String {
        let h = isIPv6Literal ? "[\(host)]" : host
        return isDefaultPort ? h : "\(h):\(port)"
    }
}
