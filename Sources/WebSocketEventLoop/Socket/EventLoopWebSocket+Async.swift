#if os(Linux)
import WebSocketTransport

extension EventLoopWebSocket {
    // MARK: Receiving (async face)

    /// The connection's messages, for sockets of a server without an event handler (the async
    /// face): whole messages (or fragments, with ``WebSocketCore/Connection/Delivery/fragments``), and pings, pongs and the
    /// peer's Close frame when ``WebSocketTransport/TransportOptions/receivesControlFrames`` is on. The sequence ends
    /// after a clean close and throws ``WebSocketTransport/WebSocketError/closed(_:)`` when the connection ended
    /// otherwise.
    ///
    /// Messages cross from the loop in batches: one resumption of the reading task brings every
    /// message that one read parsed. Read it from one task at a time. While the messages taken from
    /// the loop and not yet read reach ``WebSocketTransport/TransportOptions/maxUndeliveredBytes``, the connection stops
    /// reading, and TCP slows the peer down.
    ///
    /// On a socket of a server with an event handler, the sequence throws
    /// ``WebSocketTransport/WebSocketError/eventHandlerInUse``.
    ///
    /// Cancelling a task waiting for the next message makes that call throw
    /// ``WebSocketTransport/WebSocketError/cancelled`` (at once, or when it would wait, for a task cancelled before);
    /// the connection stays open and no message is lost: the next call gets it.
    public var messages: Messages { Messages(socket: self) }

    /// The async sequence of a connection's messages; see ``EventLoopWebSocket/messages``.
    public struct Messages: AsyncSequence, Sendable {
        /// A text or binary message.
        public typealias Element = WebSocketMessage
        /// What iterating throws: ``WebSocketTransport/WebSocketError/cancelled`` for a cancelled task, or how the
        /// connection failed.
        public typealias Failure = WebSocketError
        let socket: EventLoopWebSocket

        /// An iterator over the connection's messages; iterators share them (each goes to one call).
        public func makeAsyncIterator() -> Iterator { Iterator(batches: socket.batches) }

        /// The iterator of ``EventLoopWebSocket/Messages``.
        public struct Iterator: AsyncIteratorProtocol {
            /// A text or binary message.
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
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(WebSocketError) -> WebSocketMessage? {
                try await next()
            }

            /// The next message; `nil` after a clean close.
            ///
            /// `nonisolated(nonsending)`: it runs where its caller runs (on the loop, for a task
            /// that prefers it) instead of switching executors at every call. Each switch asked the
            /// runtime for the task's preferred executor, under a lock: 8 such lookups per echoed
            /// message, more than the rest of the async face's cost.
            ///
            /// - Throws: ``WebSocketTransport/WebSocketError/cancelled`` when the task is cancelled (the connection stays
            ///   open, no message is lost), or how the connection failed.
            public nonisolated(nonsending) mutating func next() async throws(WebSocketError) -> WebSocketMessage? {
                if index < batch.count {
                    defer { index += 1 }
                    return batch[index]
                }
                guard let batches else { throw .eventHandlerInUse }
                batch = []
                index = 0
                switch await batches.take() {
                case .messages(let messages):
                    batch = messages
                    index = 1
                    return messages.first
                case .end(nil):
                    return nil
                case .end(let error?):
                    throw error
                case .cancelled:
                    throw .cancelled
                }
            }
        }
    }

    /// The batches of an async-face socket, `nil` for a handler's.
    var batches: MessageBatches? { shared.withLock { $0.batches } }

    // MARK: Sending (async face)

    /// Queues `message`, waiting first while the output buffer is at the high-water mark
    /// (``WebSocketCore/Connection/Limits/maxBufferedOutput``) until it falls to ``WebSocketTransport/TransportOptions/lowWaterMark``. Returns
    /// once the message is in the output buffer; it is written with everything else the connection
    /// sends in answer to the same read (or at the end of the loop's turn). From a task on the
    /// connection's loop (see ``executor``) nothing hops between threads.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection is not open (or the message is
    ///   invalid: a ping over 125 bytes…); ``WebSocketTransport/WebSocketError/closed(_:)`` when it ended first.
    ///
    /// It runs on its caller's executor (`nonisolated(nonsending)`): on the loop, no executor switch.
    public nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        if loop.inLoop, waitingSends.isEmpty {
            do throws(WebSocketError) {
                try sendNow(message)
                return
            } catch .bufferFull {
                // Wait for room below.
            }
        }
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Void, WebSocketError>, Never>) in
            if loop.inLoop {
                sendOrWait(message, continuation)
            } else {
                loop.execute { [self] in sendOrWait(message, continuation) }
            }
        }
        try result.get()
    }

    /// (On the loop) Sends `message` now if there is room and nobody waits, otherwise waits in line.
    private func sendOrWait(_ message: WebSocketMessage,
                            _ continuation: UnsafeContinuation<Result<Void, WebSocketError>, Never>) {
        if waitingSends.isEmpty || !message.isData {
            do throws(WebSocketError) {
                try sendNow(message)
                continuation.resume(returning: .success(()))
                return
            } catch .bufferFull {
                // Waits below.
            } catch {
                continuation.resume(returning: .failure(error))
                return
            }
        }
        awaitingDrain = true
        waitingSends.append((message, continuation))
    }

    /// Starts the closing handshake (unless it has started) and returns how the connection ended,
    /// once its socket is closed.
    @discardableResult
    public nonisolated(nonsending) func close(code: Connection.CloseCode = .normalClosure, reason: String = "") async -> Connection.CloseStatus {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Connection.CloseStatus, Never>) in
            let start: @Sendable () -> Void = { [self] in
                if case .finished(let status) = phase {
                    continuation.resume(returning: status)
                    return
                }
                closeWaiters.append(continuation)
                try? sendNow(.close(Connection.CloseFrame(code: code, reason: reason)))
                markDirty()
            }
            if loop.inLoop { start() } else { loop.execute(start) }
        }
    }
}
#endif
