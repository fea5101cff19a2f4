import WebSocketCore

extension WebSocket {
    /// The messages received, in order, as an async sequence (the async face).
    ///
    /// ```swift
    /// for try await message in socket.messages {
    ///     switch message {
    ///     case .text(let text): print(text)
    ///     case .binary(let bytes): print(bytes.count, "bytes")
    ///     }
    /// }
    /// ```
    ///
    /// The sequence ends (returns `nil`) after a clean closing handshake, and throws
    /// ``WebSocketError/closed(_:)`` with the close status when the connection failed or was lost
    /// (1006, a protocol violation, a timeout). Messages that arrived before the end are yielded first.
    ///
    /// Messages the sequence holds and you have not taken count against
    /// ``TransportOptions/maxUndeliveredBytes``: past it the socket stops reading, and TCP slows the
    /// peer down, until you take more.
    ///
    /// Cancelling a task waiting in `next()` makes that call throw `CancellationError`; no message is
    /// lost (it stays for the next call) and the connection stays open: close it or cancel it yourself.
    ///
    /// Only sockets of the async face have messages: from ``connect(_:configuration:options:)`` or a
    /// server's ``WebSocketServer/connections``. On a socket with an event handler, iterating throws
    /// ``WebSocketError/eventHandlerInUse``.
    public var messages: Messages { Messages(socket: self) }

    /// The async sequence of a socket's messages; see ``WebSocket/messages``.
    public struct Messages: AsyncSequence, Sendable {
        /// Whole text and binary messages.
        public typealias Element = WebSocketMessage
        let socket: WebSocket

        /// An iterator over the socket's messages. Iterators share the socket's messages: each message
        /// goes to one `next()` call, in the order the calls were made.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// The iterator of ``WebSocket/Messages``.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message; `nil` after a clean close.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.nextMessage()
            }
        }
    }

    func nextMessage() async throws -> WebSocketMessage? {
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
            }
        }
    }
}
