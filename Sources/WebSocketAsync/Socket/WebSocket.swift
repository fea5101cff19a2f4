// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import CWebSocketSystem
import WebSocketTransport

/// A WebSocket connection (RFC 6455) on an event loop: a client from one of the `connect`
/// functions, or a connection a ``WebSocketServer`` accepted. `wss://` works when
/// ``WebSocketTransport/TransportOptions/tls`` is set.
///
/// Everything about the connection happens on its loop's thread: reading, writing, its timers, and
/// the protocol (a ``WebSocketCore/Connection`` inside). Its events reach you through one of three
/// faces, chosen when the socket is made:
///
/// ```swift
/// // Handlers on the loop: the fastest; keep them quick, the loop's other sockets wait meanwhile.
/// let socket = try WebSocket.connect(to: "ws://127.0.0.1:9001/chat") { socket, event in
///     if case .open = event { try? socket.send(text: "hello") }
/// }
///
/// // Handlers on a queue you name (the delegate-queue model of SocketRocket and GCDAsyncSocket).
/// let socket = try WebSocket.connect(to: "ws://127.0.0.1:9001/chat", queue: .main) { socket, event in … }
///
/// // async/await.
/// let socket = try await WebSocket.connect(to: "wss://example.com/chat", options: options)
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages { print(message) }
/// ```
///
/// **Sending.** Every method may be called from any thread. On the socket's loop (its handlers, and
/// tasks that prefer its ``executor``) a send goes straight into the connection's output buffer and
/// is written with everything else sent in answer to the same read. From any other thread it is
/// checked against the socket's state and buffered amount as last published by the loop, then
/// carried out on the loop, in the order of the calls; what the connection refuses by then is
/// dropped, as a browser drops a send after a close: a send made while it closed, and a control
/// frame it refuses (a ping or pong over 125 bytes, a Close with a code that may not be sent, or
/// before the connection opened), since only data sends are checked off the loop. The async
/// `send(_:)`, `ping(_:timeout:)` and `close(code:reason:)` wait for the loop's verdict and throw it.
///
/// **Lifetime.** A socket keeps itself alive until its connection ends (its last event has been
/// delivered); you need not hold a reference to it.
public final class WebSocket: @unchecked Sendable {
    // `@unchecked Sendable`: mutable state is touched only on the loop's thread (public methods hop
    // there when needed), but `shared` (behind its lock) and the published buffered amount (atomic).
    // What the loop touches per message is `@exclusivity(unchecked)`: the runtime's check of each
    // access was a third of the loop's user-space instructions per message (callgrind, 100
    // connections echoing), and what it guards holds by construction: one thread, no access in
    // progress while other code runs. User code (handlers; tasks, which the loop's executor queues
    // and never runs inline) runs only between accesses, never from a closure lent by one (`peek`,
    // `withSocketOutputPieces` copy out and return first).

    /// The handler of the handler faces: the socket and what happened, on the socket's loop or on
    /// the queue you named.
    public typealias EventHandler = @Sendable (WebSocket, WebSocketEvent) -> Void

    let loop: EventLoop
    /// The server that accepted it; `nil` for a client.
    let server: ServerCore?
    /// The transport options, behind one reference that a server's sockets share (240 bytes inline
    /// in every socket otherwise).
    let sharedOptions: OutOfLine<TransportOptions>
    var options: TransportOptions { sharedOptions.value }
    let system: SystemCalls
    /// The buffered amount at which sends are refused: the core's ``WebSocketCore/Connection/Limits/maxBufferedOutput``.
    public let highWaterMark: Int
    /// The socket's descriptor: `nil` while a client resolves, and between connect attempts.
    @exclusivity(unchecked) var socket: Socket? {
        didSet { unretainedSocket = socket.map { Unmanaged.passUnretained($0) } }
    }
    /// `socket`, unretained: the reads and writes of a turn call it through this, with no retain and
    /// release around each call (two pairs per echoed message, about 80 instructions). Safe because
    /// `socket` holds it, and neither a read nor a write round calls anything that could replace
    /// `socket` before it returns.
    @exclusivity(unchecked) private(set) var unretainedSocket: Unmanaged<Socket>?
    @exclusivity(unchecked) var session: SocketSession
    /// Where its events go: settled when a client is made, when a server's connection opens.
    @exclusivity(unchecked) var consumer: Consumer {
        didSet { consumerChanged() }
    }
    /// The loop faces' handler box, held for the socket's life from the moment it becomes the
    /// consumer's: a read calls it through ``faceHandler`` with no retain and release (taken out of
    /// the consumer, the box cost a pair per read, about 50 instructions per echoed message), and a
    /// handler that ends the socket (the consumer becomes `.finished`) does not free the box, or its
    /// closure, while it runs. Boxes are made once per server or client, so keeping one costs nothing.
    @exclusivity(unchecked) private var faceHandlerBox: AnyObject? = nil
    /// The loop face's handler, unretained (``faceHandlerBox`` holds it).
    @exclusivity(unchecked) private(set) var faceHandler: FaceHandler = .none

    /// The async face's batches, unretained: the socket's shared state holds them for its life
    /// (``asyncBatches``). Staging and publishing a message through them costs no retain and
    /// release, as taking them out of the consumer did (twice per message).
    @exclusivity(unchecked) private(set) var faceBatches: Unmanaged<MessageBatches>? = nil

    /// A loop face's handler box, unretained.
    enum FaceHandler {
        case none
        case loopHandler(Unmanaged<EventHandlerBox>)
        case lendingHandler(Unmanaged<LendingHandlerBox>)
    }

    /// What follows from the consumer: the queue face kept, whether to hand over, the loop face's box.
    private func consumerChanged() {
        if case .queueHandler(let queue, let handler) = consumer { queueFace = (queue, handler) }
        handsOver = consumer.handsOver
        switch consumer {
        case .loopHandler(let box):
            faceHandlerBox = box
            faceHandler = .loopHandler(Unmanaged.passUnretained(box))
        case .lendingHandler(let box):
            faceHandlerBox = box
            faceHandler = .lendingHandler(Unmanaged.passUnretained(box))
        case .batches(let batches):
            faceBatches = Unmanaged.passUnretained(batches)
        case .pending, .queueHandler, .finished:
            // Kept: a read may be calling it.
            break
        }
    }
    /// Whether ``handOver()`` has anything to do for this consumer (kept beside it: reading the
    /// enum's payload to find out costs a retain and a release, after every read and write).
    @exclusivity(unchecked) var handsOver = false
    /// (Queue face) The queue and handler, kept after the consumer has finished: what comes after the
    /// last event (a late ping's answer) still goes through the mailbox, in order.
    @exclusivity(unchecked) var queueFace: (queue: DispatchQueue, handler: EventHandler)? = nil
    /// The loop's name for the registration (its slot and generation).
    var token: UInt64 = 0
    /// Where the loop lists it among its server's sockets.
    var indexInServer = 0
    /// (A server's connection) Its place in the subscriber list of each topic it is in, on its
    /// loop's ``TopicTable``, in no particular order.
    @exclusivity(unchecked) var topicSlots = TopicSlots()
    /// Edge-like readiness the descriptor has not used up yet.
    @exclusivity(unchecked) var readable = false
    @exclusivity(unchecked) var writable = false
    /// The backend reported the peer's hang-up: read until the end of the stream.
    @exclusivity(unchecked) var peerHungUp = false
    /// What the readiness backend watches the descriptor for.
    @exclusivity(unchecked) var interest: Interest = []
    /// In the loop's dirty list for this turn.
    @exclusivity(unchecked) var isDirty = false
    /// The earliest deadline the loop's timers hold for this socket.
    @exclusivity(unchecked) var scheduledDeadline: Connection.Instant? = nil
    /// (Async face) When the waiting `receive(timeout:)` gives up, on the loop's timers like every
    /// other deadline of the socket.
    @exclusivity(unchecked) var receiveDeadline: (at: Connection.Instant, wait: MessageBatches.Wait)? = nil
    /// The state last published to other threads.
    @exclusivity(unchecked) var publishedState = Connection.State.connecting
    /// The buffered amount last published to other threads.
    @exclusivity(unchecked) var publishedBuffered = 0
    /// The waiting bytes last published to other threads.
    @exclusivity(unchecked) var publishedWaiting = 0
    /// (Queue face) What this turn has for the queue, moved to `shared.mailbox` at the turn's end.
    @exclusivity(unchecked) var queueBatch: [QueueDelivery] = []
    /// (Queue face) What the queue's drain is handing out: touched only by the drain, which runs
    /// alone (`shared.mailboxRunning`; its lock orders one drain's accesses before the next's).
    @exclusivity(unchecked) var queueRunning: [QueueDelivery] = []
    /// The sends taken from `shared.outbox`, being carried out (empty between visits, its capacity
    /// kept so that a burst of sends from elsewhere allocates nothing).
    @exclusivity(unchecked) var outboxTaken: [OffLoopRequest] = []
    /// (A server's socket) Its accept, for ``traffic``.
    @exclusivity(unchecked) var startedAt: Connection.Instant? = nil

    /// What other threads read and queue, behind its lock.
    struct Shared {
        var state = Connection.State.connecting
        var handshake: Connection.HandshakeResult? = nil
        var proxyHeader: ProxyProtocolHeader? = nil
        var ending: Ending? = nil
        var transportFailure: WebSocketError? = nil
        var remoteAddress: SocketAddress?? = nil
        var localAddress: SocketAddress?? = nil
        /// The connected socket whose addresses other threads may ask the kernel for: set once
        /// connected, cleared (under this lock) before the loop closes the descriptor, so that no
        /// thread asks about a descriptor number that was closed and reused.
        var connected: Socket? = nil
        /// Sends (and pings) from other threads, carried out on the loop in the order of the calls.
        var outbox: [OffLoopRequest] = []
        var outboxBytes = 0
        /// The payload bytes waiting in the session for room, as last published by the loop.
        var waitingBytes = 0
        /// The loop has been asked to visit: to carry the outbox out and take note of what the
        /// queue's handlers took.
        var visitScheduled = false
        /// A send from another thread was refused for room: the loop reports the drain.
        var drainWanted = false
        /// (Queue face) What waits for the queue's handlers, in order: the loop adds, the drain on the
        /// queue takes.
        var mailbox: [QueueDelivery] = []
        /// (Queue face) A drain runs on the queue or has been dispatched to it: the only one, so that
        /// the socket's events never overlap and keep their order, even on a concurrent queue.
        var mailboxRunning = false
        /// (Queue face) The messages, and their bytes, the handlers returned from since the loop's
        /// last visit.
        var tookBytes = 0
        var tookMessages = 0
        /// The async face's messages.
        var batches: MessageBatches? = nil
        /// Who waits for the end without reading messages (a ``ReconnectingWebSocket``): called
        /// once, on the loop, after the last event.
        var endObservers: [@Sendable (Ending) -> Void] = []
        /// This side started the closing handshake (a send of a Close frame, or `close`, while
        /// open): a ``ReconnectingWebSocket`` does not reconnect after it.
        var closeStartedHere = false
        /// What went through the socket, once it closed.
        var traffic: Traffic? = nil
        /// (A server's connection) The topics it is subscribed to: what its loop's table follows.
        var topics = TopicSet()
    }
    let shared: Locked<Shared>
    /// The two atomic words below, pinned beside `shared`'s mutex, in its allocation (which lives as
    /// long as `shared`, so as long as the socket).
    private let atomicWords: UnsafeMutablePointer<Int>
    /// The buffered amount the loop published last (an atomic, read by other threads).
    var publishedBufferedAmount: UnsafeMutablePointer<Int> { atomicWords }
    /// 1 while `shared.outbox` holds sends (an atomic, set and cleared under the lock): a send on the
    /// loop carries them out first, so that it cannot overtake them.
    var outboxWaiting: UnsafeMutablePointer<Int> { atomicWords + 1 }

    init(loop: EventLoop, server: ServerCore?, socket: Socket?, session: consuming SocketSession, consumer: Consumer,
         options: OutOfLine<TransportOptions>, system: SystemCalls) {
        self.loop = loop
        self.server = server
        self.socket = socket
        self.unretainedSocket = socket.map { Unmanaged.passUnretained($0) }
        self.session = consume session
        self.consumer = consumer
        self.sharedOptions = options
        self.system = system
        shared = Locked(Shared(connected: socket), pinnedWords: 2)
        highWaterMark = self.session.settings.highWaterMark
        atomicWords = shared.pinnedWords
        consumerChanged()
    }

    // MARK: What the connection is

    /// What went through a socket, for a log line once it closed.
    public struct Traffic: Sendable, Hashable {
        /// Bytes read from the socket: frames and HTTP (encrypted, under TLS).
        public var bytesReceived: Int
        /// Bytes written to the socket.
        public var bytesSent: Int
        /// (A server's socket) From its accept to its close; `nil` for a client's.
        public var duration: Duration?
    }

    /// The bytes the socket read and wrote and (a server's) how long it was connected, once it closed:
    /// `nil` before. Set before the last event (``WebSocketTransport/WebSocketEvent/closed(_:)`` or
    /// ``WebSocketTransport/WebSocketEvent/failed(_:)``) is delivered, so a handler reads it there.
    public var traffic: Traffic? { shared.withLock { $0.traffic } }

    /// The connection's state, as last published by its loop (exact on the loop).
    public var state: Connection.State {
        if loop.inLoop { return peek { $0.pipeline.connection.state } }
        return shared.withLock { $0.state }
    }

    /// What the opening handshake agreed on (subprotocol, extensions, the peer's headers, the
    /// resource), once open.
    public var handshake: Connection.HandshakeResult? { shared.withLock { $0.handshake } }

    /// (A server's connection) The PROXY protocol header it began with
    /// (``WebSocketTransport/TransportOptions/proxyProtocol``), if one was read; known once open.
    public var proxyHeader: ProxyProtocolHeader? { shared.withLock { $0.proxyHeader } }

    /// The client's address: the PROXY protocol header's source when a trusted proxy sent one with an
    /// address, otherwise ``remoteAddress`` (behind a load balancer, the balancer's).
    public var clientAddress: SocketAddress? { proxyHeader?.source ?? remoteAddress }

    /// The subprotocol agreed in the opening handshake, if any.
    public var subprotocol: String? { handshake?.subprotocol }

    /// How the connection ended, once its socket is closed (after the last event); `nil` before,
    /// and for a connection that never opened.
    public var closeStatus: Connection.CloseStatus? {
        if case .closed(let status)? = shared.withLock({ $0.ending }) { return status }
        return nil
    }

    /// The transport failure that ended the connection (a reset, a write timeout, a TLS failure), if
    /// one did; known once the socket is closed.
    public var transportFailure: WebSocketError? { shared.withLock { $0.transportFailure } }

    /// The peer's address (asked of the kernel on first use, from the calling thread); for a Unix
    /// socket client, the server's path. `nil` before a client's TCP connection is made.
    public var remoteAddress: SocketAddress? {
        address(\.remoteAddress, of: \.peerAddress)
    }

    /// The address of this end of the socket (asked of the kernel on first use, from the calling
    /// thread). `nil` before a client's TCP connection is made.
    public var localAddress: SocketAddress? {
        address(\.localAddress, of: \.localAddress)
    }

    /// An address of the connected descriptor, kept once known. Asked under the lock that the loop
    /// takes before it closes the descriptor, and never by waiting for the loop: a handler on one
    /// loop asking about a socket of another (and that one's handler asking back) would otherwise
    /// hold both loops.
    private func address(_ kept: WritableKeyPath<Shared, SocketAddress??>, of property: KeyPath<Socket, SocketAddress?>)
        -> SocketAddress?
    {
        shared.withLock { shared in
            if let known = shared[keyPath: kept] { return known }
            guard let socket = shared.connected else { return nil }
            let address = socket[keyPath: property]
            if address != nil { shared[keyPath: kept] = .some(address) }
            return address
        }
    }

    /// The bytes queued for the peer and not yet written to the socket, like a browser's
    /// `bufferedAmount`: exact on the loop, as last published plus the sends on their way from
    /// other threads. Sends are refused once it reaches ``highWaterMark``.
    public var bufferedAmount: Int {
        if loop.inLoop { return peek { $0.bufferedAmount } + shared.withLock { $0.outboxBytes } }
        return cwebsocket_atomic_load_long(publishedBufferedAmount) + shared.withLock { $0.outboxBytes }
    }

    /// The connection's loop, as an executor: a task that prefers it
    /// (`Task(executorPreference: socket.executor)`) runs beside the connection's I/O, and its sends
    /// and receives take no hop between threads. ``WebSocketServer/run(_:)`` starts every
    /// connection's task this way.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    public var executor: any TaskExecutor { loop }

    // MARK: The loop

    /// Reads or changes the session in place. A getter called on the stored property itself would
    /// copy the whole session first (the connection holds an existential, which makes it
    /// address-only), and that copy showed as the largest user-space cost of the loop in a profile.
    @inline(__always)
    func peek<T>(_ body: (inout SocketSession) -> T) -> T {
        body(&session)
    }

    /// (On the loop) The socket has something to write or a state to act on this turn. The check is
    /// inlined: a send and the end of every read mark the socket, which is dirty already by then.
    @inline(__always)
    func markDirty() {
        if !isDirty { markDirtyNow() }
    }

    private func markDirtyNow() {
        isDirty = true
        // The socket the loop is handling is flushed when its handling ends: no need to list it.
        if loop.handling != ObjectIdentifier(self) { loop.markDirty(self) }
    }
}
