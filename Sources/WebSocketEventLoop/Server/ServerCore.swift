#if os(Linux)
import Glibc
import WebSocketTransport

/// What the loops share about one server: its settings, its user's decision and face, and its
/// counts.
///
/// `@unchecked Sendable`: constants, and `counts` behind its lock.
final class ServerCore: @unchecked Sendable {
    let configuration: Connection.Configuration
    let options: TransportOptions
    let decide: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision
    let face: Face
    /// Sends are refused (async ones wait) once this much output is buffered.
    let highWaterMark: Int
    let isUnixSocket: Bool

    enum Face {
        case handler(EventLoopWebSocket.EventHandler)
        case stream(ConnectionQueue)
    }

    private struct Counts {
        /// Connections accepted and not yet closed.
        var live = 0
        var stopped = false
    }
    private let counts = Locked(Counts())

    init(configuration: Connection.Configuration, options: TransportOptions, isUnixSocket: Bool,
         decide: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision, face: Face) {
        self.configuration = configuration
        self.options = options
        self.isUnixSocket = isUnixSocket
        self.decide = decide
        self.face = face
        highWaterMark = max(0, configuration.limits.maxBufferedOutput)
    }

    // MARK: Accepting (on a loop)

    func mayAccept(on loop: EventLoop) -> Bool {
        guard !isStopped else { return false }
        switch face {
        case .handler: return true
        case .stream(let queue): return queue.mayAccept(on: loop)
        }
    }

    /// Starts serving a socket that `loop` accepted.
    func serve(_ socket: Socket, on loop: EventLoop) {
        if case .stream(let queue) = face { queue.accepted() }
        counts.withLock { $0.live += 1 }
        if options.noDelay, !isUnixSocket {
            try? socket.setOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        }
        let pipeline: ConnectionPipeline
        do throws(WebSocketError) {
            pipeline = try ConnectionPipeline.server(configuration: configuration, transport: options)
        } catch {
            // Only a TLS layer can fail to be made, and the server checked that it can be.
            socket.close()
            endedBeforeOpening()
            return
        }
        let webSocket = EventLoopWebSocket(loop: loop, server: self, socket: socket, pipeline: pipeline)
        do throws(Errno) {
            try loop.register(webSocket, descriptor: socket.descriptor)
        } catch {
            socket.close()
            endedBeforeOpening()
            return
        }
        // Starts the handshake timer; the end of the turn arms the loop's timer for it.
        webSocket.pipeline.advanceTime(to: loop.now)
        webSocket.markDirty()
    }

    // MARK: A connection's life (on its loop)

    /// Where an opening connection's events go.
    func consumer(for socket: EventLoopWebSocket) -> EventLoopWebSocket.Consumer {
        switch face {
        case .handler(let handler): return .handler(handler)
        case .stream: return .batches(MessageBatches(socket: socket))
        }
    }

    /// An async-face connection opened: it waits in ``EventLoopServer/connections``, or, once the
    /// server has stopped, is closed with 1001.
    func opened(_ socket: EventLoopWebSocket) {
        guard case .stream(let queue) = face else { return }
        if !queue.push(socket) { try? socket.sendNow(.close(Connection.CloseFrame(code: .goingAway, reason: "server stopped"))) }
    }

    func endedBeforeOpening() {
        if case .stream(let queue) = face { queue.released() }
        ended()
    }

    func ended() {
        counts.withLock { $0.live -= 1 }
        counts.broadcast()
    }

    // MARK: The server's side

    var isStopped: Bool { counts.withLock { $0.stopped } }

    func stop() {
        counts.withLock { $0.stopped = true }
        if case .stream(let queue) = face { queue.finish() }
    }

    /// Connections accepted and not yet closed.
    var liveConnections: Int { counts.withLock { $0.live } }

    /// Waits until no connection is left, or `deadline`.
    func waitUntilIdle(deadline: Connection.Instant?, now: () -> Connection.Instant) -> Bool {
        counts.wait(until: { $0.live == 0 }, deadline: deadline, now: now)
    }
}
#endif
