// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// (Client) A server's answer that sends the client elsewhere: a 301, 302, 303, 307 or 308 with a
    /// `Location` the client can follow (RFC 9110 §15.4), reported as
    /// ``Connection/HandshakeFailure/redirected(_:)``.
    ///
    /// The core only reads the answer; following it is the caller's choice (the adapters follow up to
    /// a limit, refuse `wss` to `ws`, and drop credentials when the host changes).
    public struct Redirect: Sendable, Hashable {
        /// The redirecting response: status, headers (with `Location`) and body.
        public var response: Connection.HTTPResponse
        /// The URL the request went to.
        public var from: WebSocketURL
        /// Where to go: `Location` resolved against ``from`` (RFC 3986 §5.2 for the relative forms,
        /// without dot-segment removal), `http` read as `ws` and `https` as `wss`, any fragment
        /// dropped. Its user and password are the `Location`'s own, never carried over.
        public var target: WebSocketURL

        /// The redirect status (301, 302, 303, 307 or 308).
        public var status: Int { response.status }

        /// Whether following it would leave TLS (`wss` to `ws`), which a client should refuse.
        public var isDowngrade: Bool { from.isSecure && !target.isSecure }

        /// Whether the target is another origin's host (compared as the URL parser normalized them);
        /// credentials and cookies meant for ``from`` must not be sent there.
        public var changesHost: Bool { from.host != target.host }

        /// A redirect from its parts, for tests and for adapters that report one of their own.
        public init(response: Connection.HTTPResponse, from: WebSocketURL, target: WebSocketURL) {
            self.response = response
            self.from = from
            self.target = target
        }

        /// The statuses that redirect (RFC 9110 §15.4.2-§15.4.9; 300 and 304 do not).
        static let statuses: Set<Int> = [301, 302, 303, 307, 308]

        /// The redirect `response` to a request for `url` makes, or `nil` when it is none: another
        /// status, no `Location` or more than one, or one that is no usable `ws`/`wss` URL.
        init?(response: Connection.HTTPResponse, from url: WebSocketURL) {
            guard Self.statuses.contains(response.status) else { return nil }
            let locations = response.head.headers.values(for: "Location")
            guard locations.count == 1, let location = locations.first,
                  let target = Self.resolve(location, against: url) else { return nil }
            self.init(response: response, from: url, target: target)
        }

        /// `location` resolved against `base`, as a `ws`/`wss` URL.
        static func resolve(_ location: String, against base: WebSocketURL) -> WebSocketURL? {
            var reference = Substring(location)
            if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
            guard !reference.isEmpty else { return nil }
            let scheme = base.isSecure ? "wss" : "ws"
            let text: String
            if let colon = reference.firstIndex(of: ":"), Self.isScheme(reference[..<colon]) {
                let rest = reference[reference.index(after: colon)...]
                switch reference[..<colon].lowercased() {
                case "http", "ws": text = "ws:" + rest
                case "https", "wss": text = "wss:" + rest
                default: return nil
                }
            } else if reference.hasPrefix("//") {
                text = scheme + ":" + reference
            } else {
                let origin = scheme + "://" + base.hostHeaderValueWithPort
                if reference.hasPrefix("/") {
                    text = origin + reference
                } else if reference.hasPrefix("?") {
                    let path = base.resource.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/"
                    text = origin + path + reference
                } else {
                    // A relative path replaces the base path's last segment (RFC 3986 §5.2.3).
                    let path = base.resource.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "/"
                    let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
                    text = origin + directory + reference
                }
            }
            return try? WebSocketURL(parsing: text)
        }

        /// Whether `text` is an RFC 3986 §3.1 scheme: a letter, then letters, digits, `+`, `-`, `.`.
        private static func isScheme(_ text: Substring) -> Bool {
            guard let first = text.utf8.first, URISyntax.isAlpha(first) else { return false }
            return text.utf8.allSatisfy(URISyntax.isSchemeByte)
        }
    }
}

extension WebSocketURL {
    /// The authority without user info: the host (bracketed if IPv6) and `:port` always, so that a
    /// scheme change on redirect keeps the port the server named.
    var hostHeaderValueWithPort: String {
        (isIPv6Literal ? "[\(host)]" : host) + ":\(port)"
    }
}
