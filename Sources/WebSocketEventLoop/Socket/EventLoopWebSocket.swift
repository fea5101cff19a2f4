#if os(Linux)
import Glibc
import WebSocketTransport

/// One connection of an ``EventLoopServer``, on the event loop that accepted it.
///
/// Everything about the connection happens on its loop's thread: reading, writing, its timers, and
/// the calls to your event handler. From the handler (or a task whose executor is the loop, see
/// ``executor``), a send goes straight into the connection's output buffer and is written together
/// with everything else sent in answer to the same read, once the handler (and the tasks) have run.
/// From any other thread, a send is queued to the loop first.
///
/// ```swift
/// // Handler face: on the loop, no lock, no hop.
/// let server = try EventLoopServer(port: 9001) { socket, event in
///     if case .text(let text) = event { try? socket.send(text: text) }
/// }
///
/// // Async face: each connection's task runs on its loop.
/// let server = try EventLoopServer(port: 9001)
/// await server.run { socket in
///     for try await message in socket.messages { try await socket.send(message) }
/// }
/// ```
///
/// `@unchecked Sendable`: the mutable state is touched only on the loop's thread (every public
/// method checks where it runs and hops to the loop when needed); `shared` is behind its lock.
///
/// The state the loop touches for every message is `@exclusivity(unchecked)`: the runtime's check
/// of each access to a class's stored property was a third of the loop's user-space instructions
/// per message (callgrind, 100 connections echoing). What the check guards holds by construction:
/// one thread, and no access in progress while other code runs. User code (handlers, and tasks,
/// which the loop's executor queues and never runs inline) runs only between accesses, never from a
/// closure lent by one (`peek`, `withSocketOutput`, `nextEventView` copy out and return first).
public final class EventLoopWebSocket: @unchecked Sendable {
    /// The handler of the handler face: every event of every connection of a server, on the
    /// connection's loop. Keep it quick: the loop's other connections wait while it runs.
    public typealias EventHandler = @Sendable (EventLoopWebSocket, WebSocketEvent) -> Void

    let loop: EventLoop
    let server: ServerCore
    let socket: Socket
    @exclusivity(unchecked) var pipeline: ConnectionPipeline
    /// The loop's name for this connection (its slot and generation).
    var token: UInt64 = 0
    /// Where the loop lists it among its server's connections.
    var indexInServer = 0

    /// Where the connection is in its life.
    enum Phase {
        /// The opening handshake (and TLS's) is under way.
        case handshaking
        /// Open: its events go to a handler, or to an async face's batches.
        case open(Consumer)
        /// The socket is closed.
        case finished(Connection.CloseStatus)
    }

    enum Consumer {
        case handler(EventHandler)
        case batches(MessageBatches)
    }

    @exclusivity(unchecked) var phase = Phase.handshaking
    /// Edge-triggered readiness the socket has not used up yet.
    @exclusivity(unchecked) var readable = false
    @exclusivity(unchecked) var writable = false
    @exclusivity(unchecked) var inputEnded = false
    /// In the loop's dirty list for this turn.
    @exclusivity(unchecked) var isDirty = false
    /// The earliest deadline the loop's timers hold for this connection.
    @exclusivity(unchecked) var scheduledDeadline: Connection.Instant? = nil
    /// Output waits for room, since this instant plus the write timeout.
    @exclusivity(unchecked) var writeStallDeadline: Connection.Instant? = nil
    /// A send was refused, or the buffer reached the high-water mark: report (or resume senders)
    /// once it falls to the low-water mark.
    @exclusivity(unchecked) var awaitingDrain = false
    /// Async sends waiting for room, in order.
    @exclusivity(unchecked) var waitingSends: [(message: WebSocketMessage, continuation: UnsafeContinuation<Result<Void, WebSocketError>, Never>)] = []
    /// Async closes waiting for the end.
    var closeWaiters: [UnsafeContinuation<Connection.CloseStatus, Never>] = []

    /// What other threads may read.
    struct Shared {
        var handshake: Connection.HandshakeResult? = nil
        var closeStatus: Connection.CloseStatus? = nil
        /// The async face's messages, once open.
        var batches: MessageBatches? = nil
        var remoteAddress: SocketAddress?? = nil
    }
    let shared = Locked(Shared())

    /// The peer's address (asked of the kernel on first use).
    public var remoteAddress: SocketAddress? {
        if let known = shared.withLock({ $0.remoteAddress }) { return known }
        let address = socket.peerAddress
        shared.withLock { $0.remoteAddress = .some(address) }
        return address
    }

    init(loop: EventLoop, server: ServerCore, socket: Socket, pipeline: ConnectionPipeline) {
        self.loop = loop
        self.server = server
        self.socket = socket
        self.pipeline = pipeline
    }

    // MARK: What the connection is

    /// The opening handshake's outcome: the subprotocol and extensions agreed, the request's
    /// resource and headers. Set before the socket reaches you.
    public var handshake: Connection.HandshakeResult? { shared.withLock { $0.handshake } }

    /// The subprotocol agreed in the opening handshake, if any.
    public var subprotocol: String? { handshake?.subprotocol }

    /// How the connection ended, once its socket is closed; `nil` before.
    public var closeStatus: Connection.CloseStatus? { shared.withLock { $0.closeStatus } }

    /// The connection's loop, as an executor: a task that prefers it
    /// (`Task(executorPreference: socket.executor)`) runs beside the connection's I/O, and its sends
    /// and receives take no hop between threads. ``EventLoopServer/run(_:)`` starts every
    /// connection's task this way.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public var executor: any TaskExecutor { loop }

    // MARK: Sending (both faces)

    /// Queues a text message. On the loop it is in the output buffer when this returns; from another
    /// thread it is queued to the loop, and an error there (the connection closed meanwhile) is
    /// dropped.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection is not open,
    ///   ``WebSocketTransport/WebSocketError/bufferFull(bufferedAmount:)`` at the high-water mark (then a
    ///   ``WebSocketTransport/WebSocketEvent/drained(bufferedAmount:)`` follows), ``WebSocketTransport/WebSocketError/closed(_:)`` after
    ///   the end.
    public func send(text: String) throws(WebSocketError) {
        try perform(.text(text))
    }

    /// Queues a binary message; see ``send(text:)``.
    public func send(binary: [UInt8]) throws(WebSocketError) {
        try perform(.binary(binary))
    }

    /// Sends a ping (at most 125 bytes); see ``send(text:)``.
    public func sendPing(_ payload: [UInt8] = []) throws(WebSocketError) {
        try perform(.ping(payload))
    }

    /// Sends an unsolicited pong; see ``send(text:)``.
    public func sendPong(_ payload: [UInt8] = []) throws(WebSocketError) {
        try perform(.pong(payload))
    }

    /// Starts the closing handshake; the socket closes once the peer answers (or the close timeout
    /// passes), and ``WebSocketTransport/WebSocketEvent/closed(_:)`` follows. See ``send(text:)``.
    public func sendClose(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        try perform(.close(Connection.CloseFrame(code: code, reason: reason)))
    }

    /// Runs `message` on the loop: now when called there, queued otherwise.
    private func perform(_ message: WebSocketMessage) throws(WebSocketError) {
        if loop.inLoop {
            try sendNow(message)
        } else {
            loop.execute { [self] in try? sendNow(message) }
        }
    }

    /// Queues a message framed once for many connections (``WebSocketCore/Connection/PreparedMessage``): the connection's
    /// output adopts the prepared bytes when it is empty, with no copy. See ``send(text:)``;
    /// ``EventLoopServer/broadcast(_:)`` sends one to every open connection.
    ///
    /// - Throws: as ``send(text:)``, and ``WebSocketTransport/WebSocketError/connection(_:)`` with
    ///   ``WebSocketCore/Connection/UsageError/preparedFrameTooLarge(_:)`` for frames larger than the connection's
    ///   ``WebSocketCore/Connection/Configuration/fragmentationSize`` (prepare with the same size).
    public func send(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        if loop.inLoop {
            try sendNow(prepared)
        } else {
            loop.execute { [self] in try? sendNow(prepared) }
        }
    }

    /// (On the loop) Puts `message` into the connection; it is written once the current read's events have been handled, or at the end of the turn.
    func sendNow(_ message: WebSocketMessage) throws(WebSocketError) {
        try queue(isData: message.isData) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(message)
        }
    }

    /// (On the loop) Puts a prepared message into the connection.
    func sendNow(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        try queue(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(prepared)
        }
    }

    /// (On the loop) One call into the core that queues output, with the time reported first (so
    /// that a close timer starts now), and the refusals and high-water mark of both faces.
    private func queue(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void) throws(WebSocketError) {
        if case .finished(let status) = phase { throw .closed(status) }
        if let failure = peek({ $0.failure }) { throw failure }
        if isData, !waitingSends.isEmpty {
            // Async sends wait for room: nothing overtakes them.
            throw .bufferFull(bufferedAmount: peek({ $0.pendingOutputCount }))
        }
        pipeline.advanceTime(to: loop.now)
        do throws(Connection.UsageError) {
            try body(&pipeline.connection)
        } catch .outputBufferFull {
            awaitingDrain = true
            throw .bufferFull(bufferedAmount: peek({ $0.pendingOutputCount }))
        } catch {
            throw .connection(error)
        }
        if peek({ $0.connection.pendingOutputCount }) >= server.highWaterMark { awaitingDrain = true }
        markDirty()
    }

    /// Reads the pipeline in place. A getter called on the stored property itself would copy the
    /// whole pipeline first (the connection holds an existential, which makes it address-only), and
    /// that copy showed as the largest user-space cost of the loop in a profile.
    @inline(__always)
    func peek<T>(_ body: (inout ConnectionPipeline) -> T) -> T {
        body(&pipeline)
    }

    /// (On the loop) The connection has something to write or a state to act on this turn.
    func markDirty() {
        guard !isDirty else { return }
        isDirty = true
        loop.markDirty(self)
    }
}

extension WebSocketMessage {
    /// A message, not a control frame: what waits behind async sends for room.
    var isData: Bool {
        switch self {
        case .text, .binary, .fragment: return true
        case .ping, .pong, .close: return false
        }
    }
}
#endif
