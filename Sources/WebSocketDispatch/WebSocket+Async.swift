import Dispatch
import WebSocketCore

extension WebSocket {
    // MARK: Connecting (async face)

    /// Connects to a `ws://` URL and returns once the opening handshake has succeeded; read messages
    /// with ``messages``.
    ///
    /// Cancelling the calling task closes the socket and throws `CancellationError`.
    ///
    /// - Throws: ``WebSocketError``: ``WebSocketError/connectFailed(_:)``,
    ///   ``WebSocketError/connectTimedOut``, ``WebSocketError/handshakeFailed(_:)`` (a refusal carries the
    ///   server's status, headers and body)…; ``WebSocketError/fragmentDeliveryUnsupported`` when
    ///   `configuration.delivery` is ``Delivery/fragments``; `CancellationError`.
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(_ request: ClientOptions, configuration: Configuration = Configuration(),
                               options: TransportOptions = TransportOptions()) async throws -> WebSocket {
        guard configuration.delivery == .messages else { throw WebSocketError.fragmentDeliveryUnsupported }
        let socket = try startClient(request, configuration: configuration, options: options,
                                     consumer: .inbox(MessageInbox()))
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

    /// Connects to a `ws://` URL given as a string; see ``connect(_:configuration:options:)``.
    public static func connect(to url: String, subprotocols: [String] = [], configuration: Configuration = Configuration(),
                               options: TransportOptions = TransportOptions()) async throws -> WebSocket {
        try await connect(ClientOptions(url: parse(url), subprotocols: subprotocols), configuration: configuration,
                          options: options)
    }

    // MARK: Sending (async face)

    /// Queues a message, waiting first while ``bufferedAmount`` is at the high-water mark (until it
    /// falls to ``TransportOptions/lowWaterMark``). Returns once the message is in the output buffer;
    /// the socket writes it from there. Messages from concurrent calls keep the order in which the
    /// calls reached the socket.
    ///
    /// Cancelling the calling task while it waits for room throws `CancellationError`, and the message
    /// is not sent; once queued, a message is sent whatever happens to the task.
    ///
    /// This is the waiting counterpart of the synchronous ``send(text:)`` and ``send(binary:)``, which
    /// throw ``WebSocketError/bufferFull(bufferedAmount:)`` instead of waiting.
    ///
    /// - Throws: ``WebSocketError/connection(_:)`` when the connection is not open;
    ///   ``WebSocketError/closed(_:)`` when it ended while the message waited; `CancellationError`.
    public func send(_ message: WebSocketMessage) async throws {
        try await wait { [self] (waiter: Waiter<Void>) in
            if pendingSends.isEmpty {
                switch attempt({ (connection: inout Connection) throws(ConnectionError) in try connection.send(message) }) {
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

    // MARK: Closing (async face)

    /// Starts the closing handshake (or joins one under way) and returns once it is over and the
    /// socket is closed, with how the connection ended: ``CloseStatus/wasClean`` is `false` when the
    /// peer did not answer within ``Timeouts/close`` or the connection was lost.
    ///
    /// Cancelling the calling task stops the wait (`CancellationError`); the close goes on.
    ///
    /// - Throws: ``WebSocketError/connection(_:)`` for an invalid code or reason, or before the
    ///   connection opened (use ``cancel()``); the connection's failure if it never opened;
    ///   `CancellationError`.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    @discardableResult
    public func close(code: CloseCode = .normalClosure, reason: String = "") async throws -> CloseStatus {
        try await wait { [self] (waiter: Waiter<CloseStatus>) in
            if let ending {
                switch ending {
                case .closed(let status): waiter.resume(.success(status))
                case .failed(let error): waiter.resume(.failure(error))
                }
                return
            }
            switch attempt({ (connection: inout Connection) throws(ConnectionError) in
                try connection.close(code: code, reason: reason)
            }) {
            case .queued, .bufferFull:
                break
            case .failed(let error):
                switch connection.state {
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
