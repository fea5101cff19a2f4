import WebSocketTransport

extension WebSocket {
    /// The messages received, in order, as an async sequence (the async face).
    ///
    /// ```swift
    /// for try await message in socket.messages {
    ///     switch message {
    ///     case .text(let text): print(text)
    ///     case .binary(let bytes): print(bytes.count, "bytes")
    ///     default: break   // fragments (Delivery.fragments), and control frames when asked for
    ///     }
    /// }
    /// ```
    ///
    /// The sequence ends (returns `nil`) after a clean closing handshake, and throws
    /// ``WebSocketTransport/WebSocketError/closed(_:)`` with the close status when the connection failed or was lost
    /// (1006, a protocol violation, a timeout). Messages that arrived before the end are yielded first.
    ///
    /// Messages the sequence holds and you have not taken count against
    /// ``WebSocketTransport/TransportOptions/maxUndeliveredBytes``: past it the socket stops reading, and TCP slows the
    /// peer down, until you take more.
    ///
    /// Cancelling a task waiting in `next()` makes that call throw `CancellationError`; no message is
    /// lost (it stays for the next call) and the connection stays open: close it or cancel it yourself.
    ///
    /// With ``WebSocketCore/Connection/Delivery/fragments`` it yields ``WebSocketTransport/WebSocketMessage/fragment(_:)`` pieces as they arrive;
    /// with ``WebSocketTransport/TransportOptions/receivesControlFrames`` also pings, pongs and the peer's Close frame.
    ///
    /// Only sockets of the async face have messages: from ``connect(to:subprotocols:headers:configuration:options:)``
    /// or a server's ``WebSocketServer/connections``. On a socket with an event handler, iterating throws
    /// ``WebSocketTransport/WebSocketError/eventHandlerInUse``.
    public var messages: Messages { Messages(socket: self) }

    /// The async sequence of a socket's messages; see ``WebSocket/messages``.
    public struct Messages: AsyncSequence, Sendable {
        /// Messages, as ``WebSocket/messages`` describes.
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
                try await socket.nextMessage(timeout: nil)
            }
        }
    }
}
