#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import WebSocketCore

/// A WebSocket server: a listening socket whose accept loop runs on Dispatch, serving every
/// connection at once, each on its own serial queue.
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
/// The server listens until ``stop()``; connections already accepted carry on.
///
/// `@unchecked Sendable`: the stored properties are constants, except `source` and `isPaused`, which
/// are read and written only on the server's private serial queue `queue`.
public final class WebSocketServer: @unchecked Sendable {
    /// The port the server listens on (the one the system chose when you passed 0).
    public let port: UInt16
    /// Open connections, for the async face (servers created without a handler). It finishes when the
    /// server stops. Connections that arrive while `backlog` of them wait unclaimed are closed.
    public let connections: AsyncStream<WebSocket>

    private let queue = DispatchQueue(label: "WebSocketServer.accept")
    private let listenFD: Int32
    private let configuration: Configuration
    private let options: TransportOptions
    private let context: ServerContext
    private let continuation: AsyncStream<WebSocket>.Continuation
    private var source: (any DispatchSourceRead)?
    private var isPaused = false

    /// Creates a server whose connections report to `handler` on `queue` (the delegate-queue face).
    ///
    /// - Parameters:
    ///   - host: the address to listen on: `127.0.0.1` (the default), `::1`, `0.0.0.0`, `::`, or a name.
    ///   - port: the port; 0 (the default) lets the system choose one, read it from ``port``.
    ///   - backlog: the `listen` backlog. Default 128.
    ///   - configuration: the core's limits, timers and delivery for every connection.
    ///   - options: transport options for every connection.
    ///   - queue: where `handshake` and `handler` run. A concurrent queue is fine: calls for one
    ///     connection never overlap.
    ///   - handshake: the decision on each valid opening handshake request. Default: accept without a
    ///     subprotocol.
    ///   - handler: every connection's events, starting with ``WebSocketEvent/open(_:)``.
    /// - Throws: ``WebSocketError/addressResolutionFailed(code:message:)``, ``WebSocketError/listenFailed(_:)``.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128,
                            configuration: Configuration = Configuration(), options: TransportOptions = TransportOptions(),
                            queue: DispatchQueue,
                            handshake: @escaping @Sendable (HandshakeRequest) -> HandshakeDecision = { _ in .accept() },
                            handler: @escaping WebSocket.EventHandler) throws(WebSocketError) {
        try self.init(host: host, port: port, backlog: backlog, configuration: configuration, options: options,
                      decisionQueue: queue, handshake: handshake, handler: (queue, handler))
    }

    /// Creates a server whose open connections arrive in ``connections`` (the async face); each
    /// socket's messages are read with ``WebSocket/messages``.
    ///
    /// `handshake` runs on a private serial queue of the server: keep it quick.
    ///
    /// - Throws: as the other initializer, and ``WebSocketError/fragmentDeliveryUnsupported`` when
    ///   `configuration.delivery` is ``Delivery/fragments``.
    public convenience init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128,
                            configuration: Configuration = Configuration(), options: TransportOptions = TransportOptions(),
                            handshake: @escaping @Sendable (HandshakeRequest) -> HandshakeDecision = { _ in .accept() })
        throws(WebSocketError) {
        guard configuration.delivery == .messages else { throw .fragmentDeliveryUnsupported }
        try self.init(host: host, port: port, backlog: backlog, configuration: configuration, options: options,
                      decisionQueue: DispatchQueue(label: "WebSocketServer.handshake"), handshake: handshake,
                      handler: nil)
    }

    private init(host: String, port: UInt16, backlog: Int32, configuration: Configuration, options: TransportOptions,
                 decisionQueue: DispatchQueue, handshake: @escaping @Sendable (HandshakeRequest) -> HandshakeDecision,
                 handler: (DispatchQueue, WebSocket.EventHandler)?) throws(WebSocketError) {
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.resolve(host: host, port: port, passive: true)
        } catch {
            throw .addressResolutionFailed(code: error.code, message: error.message)
        }
        var lastError = SystemError(EADDRNOTAVAIL)
        var bound: (fd: Int32, port: UInt16)? = nil
        for address in addresses {
            switch Socket.listen(on: address, backlog: backlog) {
            case .failure(let error):
                lastError = error
            case .success(let fd):
                bound = (fd, Socket.localPort(fd) ?? port)
            }
            if bound != nil { break }
        }
        guard let bound else { throw .listenFailed(lastError) }
        listenFD = bound.fd
        self.port = bound.port
        self.configuration = configuration
        self.options = options
        (connections, continuation) = AsyncStream.makeStream(of: WebSocket.self,
                                                             bufferingPolicy: .bufferingOldest(Int(max(1, backlog))))
        if let handler {
            context = ServerContext(decisionQueue: decisionQueue, decide: handshake, handOff: .handler(handler.0, handler.1))
            continuation.finish()
        } else {
            context = ServerContext(decisionQueue: decisionQueue, decide: handshake, handOff: .stream(continuation))
        }
        queue.async { self.startAccepting() }
    }

    /// Stops accepting connections and closes the listening socket; accepted connections carry on.
    /// ``connections`` finishes.
    public func stop() {
        queue.async { [self] in
            continuation.finish()
            guard let source else { return }
            self.source = nil
            source.cancel()
            if isPaused {
                isPaused = false
                source.resume()
            }
        }
    }

    private func startAccepting() {
        let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: queue)
        let fd = listenFD
        source.setEventHandler { [self] in acceptConnections() }
        source.setCancelHandler { Socket.close(fd) }
        self.source = source
        source.resume()
    }

    /// Accepts what is waiting, at most 64 connections per event. When descriptors run out, accepting
    /// pauses for 100 ms rather than spinning on a listening socket that stays readable.
    private func acceptConnections() {
        for _ in 0..<64 {
            switch Socket.accept(listenFD) {
            case .accepted(let fd):
                if Socket.configure(fd, noDelay: options.noDelay) != nil {
                    Socket.close(fd)
                    continue
                }
                WebSocket.serve(fd: fd, configuration: configuration, options: options, context: context)
            case .wouldBlock:
                return
            case .failed(let code):
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { pauseAccepting() }
                return
            }
        }
    }

    private func pauseAccepting() {
        guard let source, !isPaused else { return }
        isPaused = true
        source.suspend()
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
            guard isPaused, let source = self.source else { return }
            isPaused = false
            source.resume()
        }
    }
}
