// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension ReconnectingWebSocket {
    /// What a ``ReconnectingWebSocket`` reports, in order: for each try `connecting`, then `opened`
    /// or `failed`; after `opened`, `closed`. A `failed` or `closed` with no retry is the last event.
    ///
    /// ```swift
    /// for await event in client.events {
    ///     if case .closed(let status, let retry?) = event { print("closed \(status); again in \(retry)") }
    /// }
    /// ```
    public enum Event: Sendable {
        /// A try starts: `attempt` is 0 for the client's first connection, then the number of the
        /// reconnect attempt in the current series (1, 2, …; what ``Policy/maxAttempts`` limits).
        case connecting(attempt: Int)
        /// The try succeeded: the connection is open. Read its messages and send on it; the client
        /// waits for its end in the next call to `next()`.
        case opened(WebSocket)
        /// The try failed before the connection opened, with why, and how long the client waits
        /// before the next try (`nil`: none follows, this is the last event). A try cancelled by
        /// ``ReconnectingWebSocket/stop(code:reason:)`` fails with ``WebSocketTransport/WebSocketError/cancelled``.
        case failed(WebSocketError, willRetryIn: Duration?)
        /// The open connection ended, with how (the peer's code and reason, or why it was lost), and
        /// how long the client waits before the next try (`nil`: none follows, this is the last
        /// event).
        case closed(Connection.CloseStatus, willRetryIn: Duration?)
    }

    /// Every attempt, opening and closing, as they happen; the sequence ends after the last one (the
    /// client gave up or was stopped). Iterating it drives the client: see ``ReconnectingWebSocket``.
    ///
    /// ```swift
    /// for await event in client.events { log(event) }
    /// ```
    public var events: Events { Events(client: self) }

    /// The open connections, one after another, like `async for websocket in connect(...)` in
    /// Python: each try's and each ending's details are left out (iterate ``events`` to see them).
    ///
    /// ```swift
    /// for try await socket in client.sockets {
    ///     do { for try await message in socket.messages { print(message) } } catch {}
    /// }
    /// ```
    ///
    /// The sequence ends when the client is stopped, or when a connection ends in a way not worth
    /// reconnecting (a normal close, a protocol error, a close this side started). It throws when
    /// the client gives up on a failure: the error of a try that cannot succeed (a 4xx answer, a TLS
    /// failure…), or the last one once ``Policy/maxAttempts`` is spent (for a connection that ended,
    /// ``WebSocketTransport/WebSocketError/closed(_:)`` with its status).
    public var sockets: Sockets { Sockets(client: self) }

    /// The async sequence of a client's events; see ``ReconnectingWebSocket/events``.
    public struct Events: AsyncSequence, Sendable {
        /// An event.
        public typealias Element = Event
        /// Iterating never throws.
        public typealias Failure = Never
        let client: ReconnectingWebSocket

        /// An iterator that drives the client.
        public func makeAsyncIterator() -> Iterator { Iterator(client: client) }

        /// The iterator of ``ReconnectingWebSocket/Events``.
        public struct Iterator: AsyncIteratorProtocol {
            /// An event.
            public typealias Element = Event
            /// Iterating never throws.
            public typealias Failure = Never
            let client: ReconnectingWebSocket

            /// The next event, as ``next()`` (what `for await` calls).
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Event? {
                await client.nextEvent()
            }

            /// The next event, after taking the client's next step (a try, the wait for the end of
            /// the open connection, the wait before the next try); `nil` once the client gave up or
            /// was stopped.
            public mutating func next() async -> Event? {
                await client.nextEvent()
            }
        }
    }

    /// The async sequence of a client's open connections; see ``ReconnectingWebSocket/sockets``.
    public struct Sockets: AsyncSequence, Sendable {
        /// An open connection.
        public typealias Element = WebSocket
        /// What iterating throws.
        public typealias Failure = WebSocketError
        let client: ReconnectingWebSocket

        /// An iterator that drives the client.
        public func makeAsyncIterator() -> Iterator { Iterator(client: client) }

        /// The iterator of ``ReconnectingWebSocket/Sockets``.
        public struct Iterator: AsyncIteratorProtocol {
            /// An open connection.
            public typealias Element = WebSocket
            /// What ``next()`` throws.
            public typealias Failure = WebSocketError
            let client: ReconnectingWebSocket

            /// The next open connection, as ``next()`` (what `for try await` calls).
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(WebSocketError) -> WebSocket? {
                try await client.nextSocket()
            }

            /// The next open connection, once the current one has ended and a try succeeded; `nil`
            /// once the client was stopped or the last connection ended for good.
            ///
            /// - Throws: why the client gave up (see ``ReconnectingWebSocket/sockets``).
            public mutating func next() async throws(WebSocketError) -> WebSocket? {
                try await client.nextSocket()
            }
        }
    }

    /// Steps until a connection opens; `nil` at a normal end, the failure the client gave up on
    /// otherwise.
    func nextSocket() async throws(WebSocketError) -> WebSocket? {
        while let event = await nextEvent() {
            if case .opened(let socket) = event { return socket }
        }
        if let error = state.withLock({ $0.gaveUpOn }) { throw error }
        return nil
    }
}
