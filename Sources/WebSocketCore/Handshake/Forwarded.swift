// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// One element of a `Forwarded` header field (RFC 7239 §4): what one proxy on the way said about
    /// the hop it received the request on.
    ///
    /// ```
    /// Forwarded: for=192.0.2.43, for="[2001:db8:cafe::17]:4711";proto=https;by=203.0.113.60
    /// ```
    ///
    /// is two elements: the first written by the proxy nearest the client, the last by the proxy
    /// nearest this server. **Anyone can write this field**: a client sends whatever elements it likes,
    /// and each proxy only appends its own. Only the elements that proxies you trust appended, read from
    /// the end, say anything; ``Connection/HandshakeRequest/forwarded`` parses them and trusts none.
    ///
    /// RFC 7239 §4: <https://www.rfc-editor.org/rfc/rfc7239#section-4>
    public struct ForwardedElement: Sendable, Hashable {
        /// `for`: the node that made the request to the proxy that wrote this element (RFC 7239 §5.2);
        /// the client, for the first proxy.
        public var `for`: ForwardedNode?
        /// `by`: the interface of the proxy where the request came in (RFC 7239 §5.1).
        public var by: ForwardedNode?
        /// `host`: the `Host` header field the proxy received (RFC 7239 §5.3), unquoted.
        public var host: String?
        /// `proto`: the scheme the proxy was reached with (RFC 7239 §5.4), lower-cased: `http`,
        /// `https`; a WebSocket proxy may write `ws` or `wss`.
        public var proto: String?
        /// Whether the element breaks RFC 7239's grammar: a parameter twice, a `for` or `by` that is no
        /// node, a bad `proto`, an unclosed quoted-string, a pair without `=`. Such an element is kept in
        /// its place, with every parameter `nil`, so that counting elements from the end still counts
        /// hops: a server that walks back through its trusted proxies stops there.
        public var isMalformed: Bool

        /// An element with these parameters; `isMalformed` is `false`.
        public init(for: ForwardedNode? = nil, by: ForwardedNode? = nil, host: String? = nil, proto: String? = nil) {
            self.for = `for`
            self.by = by
            self.host = host
            self.proto = proto
            isMalformed = false
        }

        /// An element that could not be parsed.
        static var malformed: ForwardedElement {
            var element = ForwardedElement()
            element.isMalformed = true
            return element
        }
    }

    /// A node of a `Forwarded` element's `for` or `by` (RFC 7239 §6): an address, `unknown`, or an
    /// obfuscated identifier, with an optional port.
    ///
    /// RFC 7239 §6: <https://www.rfc-editor.org/rfc/rfc7239#section-6>
    public struct ForwardedNode: Sendable, Hashable, CustomStringConvertible {
        /// `nodename = IPv4address / "[" IPv6address "]" / "unknown" / obfnode`.
        public enum Name: Sendable, Hashable {
            /// An IPv4 address as written: four decimal octets without leading zeros (RFC 3986
            /// §3.2.2 `IPv4address`).
            case ipv4(String)
            /// An IPv6 address as written, without its brackets (RFC 3986 §3.2.2 `IPv6address`; no zone).
            case ipv6(String)
            /// `unknown`: the proxy does not know, or does not say, who sent the request (RFC 7239 §6.2).
            case unknown
            /// An obfuscated identifier, underscore included (`_hidden`, RFC 7239 §6.3): names a node
            /// without revealing it.
            case obfuscated(String)
        }

        /// `node-port = port / obfport`.
        public enum Port: Sendable, Hashable {
            /// A port number.
            case number(UInt16)
            /// An obfuscated port, underscore included (`_8080x`).
            case obfuscated(String)
        }

        /// The node's name or address.
        public var name: Name
        /// The port, if the proxy gave one.
        public var port: Port?

        /// A node from its parts.
        public init(name: Name, port: Port? = nil) {
            self.name = name
            self.port = port
        }

        /// The node as RFC 7239 writes it, before quoting: `192.0.2.43`, `[2001:db8:cafe::17]:4711`,
        /// `unknown`, `_hidden:_port`.
        public var description: String {
            var text: String
            switch name {
            case .ipv4(let address): text = address
            case .ipv6(let address): text = "[" + address + "]"
            case .unknown: text = "unknown"
            case .obfuscated(let identifier): text = identifier
            }
            switch port {
            case .number(let number)?: text += ":" + String(number)
            case .obfuscated(let identifier)?: text += ":" + identifier
            case nil: break
            }
            return text
        }
    }
}
