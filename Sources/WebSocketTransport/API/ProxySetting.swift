// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// Which proxy a client connects through: ``TransportOptions/proxy``.
///
/// ```swift
/// options.proxy = .direct                                          // the default
/// options.proxy = try .url("http://user:secret@proxy.example:3128") // always this proxy
/// options.proxy = .environment                                     // as curl: wss_proxy, https_proxy, no_proxy…
/// ```
///
/// An explicit proxy is used for every host, loopback included. The environment's choice follows
/// ``ProxySelection``: `wss_proxy`/`ws_proxy`, then `https_proxy` (for `wss`) or `http_proxy` (for
/// `ws`), then `all_proxy`, with `no_proxy` and loopback always direct. A connection to a Unix
/// socket never goes through a proxy.
public struct ProxySetting: Sendable, Hashable, CustomStringConvertible {
    // A struct over an internal enum, so that a new way of choosing breaks no user's switch.
    enum Base: Sendable, Hashable {
        case direct
        case fixed(ProxyURL)
        case selection(ProxySelection)
        case processEnvironment
    }

    let base: Base

    /// No proxy: connect to the URL's host.
    public static let direct = ProxySetting(base: .direct)

    /// Always through `proxy`.
    public static func url(_ proxy: ProxyURL) -> ProxySetting { ProxySetting(base: .fixed(proxy)) }

    /// Always through the proxy this URL names (`http://`, `https://`, `socks5://`, `socks5h://`).
    ///
    /// - Throws: ``ProxyError/Code/invalidURL`` for a string that is not a proxy URL.
    public static func url(_ string: String) throws(ProxyError) -> ProxySetting {
        .url(try ProxyURL(parsing: string))
    }

    /// The proxy the process's environment names for each URL, read when each connection starts.
    public static let environment = ProxySetting(base: .processEnvironment)

    /// The proxy `selection` names for each URL (an environment given as a dictionary, for tests or
    /// for a configuration of your own).
    public static func selection(_ selection: ProxySelection) -> ProxySetting { ProxySetting(base: .selection(selection)) }

    /// `direct`, the proxy URL (its password hidden), `environment` or `selection`.
    public var description: String {
        switch base {
        case .direct: return "direct"
        case .fixed(let proxy): return proxy.description
        case .selection: return "selection"
        case .processEnvironment: return "environment"
        }
    }

    /// The proxy for a connection to `url`, or `nil` to connect directly.
    package func proxy(for url: WebSocketURL) throws(ProxyError) -> ProxyURL? {
        switch base {
        case .direct: return nil
        case .fixed(let proxy): return proxy
        case .selection(let selection): return try selection.proxy(forHost: url.host, port: url.port, secure: url.isSecure)
        case .processEnvironment:
            return try ProxySelection.processEnvironment().proxy(forHost: url.host, port: url.port, secure: url.isSecure)
        }
    }
}
