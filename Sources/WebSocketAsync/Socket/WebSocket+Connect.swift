// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import WebSocketTransport

extension WebSocket {
    // MARK: Connecting (handler faces)

    /// Connects with every option of the opening handshake request (subprotocols, origin, cookies,
    /// extensions, headers) and reports everything to `handler` on the socket's loop, starting with
    /// ``WebSocketTransport/WebSocketEvent/open(_:)`` or ``WebSocketTransport/WebSocketEvent/failed(_:)``:
    /// resolves the host (on a thread of its own, never the loop's), tries each address in turn
    /// (IPv4 and IPv6, within ``WebSocketTransport/TransportOptions/connectTimeout`` in all), runs
    /// the proxy tunnel and the TLS handshake where they apply, then the opening handshake,
    /// following redirects within ``WebSocketTransport/TransportOptions/maxRedirects``.
    ///
    /// - Parameters:
    ///   - request: the URL, subprotocols, extensions and headers of the opening handshake.
    ///   - endpoint: where to connect, when not the request's URL over TCP (a Unix domain socket).
    ///   - configuration: the core's limits, timers and delivery; the defaults suit the open internet.
    ///   - options: transport options (TLS for `wss`, a proxy, timeouts).
    ///   - queue: where `handler` runs; `nil` (the default) runs it on the socket's loop, which is
    ///     the fastest (keep it quick: the loop's other sockets wait meanwhile). A concurrent queue is
    ///     fine: calls for one socket never overlap (sockets whose events came in the same turn of a
    ///     loop take turns in one block: a handler must not wait for another socket's events).
    ///   - handler: every event; the last one is `.closed` or `.failed`.
    /// - Throws: ``WebSocketTransport/WebSocketError/tlsUnavailable`` for `wss` without
    ///   ``WebSocketTransport/TransportOptions/tls``, ``WebSocketTransport/WebSocketError/proxy(_:)`` for a proxy that
    ///   cannot be used, ``WebSocketTransport/WebSocketError/connection(_:)`` for options the request cannot carry
    ///   (a header with a control character).
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    @discardableResult
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue? = nil,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        try startClient(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration,
                        options: options, consumer: queue.map { .queueHandler($0, handler) } ?? .loopHandler(handler),
                        system: .live)
    }

    /// Connects to a `ws://`, `wss://` or `ws+unix://` URL given as a string; see
    /// ``connect(_:via:configuration:options:queue:handler:)``.
    ///
    /// ```swift
    /// let socket = try WebSocket.connect(to: "ws://127.0.0.1:9001/chat", subprotocols: ["chat.v1"]) { socket, event in
    ///     switch event {
    ///     case .open: try? socket.send(text: "hello")
    ///     case .message(.text(let text)): print(text)
    ///     case .closed(let status): print("closed", status)
    ///     default: break
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidURL(_:)`` as well.
    @discardableResult
    public static func connect(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue? = nil,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        try connect(to: WebSocketEndpoint(parsing: url), subprotocols: subprotocols, headers: headers,
                    configuration: configuration, options: options, queue: queue, handler: handler)
    }

    /// Connects to an endpoint (a TCP URL or a Unix domain socket); see
    /// ``connect(_:via:configuration:options:queue:handler:)``.
    @discardableResult
    public static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue? = nil,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        try connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers), via: endpoint,
                    configuration: configuration, options: options, queue: queue, handler: handler)
    }

    /// Makes a client socket on the next loop and starts it.
    static func startClient(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint,
                            configuration: Connection.Configuration, options: TransportOptions, consumer: Consumer,
                            system: SystemCalls, loop: EventLoop? = nil) throws(WebSocketError) -> WebSocket {
        let settings = SocketSession.Settings(options: options, configuration: configuration,
                                              consumerHolds: consumer.holdsDeliveries)
        let session = try SocketSession(client: request, via: endpoint, configuration: configuration, transport: options,
                                        settings: settings)
        let chosen: EventLoop
        if let loop { chosen = loop } else { chosen = try EventLoops.nextForClient() }
        let socket = WebSocket(loop: chosen, server: nil, socket: nil, session: consume session,
                               consumer: consumer, options: OutOfLine(options), system: system)
        // The async face's messages need the socket: `.pending` stands for them until it exists.
        if case .pending = consumer { socket.consumer = socket.attachBatches() }
        socket.loop.execute { socket.startResolving() }
        return socket
    }

    // MARK: On the loop

    /// Resolves where the socket connects, then starts the connect attempts: on the loop for a
    /// numeric address or a Unix socket, off it for a name (`getaddrinfo` may block on DNS).
    func startResolving() {
        guard peek({ $0.stage }) == .resolving, let target = peek({ $0.target }) else { return }
        guard !target.isNumeric else {
            resolved(Result { () throws(WebSocketError) in try target.resolveAddresses() })
            return
        }
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(WebSocketError) in try target.resolveAddresses() }
            loop.execute { [self] in resolved(result) }
        }
    }

    /// (On the loop) The target resolved, or did not.
    private func resolved(_ result: Result<[SocketAddress], WebSocketError>) {
        switch result {
        case .success(let addresses): peek { $0.resolved(addresses, at: loop.now) }
        case .failure(let error): peek { $0.resolutionFailed(error) }
        }
        attemptConnect()
    }

    /// Starts a connect to the session's current address; failing at once, goes on to the next. With
    /// none left, or the session cancelled or timed out, the socket ends (the directive closes).
    private func attemptConnect() {
        while let address = peek({ $0.connectAddress }) {
            do throws(Errno) {
                let (socket, isConnected) = try Socket.startConnect(to: address, system: system)
                self.socket = socket
                do throws(Errno) {
                    try loop.register(self, descriptor: socket.descriptor, interest: .writable)
                } catch {
                    socket.close()
                    self.socket = nil
                    throw error
                }
                interest = .writable
                if isConnected { didConnect() } else { scheduleTimer() }
                return
            } catch {
                peek { $0.connectAttemptFailed(error) }
            }
        }
        markDirty()
    }

    /// The current attempt's socket became writable (or failed): connected, or on to the next address.
    func finishConnectAttempt() {
        guard let socket else { return }
        do throws(Errno) {
            try socket.finishConnect()
            didConnect()
        } catch {
            dropDescriptor()
            peek { $0.connectAttemptFailed(error) }
            attemptConnect()
        }
    }

    /// TCP is connected: the transport layers' handshakes and the opening handshake start, their
    /// timer too.
    private func didConnect() {
        socket?.applyConnectedOptions(options, isUnixSocket: peek { $0.isUnixSocket })
        peek { $0.connected(at: loop.now) }
        let connected = socket
        shared.withLock { $0.connected = connected }
        writable = true
        markDirty()
    }

    // MARK: Cancelling

    /// Closes the socket at once, without a closing handshake. Before the connection opened it ends
    /// with ``WebSocketTransport/WebSocketEvent/failed(_:)`` and ``WebSocketTransport/WebSocketError/cancelled``;
    /// once open, the connection is aborted and ``WebSocketTransport/WebSocketEvent/closed(_:)`` reports
    /// 1006. Does nothing once the connection has ended.
    public func cancel() {
        loop.execute { [self] in
            peek { $0.cancel() }
            act()
            markDirty()
        }
    }
}
