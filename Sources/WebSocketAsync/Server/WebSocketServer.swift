// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import WebSocketTransport

/// A WebSocket server on the process's event loops: one thread per CPU, each running its own
/// connections with no lock, queue hop or copy on the way between the socket and your code. With
/// ``WebSocketTransport/TransportOptions/tls`` set it serves `wss://`.
///
/// On Linux each loop accepts on its own listening socket (`SO_REUSEPORT`: the kernel spreads
/// connections over the loops); elsewhere, and for a Unix socket, one loop accepts and hands
/// connections to the loops in turn. A connection stays on its loop for its whole life.
///
/// Each opening handshake request goes to `handshake`, which accepts it (subprotocol, extensions,
/// headers) or rejects it (status, headers, body). Requests that are not valid handshakes never
/// reach it: the core answers them (400, 405, 426…), except, with
/// ``WebSocketCore/Connection/Configuration/answersPlainRequests``, a plain `GET` or `HEAD`, which it
/// answers as a request of kind ``WebSocketCore/Connection/HandshakeRequest/Kind/plain`` (a health
/// check, a metrics scrape: see ``metrics``).
///
/// Accepted connections go to one of three faces:
///
/// ```swift
/// // Handlers on the loop: every connection's events, on its loop. The fastest.
/// let server = try WebSocketServer(port: 9001) { socket, event in
///     if case .message(.text(let text)) = event { try? socket.send(text: text) }
/// }
///
/// // Handlers on a queue you name.
/// let server = try WebSocketServer(port: 9001, queue: .main) { socket, event in … }
///
/// // async/await: one task per connection.
/// let server = try WebSocketServer(port: 9001)
/// await server.run { socket in
///     do { for try await message in socket.messages { try await socket.send(message) } } catch {}
/// }
/// ```
///
/// **The server runs until ``stop()``**, whatever references to it remain: the loops keep it.
/// ``stop(closing:reason:)`` also closes every connection (and any that opens later).
public final class WebSocketServer: Sendable {
    /// The address the server listens on; with port 0, the port the system chose is in it.
    public let localAddress: SocketAddress
    /// Open connections, for the async face (servers created without a handler), in the order they
    /// opened; it ends after ``stop()``, once the connections already open have been taken. Take
    /// them from one task (``run(_:)`` does). For a server with a handler it is empty.
    public let connections: Connections
    let core: ServerCore
    private let listeners: [Socket]
    private let unixSocketPath: String?

    /// The port the server listens on (the one the system chose when you passed 0), or 0 for a Unix
    /// socket.
    public var port: UInt16 { localAddress.port ?? 0 }

    /// Connections past their opening handshake and not yet closed (open or closing).
    public var connectionCount: Int { core.openConnections }

    /// The server's counters, as ``WebSocketTransport/ServerMetrics``.
    public typealias Metrics = ServerMetrics

    /// The server's counters since it started (connections, refusals, handshake failures, closes,
    /// messages, bytes, pings), each loop's summed now: readable from any thread at any time. Each
    /// loop counts its own connections without a lock; a read may miss what a loop is counting
    /// at that instant. Render them with ``WebSocketTransport/ServerMetrics/prometheusText(prefix:)``.
    public var metrics: Metrics { core.metrics }

    /// Creates a server whose connections report to `handler`: on each connection's loop, or on
    /// `queue`.
    ///
    /// - Parameters:
    ///   - host: the address to listen on: `127.0.0.1` (the default), `::1`, `0.0.0.0`, `::`, or a name.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog of each listening socket (the kernel caps it at `somaxconn`).
    ///     Default 1024.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection; ``WebSocketTransport/TransportOptions/tls`` to serve `wss`.
    ///   - loops: how many of the process's event loops serve (one per CPU the process may run on);
    ///     default all of them.
    ///   - queue: where `handshake` and `handler` run; `nil` (the default) runs them on each
    ///     connection's loop, the fastest (keep them quick: the loop's other connections wait
    ///     meanwhile). A concurrent queue is fine: calls for one connection never overlap, and
    ///     connections whose events came in the same turn of a loop take turns in one block (a
    ///     handler must not wait for another connection's events).
    ///   - handshake: the decision on each valid opening handshake request, on `queue` when there is
    ///     one. Default (`nil`): accept without a subprotocol, at once on the connection's loop.
    ///   - handler: every connection's events, starting with ``WebSocketTransport/WebSocketEvent/open(_:)``
    ///     and ending with ``WebSocketTransport/WebSocketEvent/closed(_:)``; connections that never
    ///     open do not reach it.
    /// - Throws: ``WebSocketTransport/WebSocketError/addressResolutionFailed(host:reason:)``,
    ///   ``WebSocketTransport/WebSocketError/bindFailed(_:_:)``, ``WebSocketTransport/WebSocketError/tls(_:)`` for a TLS
    ///   configuration that cannot serve, ``WebSocketTransport/WebSocketError/transport(_:)`` when the
    ///   loops cannot start.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            loops: Int? = nil, queue: DispatchQueue? = nil,
                            handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil,
                            handler: @escaping WebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      configuration: configuration, options: options, loops: loops, handshake: handshake,
                      face: queue.map { .queueHandler($0, handler) } ?? .loopHandler(handler))
    }

    /// Creates a server whose connections report to one lending handler on their loops: the fastest
    /// face. Messages are lent (``WebSocket/LentEvent``), not handed over: a message that arrived
    /// whole is read where the loop read it, unmasked in place, and reaches `handler` with no copy
    /// and no allocation; every other event comes as ``WebSocket/LentEvent/event(_:)``. The other
    /// parameters are those of ``init(host:port:backlog:configuration:options:loops:queue:handshake:handler:)``
    /// (the handler runs on the loop: keep it quick).
    ///
    /// ```swift
    /// let server = try WebSocketServer.lending(port: 9001) { socket, event in
    ///     switch event {
    ///     case .binary(let bytes): try? socket.send(binary: bytes)   // an echo: copied into the output
    ///     case .text(let bytes): print(String(decoding: bytes, as: UTF8.self))
    ///     case .event(let event): print(event)
    ///     }
    /// }
    /// ```
    ///
    /// A static function rather than an initializer, so that a trailing closure never leaves the
    /// compiler to choose between the two handler types.
    public static func lending(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions(), loops: Int? = nil,
                               handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil,
                               handler: @escaping WebSocket.LendingHandler) throws(WebSocketError) -> WebSocketServer {
        try WebSocketServer(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                            configuration: configuration, options: options, loops: loops, handshake: handshake,
                            face: .lendingHandler(handler))
    }

    /// Creates a server whose open connections arrive in ``connections`` (the async face); serve them
    /// with ``run(_:)``.
    ///
    /// - Parameters:
    ///   - host: the address to listen on, as for the handler faces; default `127.0.0.1`.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog. Default 1024.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection.
    ///   - loops: how many of the process's event loops serve; default all of them.
    ///   - maxPendingConnections: the most connections opening, or open and not yet taken from
    ///     ``connections``; at the mark the loops stop accepting until a task takes one, and clients
    ///     wait in the kernel's backlog. No connection is answered 101 and then dropped. Default 128.
    ///   - handshake: the decision on each valid opening handshake request, on the connection's
    ///     loop. Default (`nil`): accept without a subprotocol.
    /// - Throws: as the other initializer.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            loops: Int? = nil, maxPendingConnections: Int = 128,
                            handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil)
        throws(WebSocketError) {
        try self.init(addresses: Socket.listenAddresses(host: host, port: port), unixSocketPath: nil, backlog: backlog,
                      configuration: configuration, options: options, loops: loops, handshake: handshake,
                      face: .async(ConnectionQueue(limit: maxPendingConnections)))
    }

    /// Creates a server on a Unix domain socket at `path` whose connections report to `handler`; see
    /// ``init(host:port:backlog:configuration:options:loops:queue:handshake:handler:)``. A stale
    /// socket file (one nobody accepts on any more) is replaced; the file is removed by ``stop()``.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a path too long for
    ///   `sun_path`, ``WebSocketTransport/WebSocketError/bindFailed(_:_:)`` (a live server there, no
    ///   permission…).
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            loops: Int? = nil, queue: DispatchQueue? = nil,
                            handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil,
                            handler: @escaping WebSocket.EventHandler) throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, backlog: backlog,
                      configuration: configuration, options: options, loops: loops, handshake: handshake,
                      face: queue.map { .queueHandler($0, handler) } ?? .loopHandler(handler))
    }

    /// Creates a server on a Unix domain socket at `path` whose open connections arrive in
    /// ``connections``.
    public convenience init(unixSocketPath path: String, backlog: Int32 = 1024,
                            configuration: Connection.Configuration = Connection.Configuration(), options: TransportOptions = TransportOptions(),
                            loops: Int? = nil, maxPendingConnections: Int = 128,
                            handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil)
        throws(WebSocketError) {
        try self.init(addresses: [SocketAddress.unixSocket(path: path)], unixSocketPath: path, backlog: backlog,
                      configuration: configuration, options: options, loops: loops, handshake: handshake,
                      face: .async(ConnectionQueue(limit: maxPendingConnections)))
    }

    init(addresses: [SocketAddress], unixSocketPath: String?, backlog: Int32, configuration: Connection.Configuration,
         options: TransportOptions, loops requested: Int?,
         handshake: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)?, face: ServerCore.Face,
         system: SystemCalls = .live, eventLoops: [EventLoop]? = nil) throws(WebSocketError) {
        // `eventLoops`: loops of a test's own, whose threads serve nothing else.
        let all: [EventLoop]
        if let eventLoops { all = eventLoops } else { all = try EventLoops.all() }
        if let requested, requested < 1 { throw .invalidArgument("loops must be at least 1, got \(requested)") }
        let loops = Array(all.prefix(requested ?? all.count))
        // A TLS configuration that cannot make server sessions fails here, not per connection.
        if let tls = options.tls { _ = try tls.makeServerLayer() }
        let isUnix = unixSocketPath != nil
        let perLoop = !isUnix && EventLoops.kernelBalancesListeners && loops.count > 1
        let first = try Socket.listening(on: addresses, unixSocketPath: unixSocketPath, backlog: backlog,
                                         reusePort: perLoop, system: system)
        let address = first.localAddress ?? addresses[0]
        var listeners = [first]
        // The other loops' sockets on the very address and port the first one got.
        while perLoop, listeners.count < loops.count {
            listeners.append(try Socket.listening(on: [address], unixSocketPath: nil, backlog: backlog,
                                                  reusePort: true, system: system))
        }
        localAddress = address
        self.listeners = listeners
        self.unixSocketPath = unixSocketPath
        core = ServerCore(configuration: configuration, options: options, isUnixSocket: isUnix, loops: loops,
                          decide: handshake, face: face, system: system)
        if case .async(let queue) = face { queue.server = core }
        connections = Connections(queue: { if case .async(let queue) = face { return queue } else { return nil } }())
        for (index, listener) in listeners.enumerated() {
            let loop = loops[index]
            let core = self.core
            loop.execute {
                do throws(Errno) {
                    try loop.addListener(listener, server: core)
                } catch {
                    // A listener nobody watches would still be handed its share of the connections
                    // (SO_REUSEPORT): closed, the kernel gives them to the others.
                    listener.close()
                }
            }
        }
    }

    /// Stops accepting connections and closes the listening sockets (and removes a Unix socket's
    /// file); accepted connections carry on. ``connections`` ends once those already open are taken.
    public func stop() {
        stopAccepting(closing: nil)
    }

    /// Stops accepting, and starts the closing handshake of every connection with `code` (1001
    /// "going away" for a server shutting down, 1012 "service restart" for one that comes back):
    /// those open now, and those that open later. Wait for them with ``waitUntilIdle(timeout:)``.
    public func stop(closing code: Connection.CloseCode, reason: String = "") {
        let frame = Connection.CloseFrame(code: code, reason: reason)
        stopAccepting(closing: frame)
        core.forEachSocket { socket in
            if socket.peek({ $0.handshake != nil }) { socket.startClosing(frame) }
        }
        // Every connection is closing: what other servers publish has no one to go to here.
        detachBackplane()
    }

    /// Sends one message to every open connection of the server, framed once: every connection
    /// shares the bytes (``WebSocketCore/Connection/PreparedMessage``). Each loop queues it to its own
    /// connections in its next turn; a connection at its high-water mark, or closing, is skipped.
    /// Returns at once.
    public func broadcast(_ message: Connection.PreparedMessage) {
        core.forEachSocket { socket in
            if socket.peek({ $0.stage }) == .open { try? socket.sendNow(.prepared(message)) }
        }
    }

    /// Sends a text message to every open connection; see ``broadcast(_:)``.
    public func broadcast(text: String) {
        broadcast(Connection.PreparedMessage(text: text, fragmentationSize: core.configuration.fragmentationSize))
    }

    /// Sends a binary message to every open connection; see ``broadcast(_:)``.
    public func broadcast(binary: some Collection<UInt8>) {
        broadcast(Connection.PreparedMessage(binary: binary, fragmentationSize: core.configuration.fragmentationSize))
    }

    private func stopAccepting(closing: Connection.CloseFrame?) {
        guard core.stop(closing: closing) else { return }
        // Every loop of the server runs this, whether or not it watches a listener: the last one closes them.
        let remaining = Locked(core.loops.count)
        let (core, listeners, path) = (self.core, self.listeners, unixSocketPath)
        for loop in core.loops {
            loop.execute {
                loop.removeListeners(of: core)
                guard remaining.withLock({ count in
                    count -= 1
                    return count == 0
                }) else { return }
                for listener in listeners { listener.close() }
                if let path { _ = core.system.unlink(path) }
            }
        }
    }

    /// How a ``drain(code:reason:timeout:)`` ended: every connection open when it began (or opening),
    /// counted once.
    public struct DrainReport: Sendable, Hashable {
        /// Connections whose closing handshake completed before the deadline.
        public var closedCleanly: Int
        /// Connections that ended otherwise before the deadline (the peer vanished: 1006).
        public var closedUncleanly: Int
        /// Connections still there at the deadline, closed then without waiting further.
        public var aborted: Int
    }

    /// Shuts the server down without losing a message it accepted: stops accepting, answers opening
    /// handshakes that arrive meanwhile with 503 and `Retry-After: 1`, starts the closing handshake of
    /// every open connection with `code` (1001 "going away" by default; 1012 "service restart" tells
    /// clients to reconnect at once, to another instance), waits up to `timeout` for them to end, then
    /// closes the rest at once, and says how many ended each way. Blocks the calling thread (not from
    /// a task or a handler).
    ///
    /// ``abortDrain()``, from another thread, ends the wait at once, as if the deadline had passed.
    public func drain(code: Connection.CloseCode = .goingAway, reason: String = "", timeout: Duration) -> DrainReport {
        let before = core.endings
        stop(closing: code, reason: reason)
        let idle = core.waitUntilIdle(deadline: core.system.monotonicNow() + timeout, orDrainAborted: true)
        let atDeadline = core.endings
        if !idle {
            core.forEachSocket { socket in socket.abortNow() }
            _ = waitUntilIdle(timeout: .seconds(10))
        }
        return DrainReport(closedCleanly: atDeadline.cleanly - before.cleanly,
                           closedUncleanly: atDeadline.uncleanly - before.uncleanly, aborted: idle ? 0 : atDeadline.live)
    }

    /// Cuts a ``drain(code:reason:timeout:)`` short (a second SIGTERM to a server draining): it stops
    /// waiting for closing handshakes, closes the connections still there at once (their clients
    /// see 1006) and returns its report, which counts them as aborted. A drain that begins after
    /// this call does the same without waiting. Returns at once; from any thread.
    public func abortDrain() {
        core.abortDrain()
    }

    /// Waits (blocking the calling thread: not from a task or a handler) until every connection
    /// accepted is closed (those still opening too), or `timeout` passes. Returns whether none is
    /// left.
    public func waitUntilIdle(timeout: Duration?) -> Bool {
        core.waitUntilIdle(deadline: timeout.map { core.system.monotonicNow() + $0 })
    }

    /// Serves the async face: runs `body` for every connection from ``connections``, each in a child
    /// task, until ``stop()`` and the end of every task. Where task executors exist, each task runs
    /// on its connection's loop (its receives and sends take no hop between threads); elsewhere on
    /// the global executor.
    ///
    /// `body` is `nonisolated(nonsending)`: it runs on the executor of the task that calls it, and
    /// resumes there after each `await` without asking the runtime which executor the task prefers.
    public func run(_ body: nonisolated(nonsending) @escaping @Sendable (WebSocket) async -> Void) async {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            // The taking itself runs on a loop too: a connection that opens there reaches its task
            // without waking any other thread.
            await withTaskExecutorPreference(core.loops[0]) {
                await withDiscardingTaskGroup { group in
                    for await socket in connections {
                        group.addTask(executorPreference: socket.loop) { await socket.servedByCurrentTask { await body(socket) } }
                    }
                }
            }
        } else if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
            await withDiscardingTaskGroup { group in
                for await socket in connections { group.addTask { await body(socket) } }
            }
        } else {
            // Without a discarding group, each finished child's record stays until it is awaited:
            // they are awaited as connections come.
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await socket in connections {
                    group.addTask { await body(socket) }
                    running += 1
                    if running >= 64 {
                        await group.next()
                        running -= 1
                    }
                }
            }
        }
    }

    /// The async sequence of a server's open connections; see ``WebSocketServer/connections``.
    public struct Connections: AsyncSequence, Sendable {
        /// An open connection, its handshake done.
        public typealias Element = WebSocket
        /// Taking connections never fails.
        public typealias Failure = Never
        let queue: ConnectionQueue?

        /// An iterator over the open connections; iterators share them (each goes to one call).
        public func makeAsyncIterator() -> Iterator { Iterator(queue: queue) }

        /// The iterator of ``WebSocketServer/Connections``.
        public struct Iterator: AsyncIteratorProtocol {
            /// An open connection, its handshake done.
            public typealias Element = WebSocket
            /// Taking connections never fails.
            public typealias Failure = Never
            let queue: ConnectionQueue?

            /// The next open connection; `nil` once the server has stopped and the open ones are taken.
            public mutating func next() async -> WebSocket? {
                guard let queue else { return nil }
                return await queue.next()
            }
        }
    }
}
