/// A WebSocket connection (RFC 6455), client or server, as a pure value: no socket, thread, clock or
/// global random source.
///
/// You move bytes and time in and out of it:
///
/// ```swift
/// var connection = try Connection(role: .server)
/// connection.receive(bytesFromSocket)          // never throws: bad input becomes events
/// while let event = connection.nextEvent() {   // nil: it needs more bytes
///     switch event {
///     case .handshakeRequest(let request): try connection.accept(subprotocol: request.subprotocols.first)
///     case .text(let text): try connection.send(text: text)
///     default: break
///     }
/// }
/// socket.write(connection.takeOutput())
/// if connection.shouldCloseTransport { socket.close() }
/// ```
///
/// Input is parsed when you pull events, so after each ``receive(_:)`` pull events until `nil`, then
/// write the output: automatic replies (pongs, the close reply, an HTTP error) are queued while
/// events are pulled.
///
/// Copying a connection forks it: both copies continue independently from the same state, which makes
/// "what if" tests and replays cheap to write.
///
/// Randomness (masking keys, `Sec-WebSocket-Key`) comes from the generator you inject; with a
/// ``SeededGenerator`` and the same inputs, the output bytes are identical from run to run. Time comes
/// from ``advanceTime(to:)``; ``nextDeadline`` says when to call it next.
public struct Connection: Sendable {
    /// This end's role.
    public let role: Role
    public let configuration: Configuration
    let isClient: Bool
    var random: any RandomNumberGenerator & Sendable

    var phase: Phase
    /// The opening handshake's HTTP head parser (see ``Phase``).
    var headParser: HTTPHeadParser
    /// (Client) The reader of a refusing response's body.
    var bodyReader: HTTPBodyReader? = nil
    /// The negotiated extension that transforms payloads, if any.
    var transform: (any MessageTransform)? = nil

    // Input.
    var inbox: [UInt8] = []
    var inboxStart = 0
    var inputEnded = false
    var frame = FrameReadState.header
    var incoming = IncomingMessage.none
    /// The payload of the data message being assembled (``Delivery/messages``).
    var messageBuffer: [UInt8] = []
    /// The payload of the control frame being read (at most 125 bytes).
    var controlBuffer: [UInt8] = []

    // Output.
    var outbox: [UInt8] = []
    var outboxStart = 0
    var outgoing = OutgoingMessage.none
    var events: [Event] = []
    var eventsStart = 0

    // Time.
    var lastReportedTime: Instant? = nil
    var handshakeTimer = Timer.off
    var closeTimer = Timer.off
    var pingTimer = Timer.off
    var pongTimer = Timer.off
    var keepaliveCount: UInt64 = 0

    /// Creates a connection.
    ///
    /// A client queues its opening handshake request at once: take it with ``takeOutput()``. A server
    /// waits for the request.
    ///
    /// - Parameters:
    ///   - role: `.client(options)` or `.server`.
    ///   - configuration: limits, timers, delivery; the defaults are safe for the open internet.
    ///   - random: the source of masking keys and the handshake key. Default: the system's
    ///     cryptographically secure generator, which RFC 6455 §10.3 calls for. Inject a
    ///     ``SeededGenerator`` for reproducible output.
    /// - Throws: ``ConnectionError/invalidHeader(_:)`` when a client option would put a control
    ///   character or an invalid token into the request.
    public init(role: Role, configuration: Configuration = Configuration(),
                random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) throws(ConnectionError) {
        self.role = role
        self.configuration = configuration
        self.random = random
        switch role {
        case .client(let options):
            isClient = true
            var generator = random
            let key = ClientHandshake.makeKey(using: &generator)
            self.random = generator
            let request = try ClientHandshake.request(options: Self.offeredOptions(options, configuration), key: key)
            phase = .clientAwaitingResponse(key: key)
            headParser = HTTPHeadParser(kind: .response, limits: configuration.limits)
            outbox = request
        case .server:
            isClient = false
            phase = .serverAwaitingRequest
            headParser = HTTPHeadParser(kind: .request, limits: configuration.limits)
        }
        handshakeTimer = configuration.timeouts.handshake.map(Timer.pending) ?? .off
    }

    // MARK: Input

    /// Buffers bytes received from the peer. They are parsed by ``nextEvent()``. Bytes received after
    /// the connection closed are dropped.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ receive(UnsafeRawBufferPointer($0)) }) { return done }
        receive(Array(bytes))
    }

    /// Buffers bytes received from the peer (the concrete entry point the generic one forwards to).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        if case .closed = phase { return }
        if inputEnded { return }
        compactInbox()
        inbox.append(contentsOf: bytes)
    }

    /// Records that the peer closed its side of the transport (a read returned 0 bytes). Events that
    /// the bytes received before it make are still delivered first.
    public mutating func receiveEOF() {
        inputEnded = true
        releaseTransport()
    }

    /// Ends the connection at once, without a closing handshake: for a transport that failed (a write
    /// error, a reset) or a caller that gives up. Nothing more is sent; a `.closed` event with 1006 and
    /// ``CloseStatus/Failure/aborted`` follows, and ``shouldCloseTransport`` becomes true. Does
    /// nothing on a connection that is already closed.
    public mutating func abort() {
        if case .closed = phase { return }
        bodyReader = nil
        enterClosed(CloseStatus(code: .abnormalClosure, reason: "aborted", wasClean: false, failure: .aborted))
        releaseTransport()
    }

    /// Bytes received and not yet parsed.
    public var bufferedInputCount: Int { inbox.count - inboxStart }

    private mutating func compactInbox() {
        compactConsumedPrefix(&inbox, start: &inboxStart)
    }

    // MARK: Events

    /// The next event, parsing buffered input as needed; `nil` when more input (or a handshake
    /// decision) is needed first.
    public mutating func nextEvent() -> Event? {
        while true {
            if let event = dequeueEvent() { return event }
            switch step() {
            case .event(let event): return event
            case .progress: continue
            case .needInput:
                if let event = dequeueEvent() { return event }
                return nil
            }
        }
    }

    enum Step {
        case event(Event)
        /// Something changed (queued events, a new phase); step again.
        case progress
        case needInput
    }

    private mutating func step() -> Step {
        switch phase {
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest:
            return stepHandshake()
        case .serverAwaitingDecision:
            return .needInput
        case .open, .closingLocally:
            return stepFrames()
        case .closingRemotely, .closed:
            // After the peer's Close frame nothing it sends is read (RFC 6455 §5.5.1).
            return .needInput
        }
    }

    mutating func enqueue(_ event: Event) {
        events.append(event)
    }

    private mutating func dequeueEvent() -> Event? {
        guard eventsStart < events.count else { return nil }
        let event = events[eventsStart]
        eventsStart += 1
        if eventsStart == events.count {
            events.removeAll(keepingCapacity: true)
            eventsStart = 0
        }
        return event
    }

    // MARK: Output

    /// The number of bytes queued for the peer and not yet taken (like a browser's `bufferedAmount`).
    public var pendingOutputCount: Int { outbox.count - outboxStart }

    /// Takes all pending output, leaving the buffer empty.
    public mutating func takeOutput() -> [UInt8] {
        if outboxStart == 0 {
            let bytes = outbox
            outbox = []
            return bytes
        }
        let bytes = Array(outbox[outboxStart...])
        outbox.removeAll(keepingCapacity: true)
        outboxStart = 0
        return bytes
    }

    /// Lends the pending output to `write`, which returns how many bytes it wrote (a partial write is
    /// fine); those bytes are removed from the buffer.
    public mutating func withPendingOutput<E: Error>(_ write: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) {
        let start = outboxStart
        let result = outbox.withUnsafeBytes { raw in
            Result { () throws(E) -> Int in try write(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }
        consumeOutput(try result.get())
    }

    /// Removes the first `count` bytes of pending output, after the caller wrote them.
    public mutating func consumeOutput(_ count: Int) {
        outboxStart += min(max(count, 0), pendingOutputCount)
        compactConsumedPrefix(&outbox, start: &outboxStart)
    }
}

/// Drops the consumed prefix `buffer[..<start]` when that is cheap: at once when everything was
/// consumed, otherwise only once the prefix is at least half the buffer, so that the copying stays
/// linear in the bytes that pass through.
private func compactConsumedPrefix(_ buffer: inout [UInt8], start: inout Int) {
    if start == buffer.count {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    } else if start >= 4096 && start * 2 >= buffer.count {
        buffer.removeSubrange(0..<start)
        start = 0
    }
}
