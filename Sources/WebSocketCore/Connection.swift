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
/// Input is parsed when you pull events, so after each `receive(_:)` pull events until `nil`, then
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
    /// The limits, timeouts and extensions the connection was made with; they do not change after.
    public let configuration: Configuration
    let isClient: Bool
    var random: any RandomNumberGenerator & Sendable

    /// The lifecycle: set in `init`, then only by ``transition(_:)``.
    var phase: Phase
    /// The largest payload the whole-message fast path takes: the smaller of the frame and message
    /// limits, or -1 when the fast path is off (fragment delivery, or no fragment allowed).
    let wholeMessageLimit: Int
    /// The opening handshake's HTTP head parser (see ``Phase``).
    var headParser: HTTPHeadParser
    /// (Client) The reader of a refusing response's body: in use in `.clientReadingRejection` only,
    /// and empty in every other phase (see ``Phase``).
    var bodyReader = HTTPBodyReader()
    /// The negotiated extension that transforms payloads, if any.
    var transform: (any MessageTransform)? = nil
    /// The reserved bits the negotiated transform defines (0 without one), kept apart so that the
    /// receive path reads a byte instead of copying an existential.
    var transformBits: UInt8 = 0

    // Input.
    var inbox: [UInt8] = []
    var inboxStart = 0
    /// Whether `inbox` is an array the caller passed to ``receive(_:)-([UInt8])`` (shared storage: a
    /// write would copy it) rather than our own buffer.
    var inboxIsShared = false
    /// Our own input buffer while `inbox` is shared, kept for reuse.
    var spareInbox: [UInt8] = []
    /// Whether the transport's input ended (``receiveEOF()``): a fact about the input, like the bytes
    /// beside it, not a phase. The reader reaches it only after the bytes received before it, and
    /// reports it to the transition then (`.endOfStream`).
    var inputEnded = false
    var frame = FrameReadState.header
    var incoming = IncomingMessage.none
    /// The payload of the data message being assembled (``Delivery/messages``).
    var messageBuffer: [UInt8] = []
    /// The payload of the control frame being read (at most 125 bytes).
    var controlBuffer: [UInt8] = []
    /// (``nextEventView(_:)``) Whole masked messages unmasked for lending; it only grows (zero-filled
    /// once), so that steady-state messages reuse it without allocating.
    var lendScratch: [UInt8] = []

    // Output, in order: the queued arrays (from `queuedHead`, the first from `queuedStart`), then
    // `outbox`. `outbox` is our own buffer, where frames are written; a ``PreparedMessage``'s array
    // is queued as it is (shared storage, never written to), after our pending bytes, which move to
    // the queue first (the array moves, no byte is copied). Invariant: `outboxStart` is 0 while
    // anything is queued (output is taken from the front), and `queuedBytes` counts the queued bytes
    // not yet taken.
    var outbox: [UInt8] = []
    var outboxStart = 0
    var queuedOutput: [[UInt8]] = []
    var queuedHead = 0
    var queuedStart = 0
    var queuedBytes = 0
    var outgoing = OutgoingMessage.none
    var events: [Event] = []
    var eventsStart = 0
    /// Set while ``nextEventView(_:)`` runs: whole messages are lent in place instead of copied.
    var lendsPayloads = false

    // Time.
    /// The last time reported; the timers themselves live in the phase's payload.
    var lastReportedTime: Instant? = nil

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
        let limits = configuration.limits
        wholeMessageLimit = configuration.delivery == .messages && limits.maxFragmentsPerMessage >= 1
            ? max(0, min(limits.maxFrameSize, limits.maxMessageSize)) : -1
        let timeout = configuration.timeouts.handshake.map(Timer.pending) ?? .off
        switch role {
        case .client(let options):
            isClient = true
            var generator = random
            let key = ClientHandshake.makeKey(using: &generator)
            self.random = generator
            let offered = Self.offeredOptions(options, configuration)
            let request = try ClientHandshake.request(options: offered, key: key)
            phase = .clientAwaitingResponse(key: key, offered: Boxed(offered), timeout: timeout)
            headParser = HTTPHeadParser(kind: .response, limits: configuration.limits)
            outbox = request
        case .server:
            isClient = false
            phase = .serverAwaitingRequest(timeout: timeout)
            headParser = HTTPHeadParser(kind: .request, limits: configuration.limits)
        }
    }

    // MARK: Input

    /// Whether received bytes are kept. Nothing the peer sends after its Close frame is read (RFC 6455
    /// §5.5.1), so it is dropped rather than buffered (keeping it would let a peer fill memory while
    /// our last message is still going out); nothing after the end of stream either.
    private var acceptsInput: Bool {
        switch phase {
        case .closed, .closingRemotely: return false
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
             .open, .closingLocally:
            return !inputEnded
        }
    }

    /// Buffers bytes received from the peer. They are parsed by ``nextEvent()``. Bytes received after
    /// the connection closed, or after the peer's Close frame, are dropped.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ receive(UnsafeRawBufferPointer($0)) }) { return done }
        receive(Array(bytes))
    }

    /// Buffers bytes received from the peer. When everything received before has been parsed, the
    /// connection keeps `bytes` itself instead of copying it (arrays share their storage), so a caller
    /// that reads into a fresh array per read pays no copy.
    public mutating func receive(_ bytes: [UInt8]) {
        guard acceptsInput else { return }
        if inboxStart == inbox.count {
            // Everything before was parsed: adopt the caller's array, and keep our own buffer (if it
            // is ours) for when bytes must be joined again.
            if !inboxIsShared { swap(&inbox, &spareInbox) }
            inbox = bytes
            inboxStart = 0
            inboxIsShared = true
            return
        }
        if inboxIsShared {
            // A frame continues into these bytes: join the rest of the shared array and them in our
            // own buffer (appending to the shared one would copy it into a new allocation).
            spareInbox.removeAll(keepingCapacity: true)
            spareInbox.append(contentsOf: inbox[inboxStart...])
            spareInbox.append(contentsOf: bytes)
            swap(&inbox, &spareInbox)
            spareInbox = []
            inboxStart = 0
            inboxIsShared = false
            return
        }
        compactInbox()
        inbox.append(contentsOf: bytes)
    }

    /// Buffers bytes received from the peer (the concrete entry point the generic one forwards to).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard acceptsInput else { return }
        if inboxIsShared {
            // Copy into our own buffer rather than into a new allocation.
            spareInbox.removeAll(keepingCapacity: true)
            spareInbox.append(contentsOf: inbox[inboxStart...])
            swap(&inbox, &spareInbox)
            spareInbox = []
            inboxStart = 0
            inboxIsShared = false
        }
        compactInbox()
        inbox.append(contentsOf: bytes)
    }

    /// Records that the peer closed its side of the transport (a read returned 0 bytes). Events that
    /// the bytes received before it make are still delivered first.
    public mutating func receiveEOF() {
        inputEnded = true
        transition(.inputEnded)
    }

    /// Ends the connection at once, without a closing handshake: for a transport that failed (a write
    /// error, a reset) or a caller that gives up. Nothing more is sent: pending output is dropped. A
    /// `.closed` event with 1006 and ``CloseStatus/Failure/aborted`` follows (unless the connection
    /// was closed already), and ``transportDirective`` becomes ``TransportDirective/close``.
    public mutating func abort() {
        outbox = []
        outboxStart = 0
        clearQueuedOutput()
        transition(.aborted)
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
            case .lent(let kind, let payload): return ownedEvent(kind, payload)
            case .progress: continue
            case .needInput:
                if let event = dequeueEvent() { return event }
                return nil
            }
        }
    }

    enum Step {
        case event(Event)
        /// (``nextEventView(_:)``) A whole message whose payload stays where it is, lent to the caller.
        case lent(MessageKind, LentPayload)
        /// Something changed (queued events, a new phase); step again.
        case progress
        case needInput
    }

    private mutating func step() -> Step {
        // The frame-reading phases first, by the phase's case alone: no payload is bound, so none is
        // copied on the hot path.
        switch phase {
        case .open, .closingLocally:
            return stepFrames()
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
             .closingRemotely, .closed:
            return stepHandshake()
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
    public var pendingOutputCount: Int { queuedBytes + outbox.count - outboxStart }

    /// Takes all pending output, leaving the buffer empty. A prepared message that is all the output
    /// is handed over as it is (the same storage); several pieces are joined.
    public mutating func takeOutput() -> [UInt8] {
        if queuedBytes > 0 {
            if queuedOutput.count == 1, queuedStart == 0, outbox.count == outboxStart {
                queuedBytes = 0
                return queuedOutput.removeLast()
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(pendingOutputCount)
            bytes.append(contentsOf: queuedOutput[queuedHead][queuedStart...])
            for index in (queuedHead + 1)..<queuedOutput.count { bytes.append(contentsOf: queuedOutput[index]) }
            bytes.append(contentsOf: outbox[outboxStart...])
            clearQueuedOutput()
            outbox.removeAll(keepingCapacity: true)
            outboxStart = 0
            return bytes
        }
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
    /// fine); those bytes are removed from the buffer. It lends one contiguous piece: the output
    /// may hold more (prepared messages are kept as they are), so call it while
    /// ``pendingOutputCount`` is above zero and `write` takes everything.
    ///
    /// Inlinable so that the caller's error type is concrete where it is called: an unspecialized
    /// generic body looked up `Result<Int, E>`'s metadata on every call, which showed in a server's
    /// profile as two metadata lookups per message.
    @inlinable
    public mutating func withPendingOutput<E: Error>(_ write: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) {
        var failure: E? = nil
        lendPendingOutput { bytes in
            do throws(E) {
                return try write(bytes)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
    }

    /// The non-generic body of ``withPendingOutput(_:)``.
    @usableFromInline
    internal mutating func lendPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        if queuedBytes > 0 {
            let start = queuedStart
            let written = queuedOutput[queuedHead].withUnsafeBytes { raw in
                write(UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
            consumeOutput(written)
            return
        }
        let start = outboxStart
        let written = outbox.withUnsafeBytes { raw in write(UnsafeRawBufferPointer(rebasing: raw[start...])) }
        consumeOutput(written)
    }

    /// Lends up to `maxPieces` pieces of the pending output, in order, for one gathered write
    /// (`writev`, `sendmsg`): `write` returns how many bytes it wrote from the front (a partial write
    /// is fine), and those are removed. A prepared message sent while other output was pending is a
    /// piece of its own, lent in place. Lends nothing when nothing is pending.
    public mutating func withPendingOutputPieces(upTo maxPieces: Int,
                                                 _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int) {
        let ownPending = outbox.count > outboxStart
        if queuedBytes == 0 {
            // The usual case, one piece: lent without the nested calls (whose captured state the
            // runtime checks for exclusivity on every call).
            guard ownPending else { return }
            let start = outboxStart
            let written = outbox.withUnsafeBytes { raw in
                var piece = UnsafeRawBufferPointer(rebasing: raw[start...])
                return withUnsafePointer(to: &piece) { write(UnsafeBufferPointer(start: $0, count: 1)) }
            }
            consumeOutput(written)
            return
        }
        let available = queuedOutput.count - queuedHead + (ownPending ? 1 : 0)
        let count = min(max(maxPieces, 1), available)
        guard count > 0 else { return }
        var written = 0
        withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: count) { list in
            // Each piece's storage is pinned by the closure that lends it, so the pieces are lent
            // by nested calls, one per piece (at most `maxPieces` deep).
            func lend(_ index: Int) {
                guard index < count else {
                    written = write(UnsafeBufferPointer(list))
                    return
                }
                if index < queuedOutput.count - queuedHead {
                    let start = index == 0 ? queuedStart : 0
                    queuedOutput[queuedHead + index].withUnsafeBytes { raw in
                        list[index] = UnsafeRawBufferPointer(rebasing: raw[start...])
                        lend(index + 1)
                    }
                } else {
                    let start = outboxStart
                    outbox.withUnsafeBytes { raw in
                        list[index] = UnsafeRawBufferPointer(rebasing: raw[start...])
                        lend(index + 1)
                    }
                }
            }
            lend(0)
        }
        consumeOutput(written)
    }

    /// Removes the first `count` bytes of pending output, after the caller wrote them.
    public mutating func consumeOutput(_ count: Int) {
        var remaining = min(max(count, 0), pendingOutputCount)
        while remaining > 0, queuedBytes > 0 {
            let headLeft = queuedOutput[queuedHead].count - queuedStart
            let taken = min(remaining, headLeft)
            remaining -= taken
            queuedBytes -= taken
            if taken < headLeft {
                queuedStart += taken
            } else {
                // Written: released at once (a prepared message's last reference may be this one).
                queuedOutput[queuedHead] = []
                queuedHead += 1
                queuedStart = 0
                if queuedHead == queuedOutput.count { clearQueuedOutput() }
            }
        }
        guard remaining > 0 else { return }
        outboxStart += remaining
        compactConsumedPrefix(&outbox, start: &outboxStart)
    }

    /// Empties the queue, keeping its capacity.
    private mutating func clearQueuedOutput() {
        queuedOutput.removeAll(keepingCapacity: true)
        queuedHead = 0
        queuedStart = 0
        queuedBytes = 0
    }

    /// Makes room for `count` more bytes of output at once in `outbox`. Geometric growth, for frames
    /// queued without the output being taken.
    @inline(__always)
    mutating func reserveOutput(_ count: Int) {
        let needed = outbox.count + count
        if needed > outbox.capacity { outbox.reserveCapacity(max(needed, 2 * outbox.capacity)) }
    }

    /// Appends `bytes` (a prepared message's frames) to the output without copying them: queued as
    /// they are, after what is pending in `outbox` (whose array moves to the queue).
    mutating func appendSharedOutput(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if outbox.count > outboxStart {
            if queuedBytes == 0 {
                clearQueuedOutput()
                queuedStart = outboxStart
            }
            queuedBytes += outbox.count - outboxStart
            queuedOutput.append(outbox)
            outbox = []
            outboxStart = 0
        }
        queuedOutput.append(bytes)
        queuedBytes += bytes.count
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

// MARK: Lending payloads

/// An event whose message payload is lent for the duration of a call, not copied: see
/// ``Connection/nextEventView(_:)``.
public enum EventView {
    /// A whole text message: its bytes, already validated as UTF-8.
    case text(UnsafeRawBufferPointer)
    /// A whole binary message.
    case binary(UnsafeRawBufferPointer)
    /// Any other event, as ``Connection/nextEvent()`` returns it.
    case other(Event)
}

/// Where a lent payload lies.
enum LentPayload {
    case inbox(Range<Int>)
    case messageBuffer
    /// The first bytes of `lendScratch`.
    case scratch(Int)
}

extension Connection {
    /// Pulls the next event like ``nextEvent()``, but lends whole messages' payloads to `body` instead
    /// of copying them into a `String` or an array: no allocation per message in steady state. The
    /// pointer is valid only during `body`. Returns `false` (without calling `body`) when more input is
    /// needed.
    ///
    /// Messages arrive as ``EventView/text(_:)`` and ``EventView/binary(_:)``; everything else,
    /// including fragments in ``Delivery/fragments`` mode, as ``EventView/other(_:)``.
    ///
    /// ```swift
    /// while try connection.nextEventView({ view in
    ///     if case .binary(let bytes) = view { try file.write(bytes) }
    /// }) {}
    /// ```
    public mutating func nextEventView(_ body: (EventView) throws -> Void) rethrows -> Bool {
        lendsPayloads = true
        defer { lendsPayloads = false }
        while true {
            if let event = dequeueEvent() {
                try body(.other(event))
                return true
            }
            switch step() {
            case .event(let event):
                try body(.other(event))
                return true
            case .lent(let kind, let payload):
                defer { releaseLent(payload) }
                try withLentBytes(payload) { bytes in
                    try body(kind == .text ? .text(bytes) : .binary(bytes))
                }
                return true
            case .progress:
                continue
            case .needInput:
                guard let event = dequeueEvent() else { return false }
                try body(.other(event))
                return true
            }
        }
    }

    /// Calls `body` with the bytes of a lent payload.
    @inline(__always)
    func withLentBytes<R>(_ payload: LentPayload, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch payload {
        case .inbox(let range):
            return try inbox.withUnsafeBytes { raw in
                try body(UnsafeRawBufferPointer(start: raw.baseAddress.map { $0 + range.lowerBound }, count: range.count))
            }
        case .messageBuffer:
            return try messageBuffer.withUnsafeBytes(body)
        case .scratch(let count):
            return try lendScratch.withUnsafeBytes { raw in try body(UnsafeRawBufferPointer(start: raw.baseAddress, count: count)) }
        }
    }

    /// A lent message as an owned event.
    func ownedEvent(_ kind: MessageKind, _ payload: LentPayload) -> Event {
        let bytes: [UInt8]
        switch payload {
        case .inbox(let range): bytes = Array(inbox[range])
        case .messageBuffer: bytes = messageBuffer
        case .scratch(let count): bytes = Array(lendScratch[0..<count])
        }
        return kind == .text ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(bytes)
    }

    /// After lending: small buffers are kept for the next message (no allocation per message); large
    /// ones are released, so that one big message does not pin its memory for the life of the
    /// connection.
    mutating func releaseLent(_ payload: LentPayload) {
        switch payload {
        case .inbox:
            break
        case .messageBuffer:
            if messageBuffer.capacity <= Self.eagerReservation {
                messageBuffer.removeAll(keepingCapacity: true)
            } else {
                messageBuffer = []
            }
        case .scratch:
            if lendScratch.capacity > Self.eagerReservation { lendScratch = [] }
        }
    }
}
