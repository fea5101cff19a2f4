// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension ConnectionPipeline {
    /// A client's pipeline and where its socket connects: the endpoint, or the proxy that
    /// ``TransportOptions/proxy`` chooses for it.
    ///
    /// The layers, the socket's side first: TLS to an `https://` proxy (verified for the proxy's
    /// name), the tunnel (HTTP CONNECT or SOCKS5) to the URL's host and port, and for a `wss` URL
    /// TLS verified for the URL's host. The opening handshake's timeout covers them all, from the
    /// moment TCP is connected. A Unix socket endpoint is never proxied.
    ///
    /// - Throws: ``WebSocketError/tlsUnavailable`` for `wss`, or an `https` proxy, without
    ///   ``TransportOptions/tls``; ``WebSocketError/proxy(_:)`` for a proxy that cannot be used (a
    ///   bad URL in the environment, a target or credentials a tunnel cannot carry);
    ///   ``WebSocketError/addressResolutionFailed(host:reason:)`` when a `socks5://` proxy's target
    ///   (resolved here, on the calling thread) does not resolve; ``WebSocketError/connection(_:)``
    ///   for options the request cannot carry (a header with a control character); the TLS factory's
    ///   error.
    package static func client(_ options: Connection.ClientOptions, via endpoint: WebSocketEndpoint,
                               configuration: Connection.Configuration,
                               transport: TransportOptions) throws(WebSocketError) -> ClientPlan {
        var layers: [any TransportLayer] = []
        var socketTarget = ClientPlan.SocketTarget.endpoint(endpoint)
        if endpoint.unixSocketPath == nil, let proxy = try proxy(for: options.url, transport: transport) {
            socketTarget = .host(proxy.host, proxy.port)
            if proxy.scheme == .https {
                guard let tls = transport.tls else { throw .tlsUnavailable }
                layers.append(try tls.makeClientLayer(serverName: proxy.host))
            }
            layers.append(try tunnel(through: proxy, to: options.url, limits: transport.proxyLimits))
        }
        if options.url.isSecure {
            guard let tls = transport.tls else { throw .tlsUnavailable }
            layers.append(try tls.makeClientLayer(serverName: options.url.tlsServerName))
        }
        do throws(Connection.UsageError) {
            let connection = try Connection(role: .client(options), configuration: configuration, random: SystemRandomPool())
            return ClientPlan(pipeline: ConnectionPipeline(connection: consume connection, layers: layers), socketTarget: socketTarget)
        } catch {
            throw .connection(error)
        }
    }

    /// The pipeline of a client connecting over TCP to its URL's host or the proxy chosen for it.
    package static func client(_ options: Connection.ClientOptions, configuration: Connection.Configuration,
                               transport: TransportOptions) throws(WebSocketError) -> ConnectionPipeline {
        try client(options, via: WebSocketEndpoint(url: options.url), configuration: configuration,
                   transport: transport).pipeline
    }

    private static func proxy(for url: WebSocketURL, transport: TransportOptions) throws(WebSocketError) -> ProxyURL? {
        do throws(ProxyError) {
            return try transport.proxy.proxy(for: url)
        } catch {
            throw .proxy(error)
        }
    }

    /// The tunnel layer through `proxy` to the URL's host and port. For `socks5://` the host is
    /// resolved here and the first address sent; `socks5h://` and HTTP proxies get the name.
    private static func tunnel(through proxy: ProxyURL, to url: WebSocketURL,
                               limits: ProxyLimits) throws(WebSocketError) -> any TransportLayer {
        var host = url.tlsServerName
        if !proxy.scheme.isHTTP, !proxy.scheme.resolvesTargetName {
            switch AddressResolution.resolve(urlHost: url.host, port: url.port) {
            case .success(let addresses):
                guard let first = addresses.first?.host else {
                    throw .addressResolutionFailed(host: url.host, reason: "no address")
                }
                host = first
            case .failure(let failure):
                throw .addressResolutionFailed(host: url.host, reason: failure.message)
            }
        }
        do throws(ProxyError) {
            if proxy.scheme.isHTTP {
                return try HTTPConnectTunnel(host: host, port: url.port, credentials: proxy.credentials, limits: limits)
            }
            return try SOCKS5Tunnel(host: host, port: url.port, credentials: proxy.credentials, limits: limits)
        } catch {
            throw .proxy(error)
        }
    }

    /// A server connection's pipeline, with a TLS layer when ``TransportOptions/tls`` is set. `now`,
    /// when the adapter knows it, is the connection's first report of the time
    /// (``WebSocketCore/Connection/init(role:configuration:random:reportingTime:)``).
    package static func server(configuration: Connection.Configuration, transport: TransportOptions,
                               at now: Connection.Instant? = nil) throws(WebSocketError) -> ConnectionPipeline
    {
        var layers: [any TransportLayer] = []
        if let tls = transport.tls { layers.append(try tls.makeServerLayer()) }
        do throws(Connection.UsageError) {
            // A server connection has no client options to refuse.
            let connection = try Connection(role: .server, configuration: configuration, random: SystemRandomPool(), reportingTime: now)
            return ConnectionPipeline(connection: consume connection, layers: layers)
        } catch {
            throw .connection(error)
        }
    }
}

/// A client's pipeline and where its socket connects.
package struct ClientPlan: Sendable {
    /// Where the socket connects.
    package enum SocketTarget: Sendable, Hashable {
        /// The endpoint itself: the URL's host and port, or its Unix socket.
        case endpoint(WebSocketEndpoint)
        /// A proxy's host (a name or an address, IPv6 without brackets) and port.
        case host(String, UInt16)
    }

    package var pipeline: ConnectionPipeline
    package var socketTarget: SocketTarget

    /// Whether the socket is a Unix domain socket.
    package var isUnixSocket: Bool {
        if case .endpoint(let endpoint) = socketTarget { return endpoint.unixSocketPath != nil }
        return false
    }

    /// The addresses to connect to, in order (`getaddrinfo`, which may block on DNS).
    ///
    /// - Throws: as ``WebSocketEndpoint/resolveAddresses()``.
    package func resolveAddresses() throws(WebSocketError) -> [SocketAddress] {
        try socketTarget.resolveAddresses()
    }
}

extension ClientPlan.SocketTarget {
    /// Whether resolving needs no lookup that could block: a Unix socket, or a numeric IPv4 or IPv6
    /// address.
    package var isNumeric: Bool {
        let host: String
        switch self {
        case .endpoint(let endpoint):
            if endpoint.unixSocketPath != nil { return true }
            host = AddressResolution.resolverHost(forURLHost: endpoint.url.host)
        case .host(let name, _):
            host = name
        }
        var literal = host[...]
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if let zone = literal.firstIndex(of: "%") { literal = literal[..<zone] }
        return IPAddressLiteral(String(literal)) != nil
    }

    /// The addresses to connect to, in order (`getaddrinfo`, which may block on DNS).
    ///
    /// - Throws: as ``WebSocketEndpoint/resolveAddresses()``.
    package func resolveAddresses() throws(WebSocketError) -> [SocketAddress] {
        switch self {
        case .endpoint(let endpoint):
            return try endpoint.resolveAddresses()
        case .host(let host, let port):
            switch AddressResolution.resolve(host: host, port: port) {
            case .success(let addresses): return addresses
            case .failure(let failure): throw .addressResolutionFailed(host: host, reason: failure.message)
            }
        }
    }
}

extension WebSocketURL {
    /// The name a TLS client verifies the server's certificate against and sends as SNI: the host,
    /// an IPv6 address without its zone.
    package var tlsServerName: String {
        let host = AddressResolution.resolverHost(forURLHost: self.host)
        guard let percent = host.firstIndex(of: "%") else { return host }
        return String(host[..<percent])
    }
}

extension WebSocketEndpoint {
    /// The addresses to connect to, in order: the Unix socket's, or every address the URL's host
    /// resolves to (`getaddrinfo`, which may block on DNS).
    ///
    /// - Throws: ``WebSocketError/invalidArgument(_:)`` for a Unix socket path that does not fit
    ///   `sun_path`, ``WebSocketError/addressResolutionFailed(host:reason:)``.
    package func resolveAddresses() throws(WebSocketError) -> [SocketAddress] {
        if let path = unixSocketPath { return [try SocketAddress.unixSocket(path: path)] }
        switch AddressResolution.resolve(urlHost: url.host, port: url.port) {
        case .success(let addresses): return addresses
        case .failure(let failure): throw .addressResolutionFailed(host: url.host, reason: failure.message)
        }
    }
}

extension SocketAddress {
    /// The address of the Unix domain socket at `path`, for clients and servers alike.
    ///
    /// - Throws: ``WebSocketError/invalidArgument(_:)`` for a path that is empty, holds a NUL byte or
    ///   does not fit `sun_path`.
    package static func unixSocket(path: String) throws(WebSocketError) -> SocketAddress {
        do throws(Errno) {
            return try SocketAddress.unix(path: path)
        } catch {
            throw .invalidArgument("unusable Unix socket path \(String(reflecting: path)): \(error)")
        }
    }
}
