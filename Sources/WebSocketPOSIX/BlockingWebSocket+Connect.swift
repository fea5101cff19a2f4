// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

extension BlockingWebSocket {
    /// Connects to a WebSocket server and runs the opening handshake (and the TLS handshake first,
    /// for `wss`).
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.limits.maxMessageSize = 64 << 20
    /// let socket = try BlockingWebSocket.connect(to: "ws://[::1]:9001/chat", subprotocols: ["chat.v1"],
    ///                                            configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - url: `ws://host[:port]/resource` or `wss://…` (every address the host resolves to, IPv4
    ///     and IPv6, is tried in turn), or `ws+unix://PATH[:RESOURCE]` for a Unix domain socket (see
    ///     ``WebSocketTransport/WebSocketEndpoint``).
    ///   - subprotocols: to offer, in order of preference.
    ///   - headers: more request headers (`Origin`, `Cookie`, `Authorization`…).
    ///   - configuration: the connection's limits, timers and delivery.
    ///   - options: socket timeouts and options, and TLS for `wss`.
    /// - Throws: ``WebSocketTransport/WebSocketError``: `.invalidURL`, `.tlsUnavailable` (`wss` without
    ///   ``WebSocketTransport/TransportOptions/tls``), `.addressResolutionFailed`, `.connectFailed` (refused,
    ///   unreachable), `.timedOut(.connect)`, `.tls` (an untrusted certificate…), `.handshakeFailed`
    ///   (``WebSocketCore/Connection/HandshakeFailure/rejected(_:)`` carries the status, headers and body),
    ///   `.connection(.invalidHeader)` for a header that cannot be sent.
    public static func connect(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(to: WebSocketEndpoint(parsing: url), subprotocols: subprotocols, headers: headers,
                    configuration: configuration, options: options)
    }

    /// Connects to an endpoint (a TCP URL or a Unix domain socket) and runs the opening handshake.
    ///
    /// - Throws: as ``connect(to:subprotocols:headers:configuration:options:)-(String,_,_,_,_)`` with a URL string.
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String] = [],
                               headers: Connection.HTTPHeaders = [:], configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                    configuration: configuration, options: options, system: .live)
    }

    /// Connects with every option of the opening handshake request (origin, cookies, extensions).
    ///
    /// - Parameters:
    ///   - request: the URL and the rest of the opening handshake request.
    ///   - endpoint: where to connect; by default the request's URL over TCP.
    ///   - configuration: the core's limits, timers and delivery.
    ///   - options: the transport's timeouts, buffer marks and TLS.
    /// - Throws: as ``connect(to:subprotocols:headers:configuration:options:)-(String,_,_,_,_)``.
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) throws(WebSocketError) -> BlockingWebSocket {
        try connect(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration,
                    options: options, system: .live)
    }

    /// The endpoint form, over the given system calls (for tests).
    static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String], headers: Connection.HTTPHeaders,
                        configuration: Connection.Configuration, options: TransportOptions,
                        system: SystemCalls) throws(WebSocketError) -> BlockingWebSocket {
        try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                    configuration: configuration, options: options, system: system)
    }

    /// Connects, following redirects within ``TransportOptions/maxRedirects``: each hop is a new
    /// connection, with its own proxy choice and TLS name (the session decides, as for every adapter).
    static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
                        options: TransportOptions, system: SystemCalls) throws(WebSocketError) -> BlockingWebSocket {
        let settings = SocketSession.Settings(options: options, configuration: configuration, consumerHolds: false)
        var session = try SocketSession(client: request, via: endpoint, configuration: configuration, transport: options,
                                        settings: settings)
        while true {
            guard let target = session.target else { throw .invalidArgument("not a client") }
            session.resolved(try target.resolveAddresses(), at: system.monotonicNow())
            let socket = openSocket(&session, system: system)
            guard let socket else {
                // No address took the connection: the session says why.
                _ = session.finish()
                throw session.ending?.error ?? .timedOut(.connect)
            }
            socket.applyConnectedOptions(options, isUnixSocket: session.isUnixSocket)
            session.connected(at: system.monotonicNow())
            let driver: ConnectionDriver
            do throws(Errno) {
                driver = try ConnectionDriver(socket: socket, session: session, options: options)
            } catch {
                throw .transport(error)
            }
            try? driver.flush()
            let opened = driver.reader.withLock { reader -> Connection.HandshakeResult? in
                while true {
                    switch driver.pump(&reader, until: nil) {
                    case .opened(let result): return result
                    case .message, .decide, .resumed, .limitReached: continue
                    case .socketClosed: return nil
                    }
                }
            }
            if let opened { return BlockingWebSocket(driver: driver, handshake: opened) }
            session = driver.shared.withLock { $0.session }
            // Redirected: the session starts over with the next hop.
            if session.stage == .resolving { continue }
            throw session.ending?.error ?? .handshakeFailed(.endOfStream)
        }
    }

    /// Connects to the session's addresses in turn, within the connect timeout: the socket, or `nil`
    /// when none took the connection (the session has the reason).
    private static func openSocket(_ session: inout SocketSession, system: SystemCalls) -> Socket? {
        while let address = session.connectAddress {
            let deadline = session.nextDeadline
            do throws(Errno) {
                guard let socket = try Socket.connect(to: address, deadline: deadline, system: system) else {
                    // The connect timeout passed: the session fails with it.
                    session.timerFired(at: system.monotonicNow())
                    continue
                }
                return socket
            } catch {
                session.connectAttemptFailed(error)
            }
        }
        return nil
    }
}
