import Dispatch
import WebSocketTransport

extension WebSocket {
    // MARK: Connecting (async face)

    /// Connects with every option of the opening handshake request and returns once the handshake
    /// (TLS first, for `wss`) has succeeded; read messages with ``messages`` or
    /// ``receive(timeout:)``.
    ///
    /// Cancelling the calling task closes the socket and throws `CancellationError`.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError``: `.connectFailed`, `.timedOut(.connect)`, `.tls`, `.handshakeFailed`
    ///   (a refusal carries the server's status, headers and body)…; `CancellationError`.
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) async throws -> WebSocket {
        try await connect(request, via: endpoint ?? WebSocketEndpoint(url: request.url), configuration: configuration,
                          options: options, system: .live)
    }

    /// Connects to a `ws://`, `wss://` or `ws+unix://` URL given as a string; see
    /// ``connect(_:via:configuration:options:)``.
    ///
    /// ```swift
    /// let socket = try await WebSocket.connect(to: "wss://example.com/chat", subprotocols: ["chat.v1"],
    ///                                          headers: ["Authorization": "Bearer …"], options: options)
    /// ```
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidURL(_:)`` as well.
    public static func connect(to url: String, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) async throws -> WebSocket {
        let endpoint = try WebSocketEndpoint(parsing: url)
        return try await connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers),
                                 via: endpoint, configuration: configuration, options: options, system: .live)
    }

    static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
                        options: TransportOptions, system: SystemCalls) async throws -> WebSocket {
        let socket = try startClient(request, via: endpoint, configuration: configuration, options: options,
                                     consumer: .inbox(MessageInbox()), system: system)
        do {
            try await socket.wait { (waiter: Waiter<Void>) in
                if socket.handshakeResult != nil {
                    waiter.resume(.success(()))
                } else if let ending = socket.ending {
                    waiter.resume(.failure(ending.error))
                } else {
                    socket.openWaiters.append(waiter)
                }
            }
        } catch {
            socket.cancel()
            throw error
        }
        return socket
    }

    // MARK: Sending (async face)

    /// Queues a message, waiting first while ``bufferedAmount`` is at the high-water mark (until it
    /// falls to ``WebSocketTransport/TransportOptions/lowWaterMark``). Returns once the message is in the output buffer;
    /// the socket writes it from there. Messages from concurrent calls keep the order in which the
    /// calls reached the socket. ``WebSocketTransport/WebSocketMessage/ping(_:)`` sends a ping without waiting for its
    /// pong (``ping(_:timeout:)`` waits), ``WebSocketTransport/WebSocketMessage/close(_:)`` starts the closing handshake
    /// (``close(code:reason:)`` also waits for its end).
    ///
    /// Cancelling the calling task while it waits for room throws `CancellationError`, and the message
    /// is not sent; once queued, a message is sent whatever happens to the task.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection is not open;
    ///   ``WebSocketTransport/WebSocketError/closed(_:)`` when it ended while the message waited; `CancellationError`.
    public func send(_ message: WebSocketMessage) async throws {
        try await wait { [self] (waiter: Waiter<Void>) in
            if pendingSends.isEmpty {
                switch attempt({ (connection: inout Connection) throws(Connection.UsageError) in try connection.send(message) }) {
                case .queued:
                    waiter.resume(.success(()))
                    pump()
                    return
                case .failed(let error):
                    waiter.resume(.failure(error))
                    return
                case .bufferFull:
                    break
                }
            }
            awaitingDrain = true
            pendingSends.append(PendingSend(message: message, waiter: waiter))
        }
    }

    // MARK: Pings (both faces)

    /// Sends a ping and returns the round-trip time once its pong arrives (RFC 6455 §5.5.2): a pong
    /// with the same payload, or one answering a later ping (a peer may answer only the most recent,
    /// §5.5.3).
    ///
    /// - Parameters:
    ///   - payload: at most 125 bytes; by default a payload unique to this ping.
    ///   - timeout: how long to wait for the pong; `nil` waits until the connection ends. Default 20
    ///     seconds.
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.ping`) when no pong comes in time (the connection
    ///   goes on); ``WebSocketTransport/WebSocketError/closed(_:)`` when the connection ends first;
    ///   ``WebSocketTransport/WebSocketError/connection(_:)`` when it is not open; `CancellationError` (the ping is sent
    ///   already).
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    @discardableResult
    public func ping(_ payload: [UInt8]? = nil, timeout: Duration? = .seconds(20)) async throws -> Duration {
        try await wait { [self] (waiter: Waiter<Duration>) in
            startPing(payload, timeout: timeout) { result in waiter.resume(result.mapError { $0 }) }
        }
    }

    /// Sends a ping and calls `onPong` on the handler's queue (or, for a socket of the async face, on
    /// the socket's own queue) with the round-trip time once its pong arrives, or with why it did not:
    /// ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.ping`), ``WebSocketTransport/WebSocketError/closed(_:)``,
    /// ``WebSocketTransport/WebSocketError/connection(_:)``. The delegate-queue counterpart of ``ping(_:timeout:)``, like
    /// `URLSessionWebSocketTask.sendPing(pongReceiveHandler:)`.
    public func ping(_ payload: [UInt8]? = nil, timeout: Duration? = .seconds(20),
                     onPong: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) {
        queue.async { [self] in
            let delivery: DispatchQueue?
            if case .handler(let queue, _) = consumer { delivery = queue } else { delivery = nil }
            startPing(payload, timeout: timeout) { result in
                if let delivery { delivery.async { onPong(result) } } else { onPong(result) }
            }
        }
    }

    /// Sends a ping and registers `complete` for its pong (on the queue).
    private func startPing(_ payload: [UInt8]?, timeout: Duration?,
                           complete: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) {
        if let ending {
            complete(.failure(ending.error))
            return
        }
        let payload = payload ?? pendingPings.makePayload()
        switch attempt({ (connection: inout Connection) throws(Connection.UsageError) in try connection.ping(payload) }) {
        case .failed(let error):
            complete(.failure(error))
            return
        case .queued, .bufferFull:
            // Control frames are never refused for room.
            break
        }
        let id = pendingPings.add(payload: payload, sentAt: system.monotonicNow(), complete: complete)
        if let timeout {
            queue.asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) { [self] in pendingPings.timeOut(id) }
        }
        pump()
    }

    // MARK: Receiving (async face)

    /// The next message, waiting at most `timeout` (`nil`: until one comes); `nil` after a clean
    /// close. The same messages as ``messages``: one call or the other takes each.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.receive`) when none came in time: not fatal,
    ///   receive again; ``WebSocketTransport/WebSocketError/closed(_:)`` when the connection ended without a clean close;
    ///   ``WebSocketTransport/WebSocketError/eventHandlerInUse`` on a socket of the delegate-queue face;
    ///   `CancellationError` (no message is lost).
    public func receive(timeout: Duration?) async throws -> WebSocketMessage? {
        try await nextMessage(timeout: timeout)
    }

    /// The next message, waiting at most ``WebSocketTransport/TransportOptions/receiveTimeout``; see
    /// ``receive(timeout:)``.
    public func receive() async throws -> WebSocketMessage? {
        try await nextMessage(timeout: options.receiveTimeout)
    }

    func nextMessage(timeout: Duration?) async throws -> WebSocketMessage? {
        try await wait { [self] (waiter: Waiter<WebSocketMessage?>) in
            guard case .inbox(let inbox) = consumer else {
                waiter.resume(.failure(WebSocketError.eventHandlerInUse))
                return
            }
            if let message = inbox.pop() {
                waiter.resume(.success(message))
                pump()  // reading may resume
            } else if let ending {
                waiter.resume(messagesEnd(ending))
            } else {
                inbox.append(waiter: waiter)
                if let timeout {
                    queue.asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) { [self] in
                        waiter.resume(.failure(WebSocketError.timedOut(.receive)))
                        forgetFinishedWaiters()
                    }
                }
            }
        }
    }

    // MARK: Closing (async face)

    /// Starts the closing handshake (or joins one under way) and returns once it is over and the
    /// socket is closed, with how the connection ended: ``WebSocketCore/Connection/CloseStatus/wasClean`` is `false` when the
    /// peer did not answer within ``WebSocketCore/Connection/Timeouts/close`` or the connection was lost.
    ///
    /// Cancelling the calling task stops the wait (`CancellationError`); the close goes on.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` for an invalid code or reason, or before the
    ///   connection opened (use ``cancel()``); the connection's failure if it never opened;
    ///   `CancellationError`.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    @discardableResult
    public func close(code: Connection.CloseCode = .normalClosure, reason: String = "") async throws -> Connection.CloseStatus {
        try await wait { [self] (waiter: Waiter<Connection.CloseStatus>) in
            if let ending {
                switch ending {
                case .closed(let status): waiter.resume(.success(status))
                case .failed(let error): waiter.resume(.failure(error))
                }
                return
            }
            switch attempt({ (connection: inout Connection) throws(Connection.UsageError) in
                try connection.close(code: code, reason: reason)
            }) {
            case .queued, .bufferFull:
                break
            case .failed(let error):
                switch pipeline.connection.state {
                case .closing, .closed:
                    break  // a close is under way already: wait for it
                case .connecting, .open:
                    waiter.resume(.failure(error))
                    return
                }
            }
            closeWaiters.append(waiter)
            pump()
        }
    }
}
