// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A proxy, as written in `https_proxy` or a `--proxy` option: `http://[user:password@]host[:port]`,
/// `https://…`, `socks5://…` or `socks5h://…`.
///
/// ```swift
/// let proxy = try ProxyURL(parsing: "http://alice:s%40cret@proxy.example:3128")
/// proxy.scheme       // .http
/// proxy.credentials  // user "alice", password "s@cret" (percent-decoded)
/// print(proxy)       // http://***@proxy.example:3128
/// ```
///
/// What each scheme means for the connection:
///
/// | scheme | default port | the tunnel | the target's name |
/// | --- | --- | --- | --- |
/// | `http` | 80 | ``HTTPConnectTunnel`` over TCP to the proxy | sent to the proxy |
/// | `https` | 443 | ``HTTPConnectTunnel`` over a TLS session with the proxy (verified as ``host``) | sent to the proxy |
/// | `socks5` | 1080 | ``SOCKS5Tunnel`` | resolved here; an address is sent |
/// | `socks5h` | 1080 | ``SOCKS5Tunnel`` | sent to the proxy, which resolves it |
///
/// A string without a scheme (`proxy.example:3128`) is an `http` proxy, as curl reads it. The default
/// port is the scheme's (curl uses 1080 for a scheme-less or `http://` proxy without a port; Python,
/// Go and the URL scheme's own default say 80). A trailing `/` is allowed; any other path, a query or
/// a fragment is not.
///
/// The credentials never appear in ``description`` or in a `dump`.
public struct ProxyURL: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The kind of proxy. A struct with static members, so that schemes can be added later.
    public struct Scheme: Sendable, Hashable, CustomStringConvertible {
        enum Value: Sendable, Hashable { case http, https, socks5, socks5h }
        let value: Value

        private init(value: Value) { self.value = value }

        /// An HTTP proxy, reached over TCP: the tunnel is an HTTP `CONNECT` (RFC 9110 §9.3.6).
        public static let http = Scheme(value: .http)
        /// An HTTP proxy reached over TLS: the `CONNECT` goes inside a TLS session with the proxy.
        public static let https = Scheme(value: .https)
        /// A SOCKS5 proxy (RFC 1928) given an address: the target's name is resolved locally.
        public static let socks5 = Scheme(value: .socks5)
        /// A SOCKS5 proxy given the target's name, which it resolves (ATYP 3).
        public static let socks5h = Scheme(value: .socks5h)

        /// The scheme as written in a URL, e.g. `socks5h`.
        public var description: String {
            switch value {
            case .http: return "http"
            case .https: return "https"
            case .socks5: return "socks5"
            case .socks5h: return "socks5h"
            }
        }

        /// The port of a URL of this scheme that has none: 80, 443, 1080, 1080.
        public var defaultPort: UInt16 {
            switch value {
            case .http: return 80
            case .https: return 443
            case .socks5, .socks5h: return 1080
            }
        }

        /// Whether the tunnel is an HTTP `CONNECT` (`http`, `https`) rather than SOCKS5.
        public var isHTTP: Bool { value == .http || value == .https }

        /// Whether the proxy resolves the target's name (`http`, `https`, `socks5h`) rather than the
        /// client (`socks5`).
        public var resolvesTargetName: Bool { value != .socks5 }

        /// The scheme named `name` (ASCII letters in any case), or `nil`.
        init?(name: some StringProtocol) {
            switch name.lowercased() {
            case "http": self = .http
            case "https": self = .https
            case "socks5": self = .socks5
            case "socks5h": self = .socks5h
            default: return nil
            }
        }
    }

    /// The kind of proxy.
    public let scheme: Scheme
    /// The proxy's host: a name, an IPv4 address, or an IPv6 address without brackets (and with its
    /// zone after `%`, decoded from RFC 6874's `%25`).
    public let host: String
    /// The proxy's port: the URL's, or the scheme's default.
    public let port: UInt16
    /// The percent-decoded user name and password of the URL's user information, or `nil` when it has
    /// none.
    public let credentials: ProxyCredentials?

    init(scheme: Scheme, host: String, port: UInt16, credentials: ProxyCredentials?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// The URL without its credentials: `scheme://host:port`, an IPv6 host in brackets (its zone as
    /// `%25zone`), and `***@` before the host when it has credentials.
    public var description: String {
        var text = "\(scheme)://"
        if credentials != nil { text += "***@" }
        if host.contains(":") {
            text += "[" + host.replacingPercent() + "]"
        } else {
            text += host
        }
        return text + ":\(port)"
    }

    /// A mirror that shows ``description``, without the credentials.
    public var customMirror: Mirror { Mirror(self, children: ["url": description], displayStyle: .struct) }
}

extension String {
    /// `%` as `%25` (an IPv6 zone in a URL, RFC 6874 §2).
    fileprivate func replacingPercent() -> String {
        var result = ""
        for character in self { result += character == "%" ? "%25" : String(character) }
        return result
    }
}
