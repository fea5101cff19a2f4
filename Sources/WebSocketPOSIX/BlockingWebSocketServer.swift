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
/// ``serve(handshake:handler:)`` blocks the calling thread, accepting connections until ``stop(code:)``
/// is called from another thread (a signal-handling thread, say). Each accepted connection runs on a
/// new detached thread: the opening handshake (the `handshake` callback decides), then the `handler`
/// with the open ``BlockingWebSocket``; when the handler returns, the connection is closed with 1000
/// if it is still open.
public final class BlockingWebSocketServer: Sendable {
    /// The address the server listens on; with port 0, the port the system chose is in it.
    public let localAddress: SocketAddress

    let listener: Socket
    let wake: WakeSignal
    let configuration: Connection.Configuration
    let options: TransportOptions
    let state = Locked(State())

    struct State: Sendable {
        var isServing = false
        var isStopping = false
        var stopCode = Connection.CloseCode.goingAway
        /// The connections past their handshake, by identity, for ``stop(code:)`` to close.
        var connections: [ObjectIdentifier: BlockingWebSocket] = [:]
        /// Connection threads still running.
        var threads = 0
        /// Whether the Unix socket file still has to be removed.
        var ownsSocketFile = false
    }

    /// The port the server listens on (IPv4 or IPv6); `nil` for a Unix socket.
    public var port: UInt16? { localAddress.port }

    /// Listens on `host` and `port`.
    ///
    /// - Parameters:
    ///   - host: an address to bind, IPv4 (`127.0.0.1`, `0.0.0.0`) or IPv6 (`::1`, `::`), or a name;
    ///     the first resolved address that binds is used. Default `127.0.0.1`.
    ///   - port: the port; 0 (the default) lets the system pick a free one: read it from ``port``.
    ///   - configuration: limits, timers and delivery for every connection.
    ///   - options: socket options for every connection (write and receive timeouts…).
    ///   - backlog: the `listen` backlog (the kernel caps it at `somaxconn`). Default 1024, so that a
    ///     burst of clients waits in the kernel rather than being refused.
    /// - Throws: ``WebSocketTransport/WebSocketError/addressResolutionFailed(host:reason:)``,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (address in use…).
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions(), backlog: Int32 = 1024) throws(WebSocketError) {
        let addresses = try Socket.listenAddresses(host: host, port: port)
        try self.init(addresses: addresses, unixSocketPath: nil, configuration: configuration, options: options,
                      backlog: backlog, system: .live)
    }

    /// Listens on a Unix domain socket at `path`. A stale socket file (one nobody accepts on any
    /// more) is replaced; the file is removed when ``serve(handshake:handler:)`` returns.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a path too long for `sun_path`,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (a live server there, no permission…).
    public convenience init(unixSocketPath path: String, configuration: Connection.Configuration = Connection.Configuration(),
                            options: TransportOptions = TransportOptions(), backlog: Int32 = 1024) throws(WebSocketError) {
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

    /// Accepts connections until ``stop(code:)``, running each on its own thread.
    ///
    /// For each connection, the opening handshake runs first: an invalid request is answered by the
    /// connection itself (400, 426…); a valid one goes to `handshake`, whose ``WebSocketCore/Connection/HandshakeDecision``
    /// accepts or rejects it (a decision the connection refuses, such as a subprotocol the client did
    /// not offer, is answered with 500). Then `handler` runs with the open connection, on the same
    /// thread; when it returns, the connection is closed (1000) if it is still open.
    ///
    /// After ``stop(code:)``, `serve` stops accepting, closes the listening socket, and waits for the
    /// connection threads to end their closing handshakes: at most ``WebSocketCore/Connection/Timeouts/close`` (5 seconds when
    /// off) plus one second, after which threads still running are left to finish on their own.
    ///
    /// - Parameters:
    ///   - handshake: decides on each valid request. Default: accept, with no subprotocol.
    ///   - handler: uses an open connection.
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` when the server is already serving,
    ///   ``WebSocketTransport/WebSocketError/transport(_:)`` when the listening socket fails.
    public func serve(handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                      handler: @escaping @Sendable (BlockingWebSocket) -> Void) throws(WebSocketError) {
        let alreadyServing = state.withLock { state in
            defer { state.isServing = true }
            return state.isServing
        }
        guard !alreadyServing else { throw .invalidArgument("serve() is already running on this server") }
        defer { finishServing() }
        while !state.withLock({ $0.isStopping }) {
            var fds = [pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            do throws(Errno) {
                _ = try Poller.poll(&fds, deadline: nil, system: listener.system)
                if fds[1].revents != 0 { wake.drain() }
                guard fds[0].revents != 0 else { continue }
                while let socket = try listener.accept() {
                    start(socket, handshake: handshake, handler: handler)
                }
            } catch .tooManyOpenFiles {
                // Out of descriptors: let connections end before accepting more, without spinning.
                var pause = [pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
                _ = try? Poller.poll(&pause, deadline: listener.system.monotonicNow() + .milliseconds(100),
                                     system: listener.system)
            } catch .interrupted, .wouldBlock, .connectionAborted {
                continue
            } catch {
                // ENFILE, ENOBUFS, ENOMEM, EPROTO, EPERM (a firewall)… concern one connection or a
                // passing shortage; EBADF or EINVAL mean the listening socket is broken.
                if error == .badFileDescriptor || error == .invalidArgument { throw .transport(error) }
            }
        }
    }

    /// Asks ``serve(handshake:handler:)`` to return: it stops accepting, and every open connection
    /// is sent a Close frame with `code` (default 1001, going away). Safe from any thread; returns at
    /// once.
    public func stop(code: Connection.CloseCode = .goingAway) {
        let connections = state.withLock { state in
            state.isStopping = true
            state.stopCode = code
            return Array(state.connections.values)
        }
        wake.signal()
        for connection in connections {
            try? connection.sendClose(code: code)
        }
    }

    /// Closes the listener and waits (bounded) for the connection threads.
    private func finishServing() {
        listener.close()
        removeSocketFile()
        let grace = (configuration.timeouts.close ?? .seconds(5)) + .seconds(1)
        let deadline = listener.system.monotonicNow() + grace
        _ = state.wait(until: { $0.threads == 0 }, deadline: deadline, now: listener.system.monotonicNow)
    }

    // MARK: Connections

    private func start(_ socket: Socket, handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision,
                       handler: @escaping @Sendable (BlockingWebSocket) -> Void) {
        state.withLock { $0.threads += 1 }
        do throws(Errno) {
            try spawnDetachedThread { [self] in
                run(socket, handshake: handshake, handler: handler)
                state.withLock { $0.threads -= 1 }
                state.broadcast()
            }
        } catch {
            // No thread for it: the connection is dropped (the socket closes here).
            state.withLock { $0.threads -= 1 }
            state.broadcast()
        }
    }

    /// One connection, on its own thread: handshake, handler, close.
    private func run(_ socket: Socket, handshake decide: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision,
                     handler: @Sendable (BlockingWebSocket) -> Void) {
        if options.noDelay, localAddress.family != .unix {
            try? socket.setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
        }
        // Fails only when the TLS layer cannot be made (checked when the server was created).
        guard let pipeline = try? ConnectionPipeline.server(configuration: configuration, transport: options),
              let driver = try? ConnectionDriver(socket: socket, pipeline: pipeline, options: options) else { return }
        guard let result = Self.runHandshake(driver, decide: decide) else { return }
        let webSocket = BlockingWebSocket(driver: driver, handshake: result)
        let id = ObjectIdentifier(webSocket)
        let stopCode: Connection.CloseCode? = state.withLock { state in
            if state.isStopping { return state.stopCode }
            state.connections[id] = webSocket
            return nil
        }
        if let stopCode {
            _ = try? webSocket.close(code: stopCode)
            return
        }
        handler(webSocket)
        _ = try? webSocket.close()
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
    }

    /// Runs the server's opening handshake; the result once accepted, `nil` when the connection
    /// ended instead (rejected, invalid, timed out, or the client went away).
    static func runHandshake(_ driver: ConnectionDriver,
                             decide: (Connection.HandshakeRequest) -> Connection.HandshakeDecision) -> Connection.HandshakeResult? {
        driver.reader.withLock { reader in
            while true {
                switch driver.pump(&reader, until: nil) {
                case .event(.handshakeRequest(let request)):
                    let decision = decide(request)
                    // An answer the core refuses becomes a 500 there.
                    _ = try? driver.perform { (connection) throws(Connection.UsageError) in try connection.respond(to: decision) }
                case .event(.handshakeCompleted(let result)):
                    return result
                case .event:
                    continue
                case .socketClosed:
                    return nil
                case .limitReached:
                    continue
                }
            }
        }
    }
}
