import Dispatch
import WebSocketTransport

/// A WebSocket server: a listening socket whose accept loop runs on Dispatch, serving every
/// connection at once, each on its own serial queue. With ``WebSocketTransport/TransportOptions/tls`` set it serves
/// `wss://`.
///
/// Each opening handshake request goes to `handshake`, which accepts it (subprotocol, extensions,
/// headers) or rejects it (status, headers, body). Requests that are not valid handshakes never reach
/// it: the core answers them (400, 405, 426…).
///
/// Accepted connections go to one of two faces:
///
/// ```swift
/// // Delegate-queue face: every connection's events go to one handler, on your queue.
/// let server = try WebSocketServer(port: 9001, queue: .main) { socket, event in
///     if case .text(let text) = event { try? socket.send(text: text) }
/// }
///
/// // Async face: open connections arrive in `connections`.
/// let server = try WebSocketServer(port: 9001)
/// for await socket in server.connections {
///     Task { for try await message in socket.messages { try await socket.send(message) } }
/// }
/// ```
///
/// **Every accepted connection is kept.** The async face holds at most `maxPendingConnections`
/// connections that are in their opening handshake or open and not yet taken from ``connections``;
/// at that mark the server stops accepting, and further clients wait in the kernel's listen backlog
/// (their TCP handshake is done; their opening handshake waits) until a task takes a connection. No
/// connection is ever answered 101 and then dropped.
///
/// The server listens until ``stop()``; connections already accepted carry on.
///
/// `@unchecked Sendable`: the stored properties are constants, except `source` and the flags, which
/// are read and written only on the server's private serial queue `queue`.
public final class WebSocketServer: @unchecked Sendable {
    /// The address the server listens on; with port 0, the port the system chose is in it.
    public let localAddress: SocketAddress
    /// Open connections, for the async face (servers created without a handler); it ends after
    /// ``stop()``, once the connections already open have been taken. For a server with a handler it
    /// is empty.
    public let connections: Connections

    private let queue = DispatchQueue(label: "WebSocketServer.accept")
    private let listener: Socket
    private let configuration: Connection.Configuration
    private let options: TransportOptions
    private let context: ServerContext
    private let pending: PendingConnections?
    private let system: SystemCalls
    private let unixSocketPath: String?
    /// The listening socket's readiness, while the server listens.
    private var source: SocketSources?
    private var isStopped = false
    /// Out of descriptors: accepting waits a moment.
    private var isPausedForDescriptors = false

    /// The port the server listens on (IPv4 or IPv6; the one the system chose when you passed 0), or
    /// 0 for a Unix socket.
    public var port: UInt16 { localAddress.port ?? 0 }

    /// Creates a server whose connections report to `handler` on `queue` (the delegate-queue face).
    ///
    /// - Parameters:
    ///   - host: the address to listen on: `127.0.0.1` (the default), `::1`, `0.0.0.0`, `::`, or a name.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog (the kernel caps it at `somaxconn`). Default 1024.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection; ``WebSocketTransport/TransportOptions/tls`` to serve `wss`.
    ///   - queue: where `handshake` and `handler` run. A concurrent queue is fine: calls for one
    ///     connection never overlap.
    ///   - handshake: the decision on each valid opening handshake request. Default: accept without a
    ///     subprotocol.
    ///   - handler: every connection's events, starting with ``WebSocketTransport/WebSocketEvent/open(_:)``.
    /// - Throws: ``WebSocketTransport/WebSocketError/addressResolutionFailed(host:reason:)``,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)``, ``WebSocketTransport/WebSocketError/tls(_:)`` for a TLS configuration that
    ///   cannot serve.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            queue: DispatchQueue,
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                            handler: @escaping WebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      configuration: configuration, options: options, decisionQueue: queue, handshake: handshake,
                      face: .handler(queue, handler), system: .live)
    }

    /// Creates a server whose open connections arrive in ``connections`` (the async face); each
    /// socket's messages are read with ``WebSocket/messages``.
    ///
    /// `handshake` runs on a private serial queue of the server: keep it quick.
    ///
    /// - Parameters:
    ///   - host: the address to listen on, as for the handler face; default `127.0.0.1`.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog. Default 1024.
    ///   - maxPendingConnections: the most connections in their opening handshake or open
    ///     and not yet taken from ``connections``; at the mark the server stops accepting until a
    ///     task takes one. Default 128.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection.
    ///   - handshake: the decision on each valid opening handshake request. Default: accept
    ///     without a subprotocol.
    /// - Throws: as the other initializer.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                            maxPendingConnections: Int = 128,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() })
        throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      configuration: configuration, options: options,
                      decisionQueue: DispatchQueue(label: "WebSocketServer.handshake"), handshake: handshake,
                      face: .stream(maxPendingConnections), system: .live)
    }

    /// Creates a server on a Unix domain socket at `path` whose connections report to `handler` on
    /// `queue`. A stale socket file (one nobody accepts on any more) is replaced; the file is removed
    /// by ``stop()``.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a path too long for `sun_path`,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (a live server there, no permission…).
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            queue: DispatchQueue,
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                            handler: @escaping WebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, backlog: backlog, configuration: configuration,
                      options: options, decisionQueue: queue, handshake: handshake, face: .handler(queue, handler),
                      system: .live)
    }

    enum Face {
        case handler(DispatchQueue, WebSocket.EventHandler)
        case stream(Int)
    }

    init(addresses: [SocketAddress], unixSocketPath: String?, backlog: Int32, configuration: Connection.Configuration,
         options: TransportOptions, decisionQueue: DispatchQueue,
         handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision, face: Face,
         system: SystemCalls) throws(WebSocketError) {
        listener = try Socket.listening(on: addresses, unixSocketPath: unixSocketPath, backlog: backlog, system: system)
        // A TLS configuration that cannot make server sessions fails here, not per connection.
        if let tls = options.tls { _ = try tls.makeServerLayer() }
        #if os(Linux)
        if case .failure(let error) = EpollLoop.shared { throw .transport(error) }
        #endif
        localAddress = listener.localAddress ?? addresses[0]
        self.configuration = configuration
        self.options = options
        self.system = system
        self.unixSocketPath = unixSocketPath
        switch face {
        case .handler(let queue, let handler):
            pending = nil
            context = ServerContext(decisionQueue: decisionQueue, decide: handshake, handOff: .handler(queue, handler))
        case .stream(let limit):
            let pending = PendingConnections(queue: queue, limit: limit)
            self.pending = pending
            context = ServerContext(decisionQueue: decisionQueue, decide: handshake, handOff: .stream(pending))
        }
        connections = Connections(pending: pending)
        pending?.onRoom = { [weak self] in self?.updateSource() }
        queue.async { self.startAccepting() }
    }

    /// Stops accepting connections and closes the listening socket (and removes a Unix socket's
    /// file); accepted connections carry on. ``connections`` ends once those already open are taken.
    public func stop() {
        queue.async { [self] in
            pending?.finish()
            isStopped = true
            guard let source else { return }
            self.source = nil
            source.close { [unixSocketPath, system] in
                if let unixSocketPath { _ = system.unlink(unixSocketPath) }
            }
        }
    }

    private func startAccepting() {
        guard !isStopped else {
            listener.close()
            return
        }
        do throws(Errno) {
            source = try SocketSources(socket: listener, queue: queue, onReadable: { [self] in acceptConnections() },
                                       onWritable: {})
        } catch {
            // The loop was checked when the server was made: this does not happen.
            listener.close()
            return
        }
        updateSource()
    }

    /// Accepts what is waiting, at most 64 connections per event, and no more than the async face
    /// can hold.
    private func acceptConnections() {
        for _ in 0..<64 {
            if pending?.isFull == true {
                updateSource()
                return
            }
            do throws(Errno) {
                guard let socket = try listener.accept() else { return }
                if options.noDelay, localAddress.family != .unix {
                    try? socket.setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
                }
                pending?.accepted()
                WebSocket.serve(socket, configuration: configuration, options: options, context: context, system: system)
            } catch .tooManyOpenFiles {
                pauseForDescriptors()
                return
            } catch {
                // ENFILE, ENOBUFS, ENOMEM: a passing shortage; pause too. Anything else concerns
                // one connection (EPROTO, EPERM from a firewall).
                if error.rawValue == ENFILE || error.rawValue == ENOBUFS || error.rawValue == ENOMEM { pauseForDescriptors() }
                return
            }
        }
    }

    /// Out of descriptors: rather than spin on a listening socket that stays readable, accepting
    /// waits 100 ms.
    private func pauseForDescriptors() {
        isPausedForDescriptors = true
        updateSource()
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            isPausedForDescriptors = false
            updateSource()
        }
    }

    /// Waits for connections to accept unless accepting must wait (on the queue).
    private func updateSource() {
        source?.setInterest(reading: !isPausedForDescriptors && pending?.isFull != true, writing: false)
    }

    /// The open connections of an async-face server, in the order their handshakes completed; see
    /// ``WebSocketServer/connections``.
    public struct Connections: AsyncSequence, Sendable {
        /// An open connection, its handshake done.
        public typealias Element = WebSocket
        let pending: PendingConnections?

        /// An iterator over the open connections; iterators share them (each goes to one call).
        public func makeAsyncIterator() -> Iterator { Iterator(pending: pending) }

        /// The iterator of ``WebSocketServer/Connections``. Iterators share the server's connections:
        /// each goes to one `next()` call.
        public struct Iterator: AsyncIteratorProtocol {
            let pending: PendingConnections?

            /// The next open connection; `nil` once the server stopped and every open connection was
            /// taken. Cancelling the waiting task returns `nil` too (no connection is lost).
            public mutating func next() async -> WebSocket? {
                guard let pending else { return nil }
                return try? await wait(on: pending.queue, { (waiter: Waiter<WebSocket?>) in pending.next(waiter) },
                                       forget: { pending.forgetFinishedWaiters() })
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
