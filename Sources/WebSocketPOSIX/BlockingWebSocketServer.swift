// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

/// A WebSocket server on blocking sockets: one POSIX thread per connection.
///
/// ```swift
/// let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0)   // port 0: any free port
/// print("listening on", server.localAddress)
/// try server.serve { socket in                       // on the connection's own thread
///     while let message = try? socket.receive() {
///         switch message {
///         case .text(let text): try? socket.send(text: text)
///         case .binary(let bytes): try? socket.send(binary: bytes)
///         default: break
///         }
///     }
/// }                                                  // returns after stop()
/// ```
///
/// ``serve(handshake:handler:)`` blocks the calling thread, accepting connections until ``stop()``
/// is called from another thread (a signal-handling thread, say). Each accepted connection runs on a
/// new detached thread: the opening handshake (the `handshake` callback decides), then the `handler`
/// with the open ``BlockingWebSocket``; when the handler returns, the connection is closed with 1000
/// if it is still open. ``connections`` is the other way to take them: a sequence whose iteration
/// blocks until the next connection has opened.
///
/// The API has the shape of the non-blocking adapter's `WebSocketServer` (`WebSocketAsync`).
public final class BlockingWebSocketServer: Sendable {
    /// The address the server listens on; with port 0, the port the system chose is in it.
    public let localAddress: SocketAddress

    let listener: Socket
    let wake: WakeSignal
    let configuration: Connection.Configuration
    let options: TransportOptions
    let state = Locked(State())

    struct State: Sendable {
        /// Who accepts: nobody yet, ``serve(handshake:handler:)``, or ``connections``.
        var acceptor = Acceptor.none
        var isStopping = false
        /// Set by a stop that closes every connection: those that open later are closed with it.
        var closing: Connection.CloseFrame? = nil
        /// The connections past their handshake, by identity, for a stop to close; weak, so that one
        /// taken from ``connections`` and dropped is not kept.
        var connections: [ObjectIdentifier: WeakConnection] = [:]
        /// Connection threads still running.
        var threads = 0
        /// Opened connections waiting in ``connections``.
        var opened: [BlockingWebSocket] = []
        /// Whether the Unix socket file still has to be removed.
        var ownsSocketFile = false
    }

    struct WeakConnection: Sendable {
        weak var socket: BlockingWebSocket?
    }

    enum Acceptor: Sendable {
        case none
        case serve
        case sequence
    }

    /// The port the server listens on (IPv4 or IPv6; the one the system chose when you passed 0),
    /// or 0 for a Unix socket.
    public var port: UInt16 { localAddress.port ?? 0 }

    /// Connections past their opening handshake and not yet closed (open or closing).
    public var connectionCount: Int { openConnections.count }

    /// The connections past their handshake that are not closed yet (forgetting the others).
    private var openConnections: [BlockingWebSocket] {
        state.withLock { state in
            state.connections = state.connections.filter { $0.value.socket.map { $0.closeStatus == nil } ?? false }
            return state.connections.values.compactMap(\.socket)
        }
    }

    /// Listens on `host` and `port`.
    ///
    /// - Parameters:
    ///   - host: an address to bind, IPv4 (`127.0.0.1`, `0.0.0.0`) or IPv6 (`::1`, `::`), or a name;
    ///     the first resolved address that binds is used. Default `127.0.0.1`.
    ///   - port: the port; 0 (the default) lets the system pick a free one: read it from ``port``.
    ///   - backlog: the `listen` backlog (the kernel caps it at `somaxconn`). Default 1024, so that a
    ///     burst of clients waits in the kernel rather than being refused.
    ///   - configuration: limits, timers and delivery for every connection.
    ///   - options: socket options for every connection (write and receive timeouts, TLS…).
    /// - Throws: ``WebSocketTransport/WebSocketError/addressResolutionFailed(host:reason:)``,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (address in use…).
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions()) throws(WebSocketError) {
        let addresses = try Socket.listenAddresses(host: host, port: port)
        try self.init(addresses: addresses, unixSocketPath: nil, configuration: configuration, options: options,
                      backlog: backlog, system: .live)
    }

    /// Listens on a Unix domain socket at `path`. A stale socket file (one nobody accepts on any
    /// more) is replaced; the file is removed when the server stops.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a path too long for `sun_path`,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (a live server there, no permission…).
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions()) throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, configuration: configuration, options: options,
                      backlog: backlog, system: .live)
    }

    init(addresses: [SocketAddress], unixSocketPath: String?, configuration: Connection.Configuration, options: TransportOptions,
         backlog: Int32, system: SystemCalls) throws(WebSocketError) {
        let listener = try Socket.listening(on: addresses, unixSocketPath: unixSocketPath, backlog: backlog, system: system)
        // A TLS configuration that cannot make server sessions fails here, not per connection.
        if let tls = options.tls { _ = try tls.makeServerLayer() }
        self.listener = listener
        localAddress = listener.localAddress ?? addresses[0]
        self.configuration = configuration
        self.options = options
        do throws(Errno) {
            wake = try WakeSignal(system: system)
        } catch {
            throw .transport(error)
        }
        state.withLock { $0.ownsSocketFile = unixSocketPath != nil }
    }

    deinit {
        removeSocketFile()
    }

    private func removeSocketFile() {
        let owns = state.withLock { state in
            defer { state.ownsSocketFile = false }
            return state.ownsSocketFile
        }
        if owns, let path = localAddress.unixPath { _ = listener.system.unlink(path) }
    }

    // MARK: Serving

    /// Accepts connections until ``stop()``, running each on its own thread.
    ///
    /// For each connection, the opening handshake runs first: an invalid request is answered by the
    /// connection itself (400, 426…); a valid one goes to `handshake`, whose ``WebSocketCore/Connection/HandshakeDecision``
    /// accepts or rejects it (a decision the connection refuses, such as a subprotocol the client did
    /// not offer, is answered with 500). Then `handler` runs with the open connection, on the same
    /// thread; when it returns, the connection is closed (1000) if it is still open.
    ///
    /// After ``stop()`` it returns; after ``stop(closing:reason:)`` it first waits for the connection
    /// threads to end their closing handshakes: at most ``WebSocketCore/Connection/Timeouts/close``
    /// (5 seconds when off) plus one second, after which threads still running are left to finish on
    /// their own.
    ///
    /// - Parameters:
    ///   - handshake: decides on each valid request. Default: accept, with no subprotocol.
    ///   - handler: uses an open connection.
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` when the server is already
    ///   serving (or its ``connections`` are taken), ``WebSocketTransport/WebSocketError/transport(_:)``
    ///   when the listening socket fails.
    public func serve(handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                      handler: @escaping @Sendable (BlockingWebSocket) -> Void) throws(WebSocketError) {
        try claim(as: .serve)
        defer { finishServing() }
        try acceptUntilStopped { socket in
            start(socket) { [self] in
                guard let webSocket = runHandshake(socket, decide: handshake) else { return }
                handler(webSocket)
                _ = try? webSocket.close()
                state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(webSocket)) }
            }
        }
    }

    /// The connections, in the order their handshakes completed: iterating blocks until the next one
    /// has opened, and ends after ``stop()``. The first iteration starts accepting on a thread of its
    /// own; each handshake runs on a thread of its own, deciding with `accept()` (no subprotocol).
    /// Close each connection when done with it.
    ///
    /// ```swift
    /// for socket in server.connections {
    ///     spawn { while let message = try? socket.receive() { … } }
    /// }
    /// ```
    public var connections: Connections { Connections(server: self) }

    /// The blocking sequence of a server's open connections; see ``BlockingWebSocketServer/connections``.
    public struct Connections: Sequence, Sendable {
        let server: BlockingWebSocketServer

        /// An iterator over the open connections; iterators share them (each goes to one call).
        public func makeIterator() -> Iterator { Iterator(server: server) }

        /// The iterator of ``BlockingWebSocketServer/Connections``.
        public struct Iterator: IteratorProtocol {
            let server: BlockingWebSocketServer

            /// The next open connection, waiting for it; `nil` once the server has stopped (or
            /// ``BlockingWebSocketServer/serve(handshake:handler:)`` takes its connections).
            public mutating func next() -> BlockingWebSocket? {
                server.nextConnection()
            }
        }
    }

    private func nextConnection() -> BlockingWebSocket? {
        do throws(WebSocketError) {
            try claim(as: .sequence)
        } catch {
            return nil
        }
        _ = state.wait(until: { !$0.opened.isEmpty || $0.isStopping }, deadline: nil, now: listener.system.monotonicNow)
        return state.withLock { state in state.opened.isEmpty ? nil : state.opened.removeFirst() }
    }

    /// Makes `acceptor` the one that accepts (once): ``serve(handshake:handler:)`` accepts on its
    /// caller's thread, ``connections`` on a thread it starts.
    private func claim(as acceptor: Acceptor) throws(WebSocketError) {
        let previous = state.withLock { state in
            defer { if case .none = state.acceptor { state.acceptor = acceptor } }
            return state.acceptor
        }
        switch (previous, acceptor) {
        case (.none, .serve):
            return
        case (.none, .sequence):
            do throws(Errno) {
                try spawnDetachedThread { [self] in
                    defer { finishServing() }
                    try? acceptUntilStopped { socket in
                        start(socket) { [self] in
                            guard let webSocket = runHandshake(socket, decide: { _ in .accept() }) else { return }
                            state.withLock { $0.opened.append(webSocket) }
                            state.broadcast()
                        }
                    }
                }
            } catch {
                throw .transport(error)
            }
        case (.sequence, .sequence):
            return
        case (.serve, _):
            throw .invalidArgument("serve() is already running on this server")
        case (.sequence, .serve):
            throw .invalidArgument("this server's connections are taken already (connections)")
        case (_, .none):
            return
        }
    }

    /// Accepts until a stop, handing each socket to `take`.
    private func acceptUntilStopped(_ take: (Socket) -> Void) throws(WebSocketError) {
        while !state.withLock({ $0.isStopping }) {
            var fds = [pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            do throws(Errno) {
                _ = try Poller.poll(&fds, deadline: nil, system: listener.system)
                if fds[1].revents != 0 { wake.drain() }
                guard fds[0].revents != 0 else { continue }
                while let socket = try listener.accept() { take(socket) }
            } catch {
                switch AcceptFailure(error) {
                case .skip:
                    continue
                case .pause:
                    var pause = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
                    _ = try? Poller.poll(&pause, deadline: listener.system.monotonicNow() + AcceptFailure.pauseLength,
                                         system: listener.system)
                case .stop:
                    throw .transport(error)
                }
            }
        }
    }

    /// Stops accepting connections: ``serve(handshake:handler:)`` returns and ``connections`` ends;
    /// the listening socket closes (and a Unix socket's file is removed). Open connections carry
    /// on. Safe from any thread; returns at once.
    public func stop() {
        state.withLock { $0.isStopping = true }
        state.broadcast()
        wake.signal()
    }

    /// Stops accepting and starts the closing handshake of every open connection with `code` (1001
    /// "going away" for a server shutting down, 1012 "service restart" for one that comes back), and
    /// of any that opens later. Safe from any thread; returns at once.
    public func stop(closing code: Connection.CloseCode, reason: String = "") {
        let frame = Connection.CloseFrame(code: code, reason: reason)
        state.withLock { state in
            state.isStopping = true
            state.closing = frame
        }
        let connections = openConnections
        state.broadcast()
        wake.signal()
        for connection in connections {
            try? connection.sendClose(code: code, reason: reason)
        }
    }

    /// Waits (blocking the calling thread) until every connection thread has ended (those of
    /// ``serve(handshake:handler:)`` run until their connection closes; those of ``connections`` end
    /// with the handshake, and the connections are then yours), or `timeout` passes. Returns whether
    /// none is left.
    public func waitUntilIdle(timeout: Duration?) -> Bool {
        let system = listener.system
        return state.wait(until: { $0.threads == 0 }, deadline: timeout.map { system.monotonicNow() + $0 }, now: system.monotonicNow)
    }

    /// Closes the listener and, after a stop that closes the connections, waits (bounded) for their
    /// threads.
    private func finishServing() {
        listener.close()
        removeSocketFile()
        guard state.withLock({ $0.closing != nil }) else { return }
        let grace = (configuration.timeouts.close ?? .seconds(5)) + .seconds(1)
        _ = waitUntilIdle(timeout: grace)
    }

    // MARK: Connections

    /// Runs `body` for `socket` on a thread of its own.
    private func start(_ socket: Socket, _ body: @escaping @Sendable () -> Void) {
        socket.applyConnectedOptions(options, isUnixSocket: localAddress.family == .unix)
        state.withLock { $0.threads += 1 }
        do throws(Errno) {
            try spawnDetachedThread { [self] in
                body()
                state.withLock { $0.threads -= 1 }
                state.broadcast()
            }
        } catch {
            // No thread for it: the connection is dropped (the socket closes here).
            state.withLock { $0.threads -= 1 }
            state.broadcast()
        }
    }

    /// Runs the server's opening handshake (on the connection's thread): the open connection,
    /// registered for a stop to close, or `nil` when the connection ended instead (rejected,
    /// invalid, timed out, or the client went away). One that opens after a stop that closes the
    /// connections is closed with the same code.
    private func runHandshake(_ socket: Socket, decide: (Connection.HandshakeRequest) -> Connection.HandshakeDecision) -> BlockingWebSocket? {
        // Fails only when the TLS layer cannot be made (checked when the server was created).
        guard let pipeline = try? ConnectionPipeline.server(configuration: configuration, transport: options) else { return nil }
        let settings = SocketSession.Settings(options: options, configuration: configuration, consumerHolds: false)
        var session = SocketSession(accepted: pipeline, settings: settings, limits: options.lifetimeLimits,
                                    lifetimeSample: options.lifetimeLimits.randomSample)
        if options.proxyProtocol != nil { session.expectProxyHeader(from: socket.peerAddress, options: options) }
        guard let driver = try? ConnectionDriver(socket: socket, session: session, options: options) else { return nil }
        let result = driver.reader.withLock { reader -> Connection.HandshakeResult? in
            while true {
                switch driver.pump(&reader, until: nil) {
                case .decide(let request):
                    let decision = decide(request)
                    // An answer the core refuses becomes a 500 there.
                    _ = try? driver.perform { (session) throws(WebSocketError) in session.respond(to: decision) }
                case .opened(let result):
                    return result
                case .message, .resumed, .limitReached:
                    continue
                case .socketClosed:
                    return nil
                }
            }
        }
        guard let result else { return nil }
        let webSocket = BlockingWebSocket(driver: driver, handshake: result)
        let closing: Connection.CloseFrame? = state.withLock { state in
            if let closing = state.closing { return closing }
            state.connections[ObjectIdentifier(webSocket)] = WeakConnection(socket: webSocket)
            return nil
        }
        if let closing {
            _ = try? webSocket.close(code: closing.code, reason: closing.reason)
            return nil
        }
        return webSocket
    }
}
