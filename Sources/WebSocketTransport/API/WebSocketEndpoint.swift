// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// Where a ``WebSocketPOSIX/BlockingWebSocket`` connects: a `ws://` URL over TCP, or a resource on a Unix domain
/// socket.
///
/// A Unix domain socket is named by a `ws+unix` URL: the socket's path, a colon, then the resource
/// (path and query), which defaults to `/`:
///
/// ```swift
/// try WebSocketEndpoint(parsing: "ws://127.0.0.1:9001/chat")      // TCP
/// try WebSocketEndpoint(parsing: "ws+unix:///run/app.sock:/chat")  // /run/app.sock, resource /chat
/// try WebSocketEndpoint.unixSocket(path: "/run/app.sock", resource: "/chat")   // the same
/// ```
///
/// The path ends at the first colon, so a socket path cannot hold one. Over a Unix socket the
/// request's `Host` header is `localhost`. The core's ``WebSocketCore/WebSocketURL`` knows only `ws` and `wss`;
/// the `ws+unix` form is this module's convention (the one Node's `ws` and Python's `websockets`
/// `unix_connect` callers use).
public struct WebSocketEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// What the opening handshake asks for: `Host`, resource and credentials. For a Unix socket its
    /// host is `localhost` and its port unused.
    public var url: WebSocketURL
    /// The Unix domain socket to connect to, or `nil` to connect over TCP to ``url``'s host and port.
    public var unixSocketPath: String?

    /// A TCP endpoint: the URL's host (every address it resolves to, IPv4 and IPv6, in turn) and port.
    public init(url: WebSocketURL) {
        self.url = url
        unixSocketPath = nil
    }

    /// A Unix domain socket endpoint.
    ///
    /// - Parameters:
    ///   - path: the socket file's path.
    ///   - resource: the resource to ask for: a path starting with `/`, optionally with a query.
    /// - Throws: ``WebSocketError/invalidURL(_:)`` when the path is empty or the resource does not
    ///   start with `/` or holds a fragment.
    public static func unixSocket(path: String, resource: String = "/") throws(WebSocketError)
        -> WebSocketEndpoint
    {
        guard !path.isEmpty else { throw .invalidURL("empty Unix socket path") }
        guard resource.hasPrefix("/") else {
            throw .invalidURL("the resource after the socket path must start with /")
        }
        do {
            // The core's parser percent-encodes the resource exactly as for a ws:// URL.
            var endpoint = WebSocketEndpoint(url: try WebSocketURL(parsing: "ws://localhost" + resource))
            endpoint.unixSocketPath = path
            return endpoint
        } catch {
            throw .invalidURL(error.description)
        }
    }

    /// Parses `ws://…`, `wss://…`, `ws+unix://PATH[:RESOURCE]` or `wss+unix://PATH[:RESOURCE]` (TLS
    /// over a Unix domain socket).
    ///
    /// - Throws: ``WebSocketError/invalidURL(_:)`` with the reason.
    public init(parsing string: String) throws(WebSocketError) {
        // Surrounding whitespace is ignored, as WebSocketURL(parsing:) ignores it.
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }
        var trimmed = string.drop(while: isWhitespace)
        while let last = trimmed.last, isWhitespace(last) { trimmed = trimmed.dropLast() }
        let schemeEnd = trimmed.firstIndex(of: ":") ?? trimmed.endIndex
        let scheme = trimmed[..<schemeEnd].lowercased()
        if scheme == "ws+unix" || scheme == "wss+unix" {
            let rest = trimmed[schemeEnd...].dropFirst()
            guard rest.hasPrefix("//") else { throw .invalidURL("expected ws+unix://PATH[:RESOURCE]") }
            let target = rest.dropFirst(2)
            if let colon = target.firstIndex(of: ":") {
                self = try .unixSocket(path: String(target[..<colon]), resource: String(target[target.index(after: colon)...]))
            } else {
                self = try .unixSocket(path: String(target))
            }
            if scheme == "wss+unix" { url.isSecure = true }
            return
        }
        do {
            self.init(url: try WebSocketURL(parsing: string))
        } catch {
            throw .invalidURL(error.description)
        }
    }

    /// The URL again, without a password: `ws://host:port/resource` or `ws+unix://PATH:RESOURCE`.
    public var description: String {
        guard let unixSocketPath else { return url.description }
        return "\(url.isSecure ? "wss" : "ws")+unix://\(unixSocketPath):\(url.resource)"
    }
}
