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
public final class BlockingWebSocket: Sendable {
    let driver: ConnectionDriver

    /// What the opening handshake agreed on: subprotocol, extensions, the peer's headers, the resource.
    public let handshake: Connection.HandshakeResult

    /// The address of this end of the socket.
    public let localAddress: SocketAddress?

    /// The address of the peer (for a Unix socket client, the server's path).
    public let remoteAddress: SocketAddress?

    init(driver: ConnectionDriver, handshake: Connection.HandshakeResult) {
        self.driver = driver
        self.handshake = handshake
        localAddress = driver.socket.localAddress
        remoteAddress = driver.socket.peerAddress
    }

    /// The subprotocol the handshake chose, if any.
    public var subprotocol: String? { handshake.subprotocol }

    /// The connection's state.
    public var state: Connection.State { driver.state }

    /// How the connection ended; `nil` while it has not (as observed by ``receive()`` or
    /// ``close(code:reason:)``).
    public var closeStatus: Connection.CloseStatus? { driver.closeStatus }

    /// The transport failure that ended the connection (a reset, a write timeout…), if one did.
    public var transportFailure: WebSocketError? { driver.transportFailure }

    // MARK: Sending

    /// Sends a text message, and returns once it is written to the socket.
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)`` when the connection refuses it (closing,
    ///   closed), ``WebSocketTransport/WebSocketError/timedOut(_:)`` (`.write`) when the peer stops reading,
    ///   ``WebSocketTransport/WebSocketError/transport(_:)`` when the socket fails, the TLS layer's failure.
    ///
    /// RFC 6455 §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public func send(text: String) throws(WebSocketError) {
        try driver.perform { (connection) throws(Connection.UsageError) in try connection.send(text: text) }
        try driver.flush()
    }

    /// Sends a message (whole, a fragment, a ping, a pong, or a Close frame that starts the closing
    /// handshake), and returns once it is written to the socket.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(_ message: WebSocketMessage) throws(WebSocketError) {
        try driver.perform { (connection) throws(Connection.UsageError) in try connection.send(message) }
        try driver.flush()
    }

    /// Sends a binary message, and returns once it is written to the socket.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(binary: some Collection<UInt8>) throws(WebSocketError) {
        try driver.perform { (connection) throws(Connection.UsageError) in try connection.send(binary: binary) }
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
        try driver.perform { (connection) throws(Connection.UsageError) in
            try connection.sendFragment(bytes, kind: kind, isFinal: isFinal)
        }
        try driver.flush()
    }

    /// Sends a ping (at most 125 bytes). Its pong is returned by ``receive()`` when
    /// ``WebSocketTransport/TransportOptions/receivesControlFrames`` is on.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public func ping(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try driver.perform { (connection) throws(Connection.UsageError) in try connection.ping(payload) }
        try driver.flush()
    }

    /// Sends an unsolicited pong (at most 125 bytes), or answers a ping yourself when automatic
    /// pongs are off.
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public func pong(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try driver.perform { (connection) throws(Connection.UsageError) in try connection.pong(payload) }
        try driver.flush()
    }

    // MARK: Receiving

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
        let receivesControlFrames = driver.options.receivesControlFrames
        return try driver.reader.withLock { (reader) throws(WebSocketError) -> WebSocketMessage? in
            while true {
                switch driver.pump(&reader, until: limit) {
                case .event(let event):
                    if let message = WebSocketMessage(event, receivesControlFrames: receivesControlFrames) { return message }
                case .socketClosed:
                    return nil
                case .limitReached:
                    throw .timedOut(.receive)
                }
            }
        }
    }

    // MARK: Closing

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
            while true {
                switch driver.pump(&reader, until: nil) {
                case .event: continue
                case .socketClosed, .limitReached: return
                }
            }
        }
        return driver.shared.withLock { $0.closeStatus ?? $0.pipeline.closeStatus }
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
        try driver.perform(evenAfterFailure: true) { (connection) throws(Connection.UsageError) in
            switch connection.state {
            case .closing(initiatedBy: .local), .closed:
                break
            case .connecting, .open, .closing(initiatedBy: .remote):
                try connection.close(code: code, reason: reason)
            }
        }
        // A write failure is recorded and ends the connection, which the reader then reports.
        try? driver.flush()
    }
}
