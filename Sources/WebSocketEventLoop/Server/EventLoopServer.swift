#if os(Linux)
import Glibc
import WebSocketTransport

/// A WebSocket server on event loops: one thread per CPU, each waiting in `epoll` for its own
/// connections and running them, with no lock, queue hop or copy on the way between the socket and
/// your code. With ``WebSocketTransport/TransportOptions/tls`` set it serves `wss://`.
///
/// Each loop accepts on its own listening socket (`SO_REUSEPORT`: the kernel spreads connections
/// over the loops), and a connection stays on the loop that accepted it. Reads go into one buffer
/// per loop; the core parses in place and copies each payload once, into the message you get. What
/// a connection sends in answer to one read is written in one `send` call.
///
/// Each opening handshake request goes to `handshake`, on the connection's loop, which accepts it
/// (subprotocol, extensions, headers) or rejects it (status, headers, body). Requests that are not
/// valid handshakes never reach it: the core answers them (400, 405, 426…).
///
/// Accepted connections go to one of two faces:
///
/// ```swift
/// // Handler face: every connection's events, on its loop.
/// let server = try EventLoopServer(port: 9001) { socket, event in
///     if case .text(let text) = event { try? socket.send(text: text) }
/// }
///
/// // Async face: one task per connection, running on the connection's loop.
/// let server = try EventLoopServer(port: 9001)
/// await server.run { socket in
///     do {
///         for try await message in socket.messages { try await socket.send(message) }
///     } catch {}
/// }
/// ```
///
/// The server listens until ``stop()``; connections already accepted carry on (``stop(closing:reason:)``
/// closes them too).
public final class EventLoopServer: Sendable {
    /// The address the server listens on; with port 0, the port the system chose is in it.
    public let localAddress: SocketAddress
    /// Open connections, for the async face (servers created without a handler), in the order they
    /// opened; it ends after ``stop()``, once the connections already open have been taken. Take
    /// them from one task (``run(_:)`` does). For a server with a handler it is empty.
    public let connections: Connections
    let core: ServerCore
    let loops: [EventLoop]
    private let listeners: [Socket]
    private let unixSocketPath: String?

    /// The port the server listens on (the one the system chose when you passed 0), or 0 for a Unix
    /// socket.
    public var port: UInt16 { localAddress.port ?? 0 }

    /// Connections accepted and not yet closed (opening, open or closing).
    public var connectionCount: Int { core.liveConnections }

    /// Creates a server whose connections report to `handler`, on each connection's loop (the handler
    /// face).
    ///
    /// - Parameters:
    ///   - host: the address to listen on: `127.0.0.1` (the default), `::1`, `0.0.0.0`, `::`, or a name.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog of each loop's socket (the kernel caps it at `somaxconn`).
    ///     Default 1024.
    ///   - loops: how many of the process's event loops serve (one per CPU the process may run on);
    ///     default all of them.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection; ``WebSocketTransport/TransportOptions/tls`` to serve `wss`.
    ///   - handshake: the decision on each valid opening handshake request, on the connection's
    ///     loop: keep it quick. Default: accept without a subprotocol.
    ///   - handler: every connection's events, starting with ``WebSocketTransport/WebSocketEvent/open(_:)`` and ending
    ///     with ``WebSocketTransport/WebSocketEvent/closed(_:)``; connections that never open do not reach it.
    /// - Throws: ``WebSocketTransport/WebSocketError/addressResolutionFailed(host:reason:)``,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)``, ``WebSocketTransport/WebSocketError/tls(_:)`` for a TLS configuration that
    ///   cannot serve, ``WebSocketTransport/WebSocketError/transport(_:)`` when the loops cannot start.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024, loops: Int? = nil,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                            handler: @escaping EventLoopWebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      loops: loops, configuration: configuration, options: options, handshake: handshake,
                      face: .handler(handler))
    }

    /// Creates a server whose open connections arrive in ``connections`` (the async face); serve them
    /// with ``run(_:)``.
    ///
    /// - Parameters:
    ///   - host: the address to listen on, as for the handler face; default `127.0.0.1`.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog of each loop's socket. Default 1024.
    ///   - loops: how many of the process's event loops serve; default all of them.
    ///   - maxPendingConnections: the most connections opening, or open and not yet taken
    ///     from ``connections``; at the mark the loops stop accepting until a task takes one.
    ///     Default 128.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection.
    ///   - handshake: the decision on each valid opening handshake request, on the connection's
    ///     loop. Default: accept without a subprotocol.
    /// - Throws: as the other initializer.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024, loops: Int? = nil,
                            maxPendingConnections: Int = 128,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() })
        throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      loops: loops, configuration: configuration, options: options, handshake: handshake,
                      face: .stream(ConnectionQueue(limit: maxPendingConnections)))
    }

    /// Creates a server on a Unix domain socket at `path` whose connections report to `handler`. A
    /// stale socket file (one nobody accepts on any more) is replaced; the file is removed by
    /// ``stop()``. Every loop accepts from the one socket.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a path too long for `sun_path`,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (a live server there, no permission…).
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024, loops: Int? = nil,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                            handler: @escaping EventLoopWebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, backlog: backlog,
                      loops: loops, configuration: configuration, options: options, handshake: handshake,
                      face: .handler(handler))
    }

    /// Creates a server on a Unix domain socket at `path` whose open connections arrive in
    /// ``connections``.
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024, loops: Int? = nil,
                            maxPendingConnections: Int = 128,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() })
        throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, backlog: backlog,
                      loops: loops, configuration: configuration, options: options, handshake: handshake,
                      face: .stream(ConnectionQueue(limit: maxPendingConnections)))
    }

    init(addresses: [SocketAddress], unixSocketPath: String?, backlog: Int32, loops requested: Int?,
         configuration: Connection.Configuration, options: TransportOptions,
         handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision, face: ServerCore.Face,
         system: SystemCalls = .live) throws(WebSocketError) {
        let all: [EventLoop]
        switch EventLoop.shared {
        case .success(let loops): all = loops
        case .failure(let error): throw .transport(error)
        }
        if let requested, requested < 1 { throw .invalidArgument("loops must be at least 1, got \(requested)") }
        let loops = Array(all.prefix(requested ?? all.count))
        // A TLS configuration that cannot make server sessions fails here, not per connection.
        if let tls = options.tls { _ = try tls.makeServerLayer() }
        let isUnix = unixSocketPath != nil
        let first = try Socket.listening(on: addresses, unixSocketPath: unixSocketPath, backlog: backlog,
                                         reusePort: !isUnix && loops.count > 1, system: system)
        let address = first.localAddress ?? addresses[0]
        var listeners = [first]
        if !isUnix {
            // The other loops' sockets on the very address and port the first one got.
            while listeners.count < loops.count {
                listeners.append(try Socket.listening(on: [address], unixSocketPath: nil, backlog: backlog,
                                                      reusePort: true, system: system))
            }
        }
        localAddress = address
        self.loops = loops
        self.listeners = listeners
        self.unixSocketPath = unixSocketPath
        core = ServerCore(configuration: configuration, options: options, isUnixSocket: isUnix, decide: handshake, face: face)
        if case .stream(let queue) = face { queue.server = core }
        connections = Connections(queue: { if case .stream(let queue) = face { return queue } else { return nil } }())
        for (index, loop) in loops.enumerated() {
            let listener = isUnix ? first : listeners[index]
            let core = self.core
            loop.execute { try? loop.addListener(listener, server: core, shared: isUnix && loops.count > 1) }
        }
    }

    deinit {
        stopAccepting()
    }

    /// Stops accepting connections and closes the listening sockets (and removes a Unix socket's
    /// file); accepted connections carry on. ``connections`` ends once those already open are taken.
    public func stop() {
        stopAccepting()
    }

    /// Stops accepting, and starts the closing handshake of every connection with `code` (1001
    /// "going away" for a server shutting down). Wait for them with ``waitUntilIdle(timeout:)``.
    public func stop(closing code: Connection.CloseCode, reason: String = "") {
        stopAccepting()
        let core = self.core
        for loop in loops {
            loop.execute {
                for socket in loop.sockets(of: core) {
                    try? socket.sendNow(.close(Connection.CloseFrame(code: code, reason: reason)))
                    socket.markDirty()
                }
            }
        }
    }

    /// Sends one message to every open connection of the server, framed once: every connection
    /// shares the bytes (``WebSocketCore/Connection/PreparedMessage``). Each loop queues it to its own connections in its
    /// next turn; a connection at its high-water mark, or closing, is skipped. Returns at once.
    public func broadcast(_ message: Connection.PreparedMessage) {
        let core = self.core
        for loop in loops {
            loop.execute {
                for socket in loop.sockets(of: core) {
                    guard case .open = socket.phase else { continue }
                    try? socket.sendNow(message)
                }
            }
        }
    }

    /// Sends a text message to every open connection; see ``broadcast(_:)``.
    public func broadcast(text: String) {
        broadcast(Connection.PreparedMessage(text: text, fragmentationSize: core.configuration.fragmentationSize))
    }

    /// Sends a binary message to every open connection; see ``broadcast(_:)``.
    public func broadcast(binary: [UInt8]) {
        broadcast(Connection.PreparedMessage(binary: binary, fragmentationSize: core.configuration.fragmentationSize))
    }

    private func stopAccepting() {
        guard !core.isStopped else { return }
        core.stop()
        let remaining = Locked(loops.count)
        let (core, listeners, path) = (self.core, self.listeners, unixSocketPath)
        for loop in loops {
            loop.execute {
                loop.removeListeners(of: core)
                guard remaining.withLock({ count in
                    count -= 1
                    return count == 0
                }) else { return }
                for listener in listeners { listener.close() }
                if let path { _ = unlink(path) }
            }
        }
    }

    /// Waits (blocking the calling thread) until every connection is closed, or `timeout` passes.
    /// Returns whether none is left.
    public func waitUntilIdle(timeout: Duration?) -> Bool {
        let now = SystemCalls.live.monotonicNow
        return core.waitUntilIdle(deadline: timeout.map { now() + $0 }, now: now)
    }

    /// Serves the async face: runs `body` for every connection from ``connections``, each in a child
    /// task that runs on the connection's loop (so that its receives and sends take no hop between
    /// threads), until ``stop()`` and the end of every task.
    ///
    /// `body` is `nonisolated(nonsending)`: it runs on the executor of the task that calls it, the
    /// connection's loop, and resumes there after each `await` without asking the runtime which
    /// executor the task prefers (a lookup under a lock, twice per echoed message otherwise).
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public func run(_ body: nonisolated(nonsending) @escaping @Sendable (EventLoopWebSocket) async -> Void) async {
        // The taking itself runs on a loop too: a connection that opens there reaches its task
        // without waking any other thread.
        await withTaskExecutorPreference(loops[0]) {
            await withDiscardingTaskGroup { group in
                for await socket in connections {
                    group.addTask(executorPreference: socket.executor) { await body(socket) }
                }
            }
        }
    }

    /// The async sequence of a server's open connections; see ``EventLoopServer/connections``.
    public struct Connections: AsyncSequence, Sendable {
        /// An open connection, its handshake done.
        public typealias Element = EventLoopWebSocket
        /// Taking connections never fails.
        public typealias Failure = Never
        let queue: ConnectionQueue?

        /// An iterator over the open connections; iterators share them (each goes to one call).
        public func makeAsyncIterator() -> Iterator { Iterator(queue: queue) }

        /// The iterator of ``EventLoopServer/Connections``.
        public struct Iterator: AsyncIteratorProtocol {
            /// An open connection, its handshake done.
            public typealias Element = EventLoopWebSocket
            /// Taking connections never fails.
            public typealias Failure = Never
            let queue: ConnectionQueue?

            /// The next open connection; `nil` once the server has stopped and the open ones are taken.
            public mutating func next() async -> EventLoopWebSocket? {
                guard let queue else { return nil }
                return await queue.next()
            }
        }
    }
}
#endif
