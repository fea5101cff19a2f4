extension ConnectionPipeline {
    /// A client's pipeline: its connection, with masking keys from the system's entropy pool, and
    /// for a `wss` URL a TLS layer that verifies the URL's host.
    ///
    /// - Throws: ``WebSocketError/tlsUnavailable`` for `wss` without ``TransportOptions/tls``;
    ///   ``WebSocketError/connection(_:)`` for options the request cannot carry (a header with a
    ///   control character); the TLS factory's error.
    package static func client(_ options: Connection.ClientOptions, configuration: Connection.Configuration,
                               transport: TransportOptions) throws(WebSocketError) -> ConnectionPipeline {
        var layers: [any TransportLayer] = []
        if options.url.isSecure {
            guard let tls = transport.tls else { throw .tlsUnavailable }
            layers.append(try tls.makeClientLayer(serverName: options.url.tlsServerName))
        }
        do throws(Connection.UsageError) {
            let connection = try Connection(role: .client(options), configuration: configuration, random: SystemRandomPool())
            return ConnectionPipeline(connection: connection, layers: layers)
        } catch {
            throw .connection(error)
        }
    }

    /// A server connection's pipeline, with a TLS layer when ``TransportOptions/tls`` is set.
    package static func server(configuration: Connection.Configuration, transport: TransportOptions) throws(WebSocketError)
        -> ConnectionPipeline
    {
        var layers: [any TransportLayer] = []
        if let tls = transport.tls { layers.append(try tls.makeServerLayer()) }
        do throws(Connection.UsageError) {
            // A server connection has no client options to refuse.
            let connection = try Connection(role: .server, configuration: configuration, random: SystemRandomPool())
            return ConnectionPipeline(connection: connection, layers: layers)
        } catch {
            throw .connection(error)
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
