// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// A WebSocket connection over a blocking socket: a client made by
/// ``connect(to:subprotocols:headers:configuration:options:)-(String,_,_,_,_)``, or a server-side connection handed
/// to the handler of ``BlockingWebSocketServer/serve(handshake:handler:)``.
///
/// ```swift
/// let socket = try BlockingWebSocket.connect(to: "ws://127.0.0.1:9001/chat")
/// try socket.send(text: "hello")
/// while let message = try socket.receive() {
///     if case .text(let text) = message { print(text) }
/// }
/// if let status = socket.closeStatus { print("closed:", status) }   // "1000 (normal closure)"
/// ```
///
/// All protocol behaviour comes from the ``WebSocketCore/Connection`` inside: this type moves bytes between it and
/// the socket, and reports the monotonic clock to its timers.
///
/// **Threads.** Any thread may send, ping or close, also while another thread is blocked in
/// ``receive()``; frames reach the wire in the order they were queued. One thread at a time
/// receives (a second `receive` waits for the first). Reading drives the connection: pongs to the
/// peer's pings, the reply to its Close, keepalive pings and the close timeout all happen while
/// some thread is in ``receive()`` or ``close(code:reason:)``, so a program that only sends should
/// still receive now and then.
///
/// **Ending.** ``receive()`` returns `nil` once the connection is closed and the socket too (a
/// client first waits for the server to close TCP, RFC 6455 §7.1.1); ``closeStatus`` then says how
/// it ended: the peer's code, or 1006 when the transport was lost (``WebSocketCore/Connection/CloseStatus/Failure/aborted``
/// when a socket call failed, and ``transportFailure`` says why).
/// ``close(code:reason:)`` runs the closing handshake from this side (``sendClose(code:reason:)``
/// starts it and lets ``receive()`` finish it). Dropping the last reference closes the socket
/// without a handshake.
///
/// The API has the shape of the non-blocking adapter's `WebSocket` (`WebSocketAsync`): the same
/// operations under the same names and parameter types, blocking where that one awaits.
public final class BlockingWebSocket: Sendable {
    let driver: ConnectionDriver

    /// What the opening handshake agreed on: subprotocol, extensions, the peer's headers, the resource.
    public let handshake: Connection.HandshakeResult

    /// The address of this end of the socket.
    public let localAddress: SocketAddress?

    /// The address of the peer (for a Unix socket client, the server's path): behind a load balancer,
    /// the balancer's; see ``clientAddress``.
    public let remoteAddress: SocketAddress?

    /// (A server's connection) The PROXY protocol header it began with
    /// (``WebSocketTransport/TransportOptions/proxyProtocol``), if one was read.
    public let proxyHeader: ProxyProtocolHeader?

    /// The client's address: the PROXY protocol header's source when a trusted proxy sent one with an
    /// address, otherwise ``remoteAddress``.
    public var clientAddress: SocketAddress? { proxyHeader?.source ?? remoteAddress }

    init(driver: ConnectionDriver, handshake: Connection.HandshakeResult) {
        self.driver = driver
        self.handshake = handshake
        localAddress = driver.socket.localAddress
        remoteAddress = driver.socket.peerAddress
        proxyHeader = driver.shared.withLock { $0.session.proxied }
    }

    /// The subprotocol the handshake chose, if any.
    public var subprotocol: String? { handshake.subprotocol }

    /// The connection's state.
    public var state: Connection.State { driver.state }

    /// How the connection ended; `nil` while it has not (as observed by ``receive()`` or
    /// ``close(code:reason:)``).
    public var closeStatus: Connection.CloseStatus? {
        if case .closed(let status)? = driver.ending { return status }
        return nil
    }

    /// The transport failure that ended the connection (a reset, a write timeout…), if one did.
    public var transportFailure: WebSocketError? { driver.transportFailure }

    /// The buffered amount at which sends are refused: the core's ``WebSocketCore/Connection/Limits/maxBufferedOutput``.
    public var highWaterMark: Int { driver.shared.withLock { $0.session.settings.highWaterMark } }

    /// The bytes queued for the peer and not yet written to the socket. Every send writes before it
    /// returns, so this is 0 but while another thread's send is writing.
    public var bufferedAmount: Int { driver.shared.withLock { $0.session.bufferedAmount } }

    // MARK: Sending

    /// Sends a text message, and returns once it is written to the socket.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection refuses it (closing,
    ///   closed), ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.write`) when the peer stops reading,
    ///   ``WebSocketTransport/WebSocketError/transport(_:)`` when the socket fails, the TLS layer's failure.
    ///
    /// RFC 6455 §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public func send(text: String) throws(WebSocketError) {
        try send(isData: true) { (connection) throws(Connection.UsageError) in try connection.send(text: text) }
    }

    /// Sends a message (whole, a fragment, a ping, a pong, or a Close frame that starts the closing
    /// handshake), and returns once it is written to the socket.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(_ message: WebSocketMessage) throws(WebSocketError) {
        try driver.perform { (session) throws(WebSocketError) in try session.send(message) }
        try driver.flush()
    }

    /// Sends a binary message, and returns once it is written to the socket.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(binary: some Collection<UInt8>) throws(WebSocketError) {
        try send(isData: true) { (connection) throws(Connection.UsageError) in try connection.send(binary: binary) }
    }

    /// Sends a message framed once for many connections (``WebSocketCore/Connection/PreparedMessage``),
    /// and returns once it is written to the socket.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        try driver.perform { (session) throws(WebSocketError) in try session.send(prepared) }
        try driver.flush()
    }

    /// Sends one fragment of a message you stream yourself: the first call starts a message of
    /// `kind`, the one with `isFinal` ends it; pings may go out in between.
    ///
    /// - Throws: as ``send(text:)``; ``WebSocketCore/Connection/UsageError/invalidUTF8`` and
    ///   ``WebSocketCore/Connection/UsageError/fragmentKindMismatch`` as ``WebSocketTransport/WebSocketError/connection(_:)``.
    ///
    /// RFC 6455 §5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-5.4>
    public func sendFragment(_ bytes: some Collection<UInt8>, kind: Connection.MessageKind, isFinal: Bool) throws(WebSocketError) {
        try send(isData: true) { (connection) throws(Connection.UsageError) in
            try connection.sendFragment(bytes, kind: kind, isFinal: isFinal)
        }
    }

    /// Sends a ping (at most 125 bytes) and returns once it is written; its pong is returned by
    /// ``receive()`` when ``WebSocketTransport/TransportOptions/receivesControlFrames`` is on. To wait
    /// for the pong, use ``ping(_:timeout:)``.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public func sendPing(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try send(isData: false) { (connection) throws(Connection.UsageError) in try connection.ping(payload) }
    }

    /// Sends an unsolicited pong (at most 125 bytes), or answers a ping yourself when automatic
    /// pongs are off.
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public func sendPong(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try send(isData: false) { (connection) throws(Connection.UsageError) in try connection.pong(payload) }
    }

    private func send(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void) throws(WebSocketError) {
        try driver.perform { (session) throws(WebSocketError) in try session.perform(isData: isData, body) }
        try driver.flush()
    }

    /// Sends a ping and returns the round-trip time once its pong arrives (RFC 6455 §5.5.2): a pong
    /// with the same payload, or one answering a later ping (a peer may answer only the most recent,
    /// §5.5.3). While it waits the connection is read (messages that arrive are kept for
    /// ``receive()``), unless another thread is in ``receive()``, which then carries the pong to it.
    ///
    /// - Parameters:
    ///   - payload: at most 125 bytes; by default a payload unique to this ping.
    ///   - timeout: how long to wait for the pong; `nil` waits until the connection ends. Default 20
    ///     seconds.
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.ping`) when no pong comes in
    ///   time (the connection goes on); ``WebSocketTransport/WebSocketError/closed(_:)`` when the
    ///   connection ends first; ``WebSocketTransport/WebSocketError/connection(_:)`` when it is not open.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    @discardableResult
    public func ping(_ payload: [UInt8]? = nil, timeout: Duration? = .seconds(20)) throws(WebSocketError) -> Duration {
        let answer = Locked<Result<Duration, WebSocketError>?>(nil)
        try driver.perform { (session) throws(WebSocketError) in
            session.ping(payload, timeout: timeout) { result in answer.withLock { $0 = result } }
        }
        try? driver.flush()
        while true {
            if let result = answer.withLock({ $0 }) { return try result.get() }
            // Read as the reader if no other thread is; otherwise the reader resumes the ping and
            // wakes us (checked again now and then, in case that thread stops reading).
            let pumped: Void? = driver.reader.tryWithLock { reader in
                while answer.withLock({ $0 }) == nil {
                    switch driver.pump(&reader, until: nil) {
                    case .message(let message): reader.kept.append(message)
                    case .socketClosed: return
                    case .opened, .decide, .resumed, .limitReached: continue
                    }
                }
            }
            if pumped == nil {
                let system = driver.system
                _ = driver.shared.wait(until: { _ in answer.withLock { $0 } != nil },
                                       deadline: system.monotonicNow() + .milliseconds(100), now: system.monotonicNow)
            }
        }
    }

    // MARK: Receiving

    /// The messages received, in order, as a sequence whose iteration blocks: it ends once the
    /// connection and its socket are closed, or when a receive fails (``closeStatus`` and
    /// ``transportFailure`` say how it ended). Each message goes to one `next()` call, as with
    /// ``receive()``; ``WebSocketTransport/TransportOptions/receiveTimeout`` does not apply (a timeout
    /// would end the sequence).
    ///
    /// ```swift
    /// for message in socket.messages {
    ///     if case .text(let text) = message { print(text) }
    /// }
    /// ```
    public var messages: Messages { Messages(socket: self) }

    /// The blocking sequence of a socket's messages; see ``BlockingWebSocket/messages``.
    public struct Messages: Sequence, Sendable {
        let socket: BlockingWebSocket

        /// An iterator over the socket's messages.
        public func makeIterator() -> Iterator { Iterator(socket: socket) }

        /// The iterator of ``BlockingWebSocket/Messages``.
        public struct Iterator: IteratorProtocol {
            let socket: BlockingWebSocket

            /// The next message, waiting for it; `nil` at the end.
            public mutating func next() -> WebSocketMessage? {
                (try? socket.receive(timeout: nil)) ?? nil
            }
        }
    }

    /// Waits for the next message, for at most ``WebSocketTransport/TransportOptions/receiveTimeout``; `nil` once the
    /// connection and its socket are closed (see ``closeStatus``).
    ///
    /// While it waits, the connection answers pings, replies to a Close, sends keepalive pings and
    /// runs its timers.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.receive`) when the timeout passes; the
    ///   connection is unharmed and a later call goes on where this one stopped.
    public func receive() throws(WebSocketError) -> WebSocketMessage? {
        try receive(timeout: driver.options.receiveTimeout)
    }

    /// Waits for the next message for at most `timeout` (`nil`: no limit); `nil` once the connection
    /// and its socket are closed.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.receive`) when the timeout passes first.
    public func receive(timeout: Duration?) throws(WebSocketError) -> WebSocketMessage? {
        let limit = timeout.map { driver.system.monotonicNow() + $0 }
        return try driver.reader.withLock { (reader) throws(WebSocketError) -> WebSocketMessage? in
            if !reader.kept.isEmpty { return reader.kept.removeFirst() }
            while true {
                switch driver.pump(&reader, until: limit) {
                case .message(let message): return message
                case .opened, .decide, .resumed: continue
                case .socketClosed: return nil
                case .limitReached: throw .timedOut(.receive)
                }
            }
        }
    }

    // MARK: Closing

    /// Closes the socket at once, without a closing handshake: the connection is aborted (1006), and
    /// a thread blocked in ``receive()`` returns `nil`. Does nothing once the connection has ended.
    /// Safe from any thread.
    public func cancel() {
        _ = try? driver.perform { (session) throws(WebSocketError) in session.cancel() }
        // Wakes a reader blocked in poll: the session's directive is now to close.
        driver.wake.signal()
        driver.reader.tryWithLock { reader in
            while case .message = driver.pump(&reader, until: nil) {}
        }
    }

    /// Runs the closing handshake and closes the socket, then returns how the connection ended.
    ///
    /// Sends a Close frame with `code` and `reason` (unless one was already sent, or the connection
    /// is already closed), then reads until the peer's Close arrives and, for a client, until the
    /// server closes the TCP connection (RFC 6455 §7.1.1), or until ``WebSocketCore/Connection/Timeouts/close`` runs out.
    /// Messages that arrive meanwhile are discarded: to read them, call ``sendClose(code:reason:)``
    /// and go on calling ``receive()`` until it returns `nil`. When another thread is in
    /// ``receive()``, `close` waits for it to return, then finishes the handshake itself.
    ///
    /// - Parameters:
    ///   - code: a code that may be sent (RFC 6455 §7.4). Default 1000.
    ///   - reason: at most 123 bytes of UTF-8.
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` for a code that may not be sent or a reason
    ///   too long; nothing is sent then.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    @discardableResult
    public func close(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) -> Connection.CloseStatus {
        try sendClose(code: code, reason: reason)
        driver.reader.withLock { reader in
            reader.kept = []
            while true {
                switch driver.pump(&reader, until: nil) {
                case .message, .opened, .decide, .resumed: continue
                case .socketClosed, .limitReached: return
                }
            }
        }
        return closeStatus ?? driver.shared.withLock { $0.session.pipeline.closeStatus }
    }

    /// Starts the closing handshake and returns at once: sends a Close frame with `code` and `reason`,
    /// unless one was already sent or the connection is already closed. ``receive()`` then returns
    /// the messages the peer sent before its Close, and `nil` once the handshake is over and the
    /// socket closed; a thread blocked in ``receive()`` is woken to carry the handshake on.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` for a code that may not be sent or a reason
    ///   too long; nothing is sent then.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    public func sendClose(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        try driver.perform { (session) throws(WebSocketError) in
            try session.close(code: code, reason: reason, completion: nil)
        }
        // A write failure is recorded and ends the connection, which the reader then reports.
        try? driver.flush()
    }
}
