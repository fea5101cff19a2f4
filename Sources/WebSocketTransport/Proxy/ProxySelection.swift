// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Which proxy, if any, to connect to a WebSocket server through, chosen from environment variables
/// the way curl chooses: a pure function of the target and a dictionary, so that it is tested without
/// touching the process environment (``processEnvironment()`` reads that).
///
/// ```swift
/// let selection = ProxySelection(environment: ["https_proxy": "http://proxy:3128", "no_proxy": ".internal,10.0.0.0/8"])
/// try selection.proxy(forHost: "example.com", port: 443, secure: true)    // http://proxy:3128
/// try selection.proxy(forHost: "db.internal", port: 443, secure: true)    // nil: no_proxy
/// try selection.proxy(forHost: "127.0.0.1", port: 9001, secure: false)    // nil: loopback
/// ```
///
/// The variables, the first one set (and not empty) winning:
///
/// | target | variables, in order |
/// | --- | --- |
/// | `wss://` | `wss_proxy`, `WSS_PROXY`, `https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY` |
/// | `ws://` | `ws_proxy`, `WS_PROXY`, `http_proxy`, `all_proxy`, `ALL_PROXY` |
///
/// The lower-case name is preferred, as in curl. Upper-case `HTTP_PROXY` is ignored, as in curl (and
/// in Go's and Python's libraries when they run as CGI programs): a CGI server sets `HTTP_PROXY` from
/// the request's own `Proxy:` header (httpoxy, CVE-2016-5385), so a client could pick the proxy for
/// us. No other `HTTP_*` name is read, so `WS_PROXY` and `WSS_PROXY` are safe.
///
/// `no_proxy` (or `NO_PROXY` when it is not set or empty) lists hosts reached directly, separated by commas or
/// spaces: `*` for every host; a domain (`example.com`, `.example.com` or `*.example.com`: the domain
/// and every name under it); an IPv4 or IPv6 address; a CIDR range (`10.0.0.0/8`, `fd00::/8`); each
/// optionally followed by `:port` (`[::1]:8080` for IPv6). Entries that are none of those are ignored.
/// A name is never resolved to be matched against addresses.
///
/// Loopback targets are never proxied, whatever the variables say: `localhost` and names under
/// `.localhost` (RFC 6761 §6.3), 127.0.0.0/8 and `::1` (IPv4-mapped included).
public struct ProxySelection: Sendable, Hashable {
    /// The variables read, by name (only the proxy ones matter).
    public var environment: [String: String]

    /// A selection over `environment` (for the process's own, ``processEnvironment()``).
    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// The names read, in the order they are consulted: the target's, then `no_proxy`.
    static let secureNames = ["wss_proxy", "WSS_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    static let plainNames = ["ws_proxy", "WS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY"]
    static let noProxyNames = ["no_proxy", "NO_PROXY"]

    /// The proxy to reach `host` and `port` through, or `nil` to connect directly.
    ///
    /// - Parameters:
    ///   - host: the WebSocket URL's host: a name or an IP address (IPv6 with or without brackets).
    ///   - port: its port.
    ///   - secure: `true` for `wss://`, `false` for `ws://`.
    /// - Throws: ``ProxyError/Code/invalidURL`` when the variable chosen does not parse as a
    ///   ``ProxyURL`` (the reason names the variable): a bad proxy is an error, never a silent direct
    ///   connection.
    public func proxy(forHost host: String, port: UInt16, secure: Bool) throws(ProxyError) -> ProxyURL? {
        let names = secure ? Self.secureNames : Self.plainNames
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name] else {
            return nil
        }
        if bypassesProxy(host: host, port: port) { return nil }
        do {
            return try ProxyURL(parsing: value)
        } catch {
            throw ProxyError(.invalidURL, reason: "\(name): \(error.reason)")
        }
    }

    /// Whether `host` and `port` are reached without a proxy: a loopback host, or one that
    /// `no_proxy` (or `NO_PROXY`) covers.
    public func bypassesProxy(host: String, port: UInt16) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        if name.contains(":"), let percent = name.firstIndex(of: "%") { name = name[..<percent] }
        while name.last == "." { name = name.dropLast() }
        let normalized = String(name)
        let address = IPAddressLiteral(normalized)
        if let address, address.isLoopback { return true }
        if address == nil, normalized == "localhost" || normalized.hasSuffix(".localhost") { return true }

        guard let list = Self.noProxyNames.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return false
        }
        return list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            .compactMap(NoProxyRule.init)
            .contains { $0.matches(host: normalized, address: address, port: port) }
    }
}
