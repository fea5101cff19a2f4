import Dispatch
import WebSocketCore

/// A WebSocket connection (RFC 6455) over a non-blocking TCP socket, driven by Dispatch: a client from
/// ``connect(_:configuration:options:queue:handler:)`` or a connection a ``WebSocketServer`` accepted.
///
/// It moves bytes and time in and out of a core ``Connection``, and holds no protocol logic of its own.
/// Each socket owns a private serial queue on which its socket's read and write `DispatchSource`s, its
/// timer (re-armed to ``Connection/nextDeadline``) and every change to its state run.
///
/// **Two faces.** Events go either to an *event handler*, called on a queue you choose (the
/// delegate-queue model), or, for the async face, to ``messages``:
///
/// ```swift
/// let socket = try WebSocket.connect(to: "ws://127.0.0.1:9001/chat", queue: .main) { socket, event in
///     switch event {
///     case .open: try? socket.send(text: "hello")
///     case .text(let text): print(text)
///     case .closed(let status): print("closed", status.code)
///     default: break
///     }
/// }
///
/// let socket = try await WebSocket.connect(to: "ws://127.0.0.1:9001/chat")
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages { print(message) }
/// ```
///
/// **Threading.** Every method may be called from any thread. The synchronous methods (``send(text:)``,
/// ``bufferedAmount``…) wait for the socket's queue briefly; never call them from inside a block you
/// dispatched synchronously onto a queue the handler runs on. Handler calls for one socket never
/// overlap and arrive in order, even on a concurrent queue.
///
/// **Lifetime.** A socket keeps itself alive until its connection ends (its last event, ``WebSocketEvent/closed(_:)``
/// or ``WebSocketEvent/failed(_:)``, has been dispatched); you need not hold a reference to it.
///
/// `@unchecked Sendable`: the stored properties after `queue` and `options` are read and written only
/// on `queue`, a private serial queue: every public method hops onto it (`sync` or `async`), and every
/// Dispatch source and waiter the socket creates runs its handlers there.
public final class WebSocket: @unchecked Sendable {
    /// The handler of the delegate-queue face: the socket and what happened.
    public typealias EventHandler = @Sendable (WebSocket, WebSocketEvent) -> Void

    /// The socket's private serial queue.
    let queue: DispatchQueue
    /// The transport options the socket was created with.
    public let options: TransportOptions
    /// The output buffer size at which sends are refused: the core's ``Limits/maxBufferedOutput``.
    public let highWaterMark: Int
    let isClient: Bool

    // MARK: State confined to `queue`

    /// The protocol engine, changed in place (through `inout`) only on `queue`.
    var connection: Connection
    var transport = TransportPhase.idle
    var sources: SocketSources?
    var timer: (any DispatchSourceTimer)?
    var scheduledDeadline: Instant?
    var consumer: Consumer
    /// Events pulled but not yet dispatched to the handler, and their payload bytes.
    var batch: [WebSocketEvent] = []
    var batchBytes = 0
    /// Payload bytes dispatched to the handler whose call has not returned yet.
    var undeliveredBytes = 0
    /// A send was refused, or the buffer reached the high-water mark: report the drain.
    var awaitingDrain = false
    /// The transport will give no more input (end of stream, a read or write error).
    var inputEnded = false
    var writeFailed = false
    var wasCancelled = false
    var handshakeResult: HandshakeResult?
    var handshakeFailure: HandshakeFailure?
    var connectFailure: WebSocketError?
    /// How the connection ended, once the socket is closed.
    var ending: Ending?
    var pendingSends: [PendingSend] = []
    var openWaiters: [Waiter<Void>] = []
    var closeWaiters: [Waiter<CloseStatus>] = []
    var readBuffer: [UInt8]

    init(role: Role, configuration: Configuration, options: TransportOptions, consumer: Consumer) throws(WebSocketError) {
        do {
            connection = try Connection(role: role, configuration: configuration)
        } catch {
            throw .connection(error)
        }
        self.options = options
        self.consumer = consumer
        highWaterMark = max(0, configuration.limits.maxBufferedOutput)
        isClient = role.isClientRole
        queue = DispatchQueue(label: isClient ? "WebSocket.client" : "WebSocket.server")
        readBuffer = [UInt8](repeating: 0, count: max(1, options.readChunkSize))
    }

    // MARK: Connecting (delegate-queue face)

    /// Connects to a `ws://` URL: resolves its host, tries each address in turn (IPv4 and IPv6, with
    /// ``TransportOptions/connectTimeout`` per attempt), runs the opening handshake, and reports
    /// everything to `handler` on `queue`, starting with ``WebSocketEvent/open(_:)`` or
    /// ``WebSocketEvent/failed(_:)``.
    ///
    /// Resolution (`getaddrinfo`, which may block on DNS) runs on the socket's own queue, never on yours.
    ///
    /// - Parameters:
    ///   - request: the URL, subprotocols, extensions and headers of the opening handshake.
    ///   - configuration: the core's limits, timers and delivery; the defaults suit the open internet.
    ///   - options: transport options; the defaults suit most uses.
    ///   - queue: where `handler` runs. A concurrent queue is fine: calls for one socket never overlap.
    ///   - handler: called with every event; the last one is `.closed` or `.failed`.
    /// - Throws: ``WebSocketError/secureSchemeUnsupported`` for `wss`, ``WebSocketError/connection(_:)``
    ///   for options the request cannot carry (a header with a control character).
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(_ request: ClientOptions, configuration: Configuration = Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        let delivery = DispatchQueue(label: "WebSocket.events", target: queue)
        return try startClient(request, configuration: configuration, options: options,
                               consumer: .handler(queue: delivery, handler))
    }

    /// Connects to a `ws://` URL given as a string; see ``connect(_:configuration:options:queue:handler:)``.
    ///
    /// - Throws: ``WebSocketError/invalidURL(_:)`` as well.
    public static func connect(to url: String, subprotocols: [String] = [], configuration: Configuration = Configuration(),
                               options: TransportOptions = TransportOptions(), queue: DispatchQueue,
                               handler: @escaping EventHandler) throws(WebSocketError) -> WebSocket {
        try connect(ClientOptions(url: parse(url), subprotocols: subprotocols), configuration: configuration,
                    options: options, queue: queue, handler: handler)
    }

    static func parse(_ url: String) throws(WebSocketError) -> WebSocketURL {
        do {
            return try WebSocketURL(parsing: url)
        } catch {
            throw .invalidURL(error)
        }
    }

    static func startClient(_ request: ClientOptions, configuration: Configuration, options: TransportOptions,
                            consumer: Consumer) throws(WebSocketError) -> WebSocket {
        guard !request.url.isSecure else { throw .secureSchemeUnsupported }
        let socket = try WebSocket(role: .client(request), configuration: configuration, options: options,
                                   consumer: consumer)
        socket.queue.async { socket.startConnecting(host: request.url.host, port: request.url.port) }
        return socket
    }

    // MARK: Reading state

    /// The bytes queued for the peer and not yet written to the socket, like a browser's
    /// `bufferedAmount`. Sends are refused once it reaches ``highWaterMark``.
    public var bufferedAmount: Int {
        queue.sync { connection.pendingOutputCount }
    }

    /// The connection's state, as the core sees it.
    public var state: State {
        queue.sync { connection.state }
    }

    /// What the opening handshake agreed on (subprotocol, extensions, the peer's headers), once open.
    public var handshake: HandshakeResult? {
        queue.sync { handshakeResult }
    }

    // MARK: Sending (synchronous)

    /// Queues a text message and starts writing it.
    ///
    /// - Throws: ``WebSocketError/bufferFull(bufferedAmount:)`` when ``bufferedAmount`` has reached
    ///   ``highWaterMark`` (or async sends are waiting for room): nothing was queued; send again after
    ///   ``WebSocketEvent/drained(bufferedAmount:)``. ``WebSocketError/connection(_:)`` when the
    ///   connection is not open (``ConnectionError/notOpen``, ``ConnectionError/closeAlreadySent``…).
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
    /// - Throws: as ``send(text:)``, and ``ConnectionError/invalidUTF8`` when text fragments stop being
    ///   valid UTF-8.
    ///
    /// RFC 6455 §5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-5.4>
    public func sendFragment(_ bytes: some Collection<UInt8>, kind: MessageKind, isFinal: Bool) throws(WebSocketError) {
        let bytes = Array(bytes)
        try queue.sync {
            perform(isData: true) { (connection: inout Connection) throws(ConnectionError) in
                try connection.sendFragment(bytes, kind: kind, isFinal: isFinal)
            }
        }.get()
    }

    /// Sends a ping (at most 125 bytes); the answer arrives as ``WebSocketEvent/pong(_:)``.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public func ping(_ payload: [UInt8] = []) throws(WebSocketError) {
        try queue.sync {
            perform(isData: false) { (connection: inout Connection) throws(ConnectionError) in
                try connection.ping(payload)
            }
        }.get()
    }

    /// Starts the closing handshake. The socket is closed when the peer's Close arrives (a server
    /// closes at once; a client waits for the server to close TCP) or after ``Timeouts/close``, and then
    /// ``WebSocketEvent/closed(_:)`` is reported.
    ///
    /// - Parameters:
    ///   - code: a code that may be sent (RFC 6455 §7.4); default 1000.
    ///   - reason: at most 123 bytes of UTF-8.
    /// In an async function, `close` names the async overload, which also waits for the end and
    /// returns the ``CloseStatus``.
    ///
    /// - Throws: ``WebSocketError/connection(_:)``: ``ConnectionError/notOpen`` before the handshake
    ///   completes (use ``cancel()``), ``ConnectionError/closeAlreadySent``, an invalid code or reason.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    public func close(code: CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        try queue.sync {
            perform(isData: false) { (connection: inout Connection) throws(ConnectionError) in
                try connection.close(code: code, reason: reason)
            }
        }.get()
    }

    /// Closes the socket at once, without a closing handshake. Before the connection opened it reports
    /// ``WebSocketEvent/failed(_:)`` with ``WebSocketError/cancelled``; once open, the connection is
    /// lost as if the peer vanished, and ``WebSocketEvent/closed(_:)`` reports 1006. Does nothing once
    /// the connection has ended.
    public func cancel() {
        queue.async { self.abort() }
    }
}

extension Role {
    var isClientRole: Bool {
        if case .client = self { return true }
        return false
    }
}
