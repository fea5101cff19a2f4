// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

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
/// ``Connection/SeededGenerator`` and the same inputs, the output bytes are identical from run to run. Time comes
/// from ``advanceTime(to:)``; ``nextDeadline`` says when to call it next.
public struct Connection: Sendable {
    /// This end's role.
    public let role: Connection.Role
    /// The limits, timeouts and extensions the connection was made with; they do not change after.
    public let configuration: Connection.Configuration
    let isClient: Bool
    #if hasFeature(Embedded)
    var random: RandomSource
    #else
    /// An existential on purpose: it keeps `Connection` address-only, so that a call passes it by
    /// reference. Loadable (with `RandomSource` here), every getter called from another module
    /// copied it whole: loop-handler 5,089 -> 7,988 user-space instructions per echo at 100
    /// connections, two thirds of them in memcpy (callgrind). Measured again once the getters a
    /// loop reads were stored and inlinable: 4,771 -> 7,010, embed-echo-256B 1,256 -> 1,408. Embedded
    /// Swift has no existentials; there every call specializes and inlines across the whole program.
    var random: any RandomNumberGenerator & Sendable
    #endif

    /// The lifecycle: set in `init`, then only by ``transition(_:)``.
    var phase: Phase {
        didSet {
            phaseSummary.update(phase)
            deadline = computedDeadline()
        }
    }
    /// What the public getters read of `phase` (see ``PhaseSummary``); set with it.
    @usableFromInline var phaseSummary: PhaseSummary
    /// ``nextDeadline``, kept equal to ``computedDeadline()`` by everything it depends on: stored, so
    /// that the getter is a load the caller's module inlines.
    @usableFromInline var deadline: Connection.Instant? = nil
    /// The largest payload the whole-message fast path takes: the smaller of the frame and message
    /// limits, or -1 when the fast path is off (fragment delivery, or no fragment allowed).
    let wholeMessageLimit: Int
    /// The opening handshake's HTTP head parser while a head is read (see ``HeadReading``).
    var headReading = HeadReading.idle
    /// (Client) The reader of a refusing response's body: in use in `.clientReadingRejection` only,
    /// and empty in every other phase (see ``Phase``).
    var bodyReader = HTTPBodyReader()
    /// The negotiated extension that transforms payloads, if any.
    var transform: Connection.Transform? = nil
    /// The reserved bits the negotiated transform defines (0 without one), kept apart so that the
    /// receive path reads a byte without unwrapping the transform.
    var transformBits: UInt8 = 0

    // Input.
    @usableFromInline var inbox: [UInt8] = []
    @usableFromInline var inboxStart = 0
    /// Whether `inbox` is an array the caller passed to ``receive(_:)-([UInt8])`` (shared storage: a
    /// write would copy it) rather than our own buffer.
    var inboxIsShared = false
    /// Our own input buffer while `inbox` is shared, kept for reuse.
    var spareInbox: [UInt8] = []
    /// Whether the transport's input ended (``receiveEOF()``): a fact about the input, like the bytes
    /// beside it, not a phase. The reader reaches it only after the bytes received before it, and
    /// reports it to the transition then (`.endOfStream`).
    @usableFromInline var inputEnded = false
    @usableFromInline var frame = FrameReadState.header
    var incoming = IncomingMessage.none
    /// The payload of the data message being assembled (``Connection/Delivery/messages``).
    var messageBuffer: [UInt8] = []
    /// The payload of the control frame being read (at most 125 bytes).
    var controlBuffer: [UInt8] = []
    /// (``nextEventView(_:)``) Whole masked messages unmasked for lending; it only grows (zero-filled
    /// once), so that steady-state messages reuse it without allocating.
    var lendScratch: [UInt8] = []

    // Output, in order: the queued arrays (from `queuedHead`, the first from `queuedStart`), then
    // `outbox[outboxStart..<outboxEnd]`. `outbox` is our own buffer, where frames are written; a
    // ``Connection/PreparedMessage``'s array is queued as it is (shared storage, never written to),
    // after our pending bytes, which move to the queue first (the array moves, no byte is copied).
    // Invariants: `outboxStart <= outboxEnd <= outbox.count`; `outboxStart` is 0 while anything is
    // queued (output is taken from the front); `queuedBytes` counts the queued bytes not yet taken.
    // Past `outboxEnd` the array holds bytes already written out, kept as room for the next frames:
    // emptying the buffer is two stores, where emptying an `Array` goes through `replaceSubrange`
    // (about 80 instructions per write round of an echo server).
    @usableFromInline var outbox: [UInt8] = []
    @usableFromInline var outboxStart = 0
    @usableFromInline var outboxEnd = 0
    var queuedOutput: [[UInt8]] = []
    var queuedHead = 0
    var queuedStart = 0
    @usableFromInline var queuedBytes = 0
    /// Output the caller took and has not written yet, as it last said (``outputHeldByCaller``).
    @usableFromInline var heldOutput = 0
    /// The pieces of output ``receiveAndAnswer(lending:writingOutput:_:)`` records, kept empty
    /// between calls for their capacity.
    var outputSegments: [OutputSegment] = []
    var outgoing = OutgoingMessage.none
    @usableFromInline var events: [Connection.Event] = []
    @usableFromInline var eventsStart = 0
    /// Set while ``nextEventView(_:)`` runs: whole messages are lent in place instead of copied.
    var lendsPayloads = false
    #if DEBUG
    /// How many head parser boxes this connection made, up to 255 (for tests: a head read whole
    /// takes none). Only debug builds, where `swift test` runs, keep it; one byte, beside the flag
    /// above, so that the connection's size does not change.
    var headParserBoxesMade: UInt8 = 0
    #endif

    // Time.
    /// The last time reported; the timers themselves live in the phase's payload. Set only by
    /// ``advanceTime(to:)``, which keeps `deadline` current itself (no observer: a report with
    /// nothing due changes no deadline, and adapters report after every read), and by the
    /// initializer given the time.
    @usableFromInline var lastReportedTime: Connection.Instant? = nil
    /// The time being reported while ``advanceTime(to:)`` runs the timers: what they arm counts
    /// from it; also the last report, while a pull made with it reads
    /// (``nextEventArmingFromLastReport(readingInPlace:from:)``). Any other input arms a timer
    /// pending until the next report (see ``arm(_:)``).
    var armingTime: Connection.Instant? = nil

    // What the closing handshake exchanged, for an adapter's counters and logs.
    /// The code of the Close frame this connection queued, once it did: ``Connection/CloseCode/noStatusReceived``
    /// (1005) for an empty one.
    public internal(set) var closeCodeSent: Connection.CloseCode? = nil
    /// The code of the Close frame read from the peer, once one was: ``Connection/CloseCode/noStatusReceived``
    /// (1005) for an empty one.
    public internal(set) var closeCodeReceived: Connection.CloseCode? = nil

    // Awaited pings.
    /// The pings sent with ``sendPing(_:awaitingPongWithin:)`` that wait for their pongs, and the
    /// outcomes not taken yet: beside the phase, not in it (see ``AwaitedPings``).
    var awaitedPings = AwaitedPings() {
        didSet { deadline = computedDeadline() }
    }

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
    ///     ``Connection/SeededGenerator`` for reproducible output.
    /// - Throws: ``Connection/UsageError/invalidHeader(_:)`` when a client option would put a control
    ///   character or an invalid token into the request.
    public init(role: Connection.Role, configuration: Connection.Configuration = Connection.Configuration(),
                random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) throws(Connection.UsageError) {
        try self.init(role: role, configuration: configuration, random: random, reportingTime: nil)
    }

    /// ``init(role:configuration:random:)`` followed by ``advanceTime(to:)`` with `now`, for an
    /// adapter that knows the time when it makes the connection (an accept): the handshake's timer
    /// starts armed from `now`, where the first report ran the timers' transition only to arm it
    /// (about 400 instructions per connection). A timeout of zero or less is then due by `now`,
    /// and the next report ends the handshake, as that first report would have.
    ///
    /// `configuration` is borrowed, and copied once, into the connection (owned, as an initializer's
    /// parameters are by default, it was copied at the call and again here: about 90 instructions
    /// per connection).
    package init(role: Connection.Role, configuration: borrowing Connection.Configuration,
                 random: some RandomNumberGenerator & Sendable, reportingTime now: Connection.Instant?) throws(Connection.UsageError) {
        self.role = role
        self.configuration = copy configuration
        self.random = Self.randomStorage(random)
        let limits = self.configuration.limits
        wholeMessageLimit = self.configuration.delivery == .messages && limits.maxFragmentsPerMessage >= 1
            ? max(0, min(limits.maxFrameSize, limits.maxMessageSize)) : -1
        lastReportedTime = now
        let timeout: Timer
        if let handshake = self.configuration.timeouts.handshake {
            if let now { timeout = .armed(now + handshake) } else { timeout = .pending(handshake) }
        } else {
            timeout = .off
        }
        switch role {
        case .client(let options):
            isClient = true
            var generator = random
            let key = ClientHandshake.makeKey(using: &generator)
            self.random = Self.randomStorage(generator)
            let offered = Self.offeredOptions(options, self.configuration)
            let request = try ClientHandshake.request(options: offered, key: key)
            phase = .clientAwaitingResponse(key: key, offered: Boxed(offered), timeout: timeout)
            phaseSummary = PhaseSummary(phase)
            outbox = request
            outboxEnd = request.count
        case .server:
            isClient = false
            phase = .serverAwaitingRequest(timeout: timeout)
            phaseSummary = PhaseSummary(phase)
        }
        deadline = computedDeadline()
    }

    // MARK: Input

    /// Whether received bytes are kept. Nothing the peer sends after its Close frame is read (RFC 6455
    /// §5.5.1), so it is dropped rather than buffered (keeping it would let a peer fill memory while
    /// our last message is still going out); nothing after the end of stream either.
    var acceptsInput: Bool {
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
        if inboxStart == inbox.count {
            // Everything before was parsed (the common case): the bytes take its place in one call.
            // Emptying the buffer and then appending cost about 80 instructions more per read.
            inbox.replaceSubrange(0..<inbox.count, with: bytes)
            inboxStart = 0
            return
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
    /// `.closed` event with 1006 and ``Connection/CloseStatus/Failure/aborted`` follows (unless the connection
    /// was closed already), and ``transportDirective`` becomes ``Connection/TransportDirective/close``.
    public mutating func abort() {
        outbox = []
        outboxStart = 0
        outboxEnd = 0
        clearQueuedOutput()
        transition(.aborted)
    }

    /// Bytes received and not yet parsed.
    @inlinable
    public var bufferedInputCount: Int { inbox.count - inboxStart }

    private mutating func compactInbox() {
        compactConsumedPrefix(&inbox, start: &inboxStart)
    }


}

/// Drops the consumed prefix `buffer[..<start]` when that is cheap: at once when everything was
/// consumed, otherwise only once the prefix is at least half the buffer, so that the copying stays
/// linear in the bytes that pass through.
func compactConsumedPrefix(_ buffer: inout [UInt8], start: inout Int) {
    if start == buffer.count {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    } else if isWorthCompacting(consumed: start, of: buffer.count) {
        buffer.removeSubrange(0..<start)
        start = 0
    }
}

/// Whether a consumed prefix of `consumed` bytes, of `count` held, is worth moving the rest down for:
/// at least 4 KiB and half the buffer, so that the copying stays linear in the bytes that pass through.
@inline(__always)
func isWorthCompacting(consumed: Int, of count: Int) -> Bool {
    consumed >= 4096 && consumed * 2 >= count
}
