// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension WebSocket {
    // MARK: Connecting (async face)

    /// Connects with every option of the opening handshake request and returns once the handshake
    /// (TLS first, for `wss`) has succeeded; read messages with ``messages`` or
    /// ``receive(timeout:)``. See ``connect(_:via:configuration:options:queue:handler:)`` for what
    /// connecting does.
    ///
    /// Cancelling the calling task closes the socket and throws ``WebSocketTransport/WebSocketError/cancelled``.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError``: `.connectFailed`, `.timedOut(.connect)`, `.tls`,
    ///   `.handshakeFailed` (a refusal carries the server's status, headers and body), `.cancelled`…
    ///
    /// RFC 6455 §4.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.1>
    public static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint? = nil,
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) async throws(WebSocketError) -> WebSocket {
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
                               options: TransportOptions = TransportOptions()) async throws(WebSocketError) -> WebSocket {
        try await connect(to: WebSocketEndpoint(parsing: url), subprotocols: subprotocols, headers: headers,
                          configuration: configuration, options: options)
    }

    /// Connects to an endpoint (a TCP URL or a Unix domain socket); see
    /// ``connect(_:via:configuration:options:)``.
    public static func connect(to endpoint: WebSocketEndpoint, subprotocols: [String] = [], headers: Connection.HTTPHeaders = [:],
                               configuration: Connection.Configuration = Connection.Configuration(),
                               options: TransportOptions = TransportOptions()) async throws(WebSocketError) -> WebSocket {
        try await connect(Connection.ClientOptions(url: endpoint.url, subprotocols: subprotocols, headers: headers),
                          via: endpoint, configuration: configuration, options: options, system: .live)
    }

    static func connect(_ request: Connection.ClientOptions, via endpoint: WebSocketEndpoint, configuration: Connection.Configuration,
                        options: TransportOptions, system: SystemCalls, loop: EventLoop? = nil) async throws(WebSocketError) -> WebSocket {
        let socket = try startClient(request, via: endpoint, configuration: configuration, options: options,
                                     consumer: .pending, system: system, loop: loop)
        let result = await withTaskCancellationHandler {
            await socket.waitUntilOpen()
        } onCancel: {
            socket.cancel()
        }
        try result.get()
        return socket
    }

    /// (Client) Waits until the connection has opened (or opened and ended since: its messages are
    /// still to be read), or for why it never did. The waiter is queued on the loop and resumed from
    /// the session's actions, which are pulled at once: the connection may have opened (or ended, after
    /// which no input would pull them) before the wait reached the loop.
    nonisolated(nonsending) func waitUntilOpen() async -> Result<Void, WebSocketError> {
        await awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            socket.peek { $0.waitForOpening(completion) }
            socket.act()
            return nil
        }
    }

    // MARK: Receiving (async face)

    /// The connection's messages, for sockets of the async face (from the async `connect`, or a
    /// server's ``WebSocketServer/connections``): whole messages (or fragments, with
    /// ``WebSocketCore/Connection/Delivery/fragments``), and pings, pongs and the peer's Close frame
    /// when ``WebSocketTransport/TransportOptions/receivesControlFrames`` is on.
    ///
    /// ```swift
    /// for try await message in socket.messages {
    ///     if case .text(let text) = message { print(text) }
    /// }
    /// ```
    ///
    /// The sequence ends after a clean close and throws ``WebSocketTransport/WebSocketError/closed(_:)``
    /// when the connection ended otherwise; messages that arrived before the end come first.
    ///
    /// Messages cross from the loop in batches: one resumption of the reading task brings every
    /// message that one read parsed. Read from one task at a time. While the messages taken from the
    /// loop and not yet read reach ``WebSocketTransport/TransportOptions/maxUndeliveredBytes``, the
    /// socket stops reading, and TCP slows the peer down.
    ///
    /// Cancelling a task waiting for the next message makes that call throw
    /// ``WebSocketTransport/WebSocketError/cancelled``; the connection stays open and no message is
    /// lost: the next call gets it. On a socket of a handler face, iterating throws
    /// ``WebSocketTransport/WebSocketError/eventHandlerInUse``.
    public var messages: Messages { Messages(socket: self) }

    /// The async sequence of a socket's messages; see ``WebSocket/messages``.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = WebSocketMessage
        /// What iterating throws.
        public typealias Failure = WebSocketError
        let socket: WebSocket

        /// An iterator over the socket's messages; iterators share them (each goes to one call).
        public func makeAsyncIterator() -> Iterator { Iterator(batches: socket.asyncBatches) }

        /// The iterator of ``WebSocket/Messages``.
        public struct Iterator: AsyncIteratorProtocol {
            /// A message.
            public typealias Element = WebSocketMessage
            /// What ``next()`` throws.
            public typealias Failure = WebSocketError
            let batches: MessageBatches?
            private var batch: [WebSocketMessage] = []
            private var index = 0

            init(batches: MessageBatches?) {
                self.batches = batches
            }

            /// The next message, as ``next()`` (what `for try await` calls).
            ///
            /// `nonisolated(nonsending)`, where the protocol's requirement takes `actor` as an
            /// `isolated` parameter: the loop passes its own isolation (`#isolation`), which this
            /// runs on either way, and an `isolated` parameter cost an executor switch per call on
            /// entry (the runtime's check under the task's lock, about 320 instructions per message;
            /// `Benchmarks/callgrind.sh task-resume` counts the runtime's share of a wait).
            public nonisolated(nonsending) mutating func next(isolation actor: (any Actor)?) async throws(WebSocketError) -> WebSocketMessage? {
                try await next()
            }

            /// The next message; `nil` after a clean close.
            ///
            /// `nonisolated(nonsending)`: it runs where its caller runs (on the loop, for a task
            /// that prefers it) instead of switching executors at every call.
            ///
            /// - Throws: ``WebSocketTransport/WebSocketError/cancelled`` when the task is cancelled (the
            ///   connection stays open, no message is lost), or how the connection failed.
            public nonisolated(nonsending) mutating func next() async throws(WebSocketError) -> WebSocketMessage? {
                if index < batch.count {
                    defer { index += 1 }
                    return batch[index]
                }
                let received: WebSocket.Received?
                if batch.capacity == 0 {
                    // Nothing to hand back: the last take brought one message alone.
                    received = try await WebSocket.take(from: batches, all: true, timeout: nil)
                } else {
                    // The batch read goes back as room for a later one (the messages the caller
                    // kept are its own copies).
                    var drained: [WebSocketMessage] = []
                    swap(&drained, &batch)
                    drained.emptyKeepingCapacity()
                    index = 0
                    received = try await WebSocket.take(from: batches, all: true, timeout: nil, recycling: drained)
                }
                switch consume received {
                case .message(let message)?:
                    return message
                case .messages(let messages)?:
                    batch = messages
                    index = 1
                    return messages.first
                case nil:
                    return nil
                }
            }
        }
    }

    /// The next message, waiting at most `timeout` (`nil`: until one comes); `nil` after a clean
    /// close. The same messages as ``messages``: one call or the other takes each.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.receive`) when none came in
    ///   time: not fatal, receive again; ``WebSocketTransport/WebSocketError/closed(_:)`` when the
    ///   connection ended without a clean close; ``WebSocketTransport/WebSocketError/cancelled`` (no
    ///   message is lost); ``WebSocketTransport/WebSocketError/eventHandlerInUse`` on a socket of a
    ///   handler face.
    public nonisolated(nonsending) func receive(timeout: Duration?) async throws(WebSocketError) -> WebSocketMessage? {
        switch try await Self.take(from: asyncBatches, all: false, timeout: timeout) {
        case .message(let message)?: return message
        // A take of one brings one message alone; the case is there for the type.
        case .messages(let messages)?: return messages.first
        case nil: return nil
        }
    }

    /// The next message, waiting at most ``WebSocketTransport/TransportOptions/receiveTimeout``; see
    /// ``receive(timeout:)``.
    public nonisolated(nonsending) func receive() async throws(WebSocketError) -> WebSocketMessage? {
        try await receive(timeout: options.receiveTimeout)
    }

    /// Messages from the async face's batches: one alone, or two or more; `nil` at a clean end.
    enum Received {
        case message(WebSocketMessage)
        case messages([WebSocketMessage])
    }

    /// Messages from the async face's batches: `nil` at a clean end.
    @inline(__always)
    nonisolated(nonsending) static func take(from batches: MessageBatches?, all: Bool, timeout: Duration?,
                                             recycling: consuming [WebSocketMessage] = []) async throws(WebSocketError)
        -> Received?
    {
        guard let batches else { throw .eventHandlerInUse }
        let taken = await batches.take(all: all, timeout: timeout, recycling: recycling)
        // Consumed, not copied: the message moves on with no retain of its own.
        switch consume taken {
        case .message(let message): return .message(message)
        case .messages(let messages): return .messages(messages)
        case .end(nil): return nil
        case .end(let error?): throw error
        case .cancelled: throw .cancelled
        case .timedOut: throw .timedOut(.receive)
        }
    }

    /// The async face's batches, `nil` for a handler face's socket. Set once, before the socket is
    /// handed out.
    var asyncBatches: MessageBatches? { shared.withLock { $0.batches } }

    /// Makes the async face's batches this socket's consumer (before the socket is handed out).
    func attachBatches() -> Consumer {
        let batches = MessageBatches(socket: self)
        shared.withLock { $0.batches = batches }
        return .batches(batches)
    }

    // MARK: Sending (async face)

    /// Queues `message`, waiting first while ``bufferedAmount`` is at the high-water mark
    /// (``WebSocketCore/Connection/Limits/maxBufferedOutput``) until it falls to
    /// ``WebSocketTransport/TransportOptions/lowWaterMark``. Returns once the message is in the output
    /// buffer, in the order the calls reached the loop. ``WebSocketTransport/WebSocketMessage/ping(_:)``
    /// sends a ping without waiting for its pong (``ping(_:timeout:)`` waits);
    /// ``WebSocketTransport/WebSocketMessage/close(_:)`` starts the closing handshake
    /// (``close(code:reason:)`` also waits for its end).
    ///
    /// It runs on its caller's executor (`nonisolated(nonsending)`): on the loop, no executor switch.
    ///
    /// Cancelling the calling task while the message waits for room throws
    /// ``WebSocketTransport/WebSocketError/cancelled``, and the message is not sent; once queued, it is
    /// sent whatever happens to the task.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection refuses it (not
    ///   open, a ping over 125 bytes…); ``WebSocketTransport/WebSocketError/closed(_:)`` when it ended
    ///   while the message waited; ``WebSocketTransport/WebSocketError/cancelled``.
    public nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        if loop.inLoop, !peek({ $0.hasPendingSends }) {
            do throws(WebSocketError) {
                try sendNow(.message(message))
                return
            } catch .bufferFull {
                // Wait for room below.
            }
        }
        try await awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            // Queued or refused at once: the resumption is queued as an action, which a flush does
            // not run once the socket has ended.
            defer { socket.act() }
            if socket.startsClosing(message) { socket.shared.withLock { $0.closeStartedHere = true } }
            socket.markDirty()
            return socket.peek { $0.sendOrWait(.message(message), completion: completion) }
        }.get()
    }

    // MARK: Pings (every face)

    /// Sends a ping and returns the round-trip time once its pong arrives (RFC 6455 §5.5.2): a pong
    /// with the same payload, or one answering a later ping (a peer may answer only the most recent,
    /// §5.5.3).
    ///
    /// - Parameters:
    ///   - payload: at most 125 bytes; by default a payload unique to this ping.
    ///   - timeout: how long to wait for the pong; `nil` waits until the connection ends. Default 20
    ///     seconds.
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.ping`) when no pong comes in
    ///   time (the connection goes on); ``WebSocketTransport/WebSocketError/closed(_:)`` when the
    ///   connection ends first; ``WebSocketTransport/WebSocketError/connection(_:)`` when it is not open;
    ///   ``WebSocketTransport/WebSocketError/cancelled`` when the calling task is cancelled (the ping
    ///   is sent already).
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    @discardableResult
    public nonisolated(nonsending) func ping(_ payload: [UInt8]? = nil, timeout: Duration? = .seconds(20)) async throws(WebSocketError)
        -> Duration
    {
        try await awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Duration>) -> UInt64? in
            socket.startPing(payload, timeout: timeout, completion: completion)
            return nil
        }.get()
    }

    /// Sends a ping and calls `onPong` with the round-trip time once its pong arrives, or with why
    /// it did not (see ``ping(_:timeout:)``): on the handler's queue for the queue face, on the
    /// socket's loop otherwise. The handler faces' counterpart of ``ping(_:timeout:)``, like
    /// `URLSessionWebSocketTask.sendPing(pongReceiveHandler:)`.
    public func ping(_ payload: [UInt8]? = nil, timeout: Duration? = .seconds(20),
                     onPong: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) {
        if loop.inLoop {
            sendOutboxFirst()
            queuePing(payload, timeout: timeout, onPong: onPong)
        } else {
            submitPing(payload, timeout: timeout, onPong: onPong)
        }
    }

    /// (On the loop) Sends a ping whose answer goes to `onPong`: through the mailbox for the queue
    /// face (in order with the events around it), on the loop otherwise. Delivers nothing: the
    /// answer is an action, pulled with the others.
    func queuePing(_ payload: [UInt8]?, timeout: Duration?, onPong: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) {
        let completion: SessionCompletion<Duration>
        if queueFace != nil {
            // Through the mailbox: in order with the events around it, also after the last one.
            completion = { [self] result in
                queueBatch.append(.call { onPong(result) })
                markDirty()
            }
        } else {
            completion = onPong
        }
        peek { $0.advanceTime(to: loop.now) }
        peek { $0.ping(payload, timeout: timeout, completion: completion) }
        markDirty()
    }

    /// (On the loop) Sends an awaited ping.
    private func startPing(_ payload: [UInt8]?, timeout: Duration?, completion: @escaping SessionCompletion<Duration>) {
        peek { $0.advanceTime(to: loop.now) }
        peek { $0.ping(payload, timeout: timeout, completion: completion) }
        act()
        markDirty()
    }

    // MARK: Closing (async face)

    /// Starts the closing handshake (or joins one under way) and returns once it is over and the
    /// socket is closed, with how the connection ended: ``WebSocketCore/Connection/CloseStatus/wasClean``
    /// is `false` when the peer did not answer within ``WebSocketCore/Connection/Timeouts/close`` or
    /// the connection was lost.
    ///
    /// Cancelling the calling task stops the wait (``WebSocketTransport/WebSocketError/cancelled``);
    /// the close goes on.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` for an invalid code or reason, or
    ///   before the connection opened (use ``cancel()``); how the connection failed if it never opened;
    ///   ``WebSocketTransport/WebSocketError/cancelled``.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    @discardableResult
    public nonisolated(nonsending) func close(code: Connection.CloseCode = .normalClosure, reason: String = "") async throws(WebSocketError)
        -> Connection.CloseStatus
    {
        try await awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Connection.CloseStatus>) -> UInt64? in
            socket.peek { $0.advanceTime(to: socket.loop.now) }
            let wasOpen = socket.peek { $0.pipeline.connection.isOpen }
            do throws(WebSocketError) {
                try socket.session.close(code: code, reason: reason, completion: completion)
            } catch {
                completion(.failure(error))
                return nil
            }
            if wasOpen { socket.shared.withLock { $0.closeStartedHere = true } }
            socket.act()
            socket.markDirty()
            return nil
        }.get()
    }

    // MARK: Waiting for the loop

    /// Runs `start` on the loop with a completion that resumes the caller, and waits for it, or for
    /// the task's cancellation (``WebSocketTransport/WebSocketError/cancelled``). `start` returns the
    /// identifier of a send it left waiting for room, which a cancellation gives up.
    nonisolated(nonsending) func awaitLoop<Value: Sendable>(
        _ start: @escaping @Sendable (WebSocket, @escaping SessionCompletion<Value>) -> UInt64?
    ) async -> Result<Value, WebSocketError> {
        let wait = LoopWait<Value>()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Value, WebSocketError>, Never>) in
                guard wait.store(continuation) else { return }
                let body: @Sendable () -> Void = { [self] in
                    guard !wait.hasEnded else { return }
                    // What other threads sent before this call returned goes first (a close or a
                    // send from a task on the loop would otherwise overtake it).
                    sendOutboxFirst()
                    wait.pendingSend = start(self) { wait.end($0) }
                }
                if loop.inLoop { body() } else { loop.execute(body) }
            }
        } onCancel: {
            wait.end(.failure(.cancelled))
            loop.execute { [self] in
                guard let id = wait.pendingSend else { return }
                peek { $0.cancelPendingSend(id) }
                act()
            }
        }
    }
}

/// One wait of a task for the loop, ended once: by the loop's completion or by the task's
/// cancellation, whichever comes first (the other finds it ended).
final class LoopWait<Value: Sendable>: @unchecked Sendable {
    private struct State {
        var continuation: UnsafeContinuation<Result<Value, WebSocketError>, Never>? = nil
        /// The outcome, once the wait ended (possibly before the continuation was stored).
        var outcome: Result<Value, WebSocketError>? = nil
    }
    private let state = Locked(State())
    /// (On the loop) The send the wait left waiting for room, if any.
    nonisolated(unsafe) var pendingSend: UInt64?

    /// Stores the continuation; `false` (and resumed) when the wait ended already.
    func store(_ continuation: UnsafeContinuation<Result<Value, WebSocketError>, Never>) -> Bool {
        let ended = state.withLock { state -> Result<Value, WebSocketError>? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        guard let ended else { return true }
        continuation.resume(returning: ended)
        return false
    }

    var hasEnded: Bool { state.withLock { $0.outcome != nil } }

    /// Ends the wait with `outcome`, unless it ended already.
    func end(_ outcome: Result<Value, WebSocketError>) {
        let continuation = state.withLock { state -> UnsafeContinuation<Result<Value, WebSocketError>, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }
}
