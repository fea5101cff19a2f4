import Dispatch
import WebSocketTransport

/// A WebSocket connection (RFC 6455) over a non-blocking socket, driven by Dispatch: a client from
/// one of the `connect` functions, or a connection a ``WebSocketServer`` accepted. `wss://` works
/// when ``WebSocketTransport/TransportOptions/tls`` is set.
///
/// It moves bytes and time in and out of a core ``WebSocketCore/Connection`` (through the transport layers under
/// it), and holds no protocol logic of its own. Each socket owns a private serial queue on which its
/// socket's read and write `DispatchSource`s, its timer (re-armed to the connection's next deadline)
/// and every change to its state run.
///
/// **Two faces.** Events go either to an *event handler*, called on a queue you choose (the
/// delegate-queue model), or, for the async face, to ``messages`` and ``receive(timeout:)``:
///
/// ```swift
/// let socket = try WebSocket.connect(to: "ws://127.0.0.1:9001/chat", queue: .main) { socket, event in
///     switch event {
///     case .open: try? socket.send(text: "hello")
///     case .text(let text): print(text)
///     case .closed(let status): print("closed", status)
///     default: break
///     }
/// }
///
/// let socket = try await WebSocket.connect(to: "wss://example.com/chat", options: options)
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages { print(message) }
/// let status = try await socket.close()
/// ```
///
/// **Threading.** Every method may be called from any thread. The synchronous methods (``send(text:)``,
/// ``bufferedAmount``…) wait for the socket's queue briefly; never call them from inside a block you
/// dispatched synchronously onto a queue the handler runs on. Handler calls for one socket never
/// overlap and arrive in order, even on a concurrent queue.
///
/// **Lifetime.** A socket keeps itself alive until its connection ends (its last event, ``WebSocketTransport/WebSocketEvent/closed(_:)``
/// or ``WebSocketTransport/WebSocketEvent/failed(_:)``, has been dispatched); you need not hold a reference to it.
///
/// `@unchecked Sendable`: the stored properties after `system` are read and written only on `queue`,
/// a private serial queue: every public method hops onto it (`sync` or `async`), and every Dispatch
/// source and waiter the socket creates runs its handlers there.
public final class WebSocket: @unchecked Sendable {
    /// The handler of the delegate-queue face: the socket and what happened.
    public typealias EventHandler = @Sendable (WebSocket, WebSocketEvent) -> Void

    /// The socket's private serial queue.
    let queue: DispatchQueue
    /// The transport options the socket was created with.
    public let options: TransportOptions
    /// The output buffer size at which sends are refused: the core's ``WebSocketCore/Connection/Limits/maxBufferedOutput``.
    public let highWaterMark: Int
    let isClient: Bool
    let system: SystemCalls

    // MARK: State confined to `queue`
    //
    // What is touched for every message is `@exclusivity(unchecked)`: the runtime's check of each
    // access was over a fifth of the server's user-space instructions per message (callgrind). What
    // it guards holds by construction: one serial queue, and no access in progress while other code
    // runs. Handlers run in blocks of their own (on the handler's queue, async), async readers take
    // from `MessageInbox` under its lock, and continuations resumed here run elsewhere; no closure
    // lent by an access (`peek`, `withSocketOutput`) touches this state.

    /// The connection and its transport layers, changed in place only on `queue`. Read it through
    /// ``peek(_:)``.
    @exclusivity(unchecked) var pipeline: ConnectionPipeline
    @exclusivity(unchecked) var transport = TransportPhase.idle
    @exclusivity(unchecked) var sources: SocketSources?
    var timer: (any DispatchSourceTimer)?
    @exclusivity(unchecked) var scheduledDeadline: Connection.Instant?
    @exclusivity(unchecked) var consumer: Consumer
    /// Events pulled but not yet dispatched to the handler, and their payload bytes.
    @exclusivity(unchecked) var batch: [WebSocketEvent] = []
    @exclusivity(unchecked) var batchBytes = 0
    /// Payload bytes dispatched to the handler whose call has not returned yet.
    @exclusivity(unchecked) var undeliveredBytes = 0
    /// A send was refused, or the buffer reached the high-water mark: report the drain.
    @exclusivity(unchecked) var awaitingDrain = false
    /// The socket will give no more input (end of stream, a read error).
    @exclusivity(unchecked) var inputEnded = false
    /// Since when pending output has waited for the socket to take a byte.
    @exclusivity(unchecked) var writeStalledSince: Connection.Instant?
    var wasCancelled = false
    var handshakeResult: Connection.HandshakeResult?
    var handshakeFailure: Connection.HandshakeFailure?
    var connectFailure: WebSocketError?
    /// (Client) The redirects followed so far, and the request and endpoint of the current hop.
    var redirects: RedirectChain?
    var currentHop: (request: Connection.ClientOptions, endpoint: WebSocketEndpoint)?
    /// How the connection ended, once the socket is closed.
    var ending: Ending?
    @exclusivity(unchecked) var pendingSends: [PendingSend] = []
    @exclusivity(unchecked) var pendingPings = PingTracker()
    var openWaiters: [Waiter<Void>] = []
    var closeWaiters: [Waiter<Connection.CloseStatus>] = []

    init(pipeline: ConnectionPipeline, options: TransportOptions, consumer: Consumer, system: SystemCalls) {
        self.pipeline = pipeline
        self.options = options
        self.consumer = consumer
        self.system = system
        highWaterMark = max(0, pipeline.connection.configuration.limits.maxBufferedOutput)
        isClient = pipeline.connection.role.isClient
        queue = DispatchQueue(label: isClient ? "WebSocket.client" : "WebSocket.server")
    }

    // MARK: Reading state

    /// The bytes queued for the peer and not yet written to the socket, like a browser's
    /// `bufferedAmount`. Sends are refused once it reaches ``highWaterMark``.
    public var bufferedAmount: Int {
        queue.sync { pipeline.pendingOutputCount }
    }

    /// The connection's state, as the core sees it.
    public var state: Connection.State {
        queue.sync { pipeline.connection.state }
    }

    /// What the opening handshake agreed on (subprotocol, extensions, the peer's headers), once open.
    public var handshake: Connection.HandshakeResult? {
        queue.sync { handshakeResult }
    }

    /// How the connection ended, once it has (after the last event).
    public var closeStatus: Connection.CloseStatus? {
        queue.sync {
            if case .closed(let status)? = ending { return status }
            return nil
        }
    }

    /// The transport failure that ended the connection (a reset, a write timeout, a TLS failure), if
    /// one did.
    public var transportFailure: WebSocketError? {
        queue.sync { pipeline.failure }
    }

    // MARK: Sending (synchronous)

    /// Queues a text message and starts writing it.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/bufferFull(bufferedAmount:)`` when ``bufferedAmount`` has reached
    ///   ``highWaterMark`` (or async sends are waiting for room): nothing was queued; send again after
    ///   ``WebSocketTransport/WebSocketEvent/drained(bufferedAmount:)``. ``WebSocketTransport/WebSocketError/connection(_:)`` when the
    ///   connection is not open (``WebSocketCore/Connection/UsageError/notOpen``, ``WebSocketCore/Connection/UsageError/closeAlreadySent``…).
    ///
    /// RFC 6455 §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public func send(text: String) throws(WebSocketError) {
        try queue.sync { sendOnQueue(.text(text)) }.get()
    }

    /// Queues a binary message and starts writing it.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(binary: some Collection<UInt8>) throws(WebSocketError) {
        try queue.sync { sendOnQueue(.binary(Array(binary))) }.get()
    }

    /// Queues one fragment of a message you stream yourself (the first call starts a message of
    /// `kind`, the one with `isFinal` ends it); pings and pongs may go between fragments.
    ///
    /// - Throws: as ``send(text:)``, and ``WebSocketCore/Connection/UsageError/invalidUTF8`` when text fragments stop being
    ///   valid UTF-8.
    ///
    /// RFC 6455 §5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-5.4>
    public func sendFragment(_ bytes: some Collection<UInt8>, kind: Connection.MessageKind, isFinal: Bool) throws(WebSocketError) {
        let bytes = Array(bytes)
        try queue.sync {
            perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.sendFragment(bytes, kind: kind, isFinal: isFinal)
            }
        }.get()
    }

    /// Sends a ping (at most 125 bytes) and returns at once; the answer arrives as
    /// ``WebSocketTransport/WebSocketEvent/pong(_:)``. To wait for the answer, use ``ping(_:timeout:)`` or
    /// ``ping(_:timeout:onPong:)``.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public func sendPing(_ payload: [UInt8] = []) throws(WebSocketError) {
        try queue.sync {
            perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.ping(payload)
            }
        }.get()
    }

    /// Sends an unsolicited pong (at most 125 bytes), or answers a ping yourself when automatic pongs
    /// are off.
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public func sendPong(_ payload: [UInt8] = []) throws(WebSocketError) {
        try queue.sync {
            perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.pong(payload)
            }
        }.get()
    }

    /// Starts the closing handshake and returns at once. The socket is closed when the handshake is
    /// over (a server half-closes and waits for the client; a client waits for the server to close
    /// TCP, RFC 6455 §7.1.1) or after ``WebSocketCore/Connection/Timeouts/close``, and then ``WebSocketTransport/WebSocketEvent/closed(_:)`` is
    /// reported. The async ``close(code:reason:)`` also waits for the end and returns its status.
    ///
    /// - Parameters:
    ///   - code: a code that may be sent (RFC 6455 §7.4); default 1000.
    ///   - reason: at most 123 bytes of UTF-8.
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)``: ``WebSocketCore/Connection/UsageError/notOpen`` before the handshake
    ///   completes (use ``cancel()``), ``WebSocketCore/Connection/UsageError/closeAlreadySent``, an invalid code or reason.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    public func sendClose(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        try queue.sync {
            perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.close(code: code, reason: reason)
            }
        }.get()
    }

    /// Closes the socket at once, without a closing handshake. Before the connection opened it reports
    /// ``WebSocketTransport/WebSocketEvent/failed(_:)`` with ``WebSocketTransport/WebSocketError/cancelled``; once open, the connection is
    /// aborted, and ``WebSocketTransport/WebSocketEvent/closed(_:)`` reports 1006. Does nothing once the connection has
    /// ended.
    public func cancel() {
        queue.async { self.abort() }
    }
}

extension WebSocket {
    /// (On `queue`) Reads the pipeline in place. A getter called on the stored property itself
    /// copies the whole pipeline first (the connection holds an existential, which makes it
    /// address-only): 17 such copies per echoed message were a third of the server's user-space
    /// instructions (callgrind).
    @inline(__always)
    func peek<T>(_ body: (inout ConnectionPipeline) -> T) -> T {
        body(&pipeline)
    }
}
