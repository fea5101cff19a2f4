// Theory of operation
//
// A `Connection` is a value: every input (bytes, end of stream, time, a send, a handshake decision)
// is a mutating call, every output is either an event pulled with `nextEvent()` or bytes taken from the
// output buffer. Nothing happens between calls.
//
// 1. All lifecycle state is one enum, `Phase`, and `self.phase =` appears in this file only. The public
//    `State` is a projection of it.
// 2. Input is parsed lazily, inside `nextEvent()`: `receive(_:)` only buffers. Automatic replies (pong,
//    the close reply, an HTTP error response) are therefore queued while events are pulled; a caller
//    drains events, then writes output.
// 3. A peer's violation queues the Close frame with the violation's code, emits `.protocolViolation`
//    then `.closed`, and every later input byte is ignored (RFC 6455 §7.1.7).
// 4. A caller's misuse throws `ConnectionError` and changes nothing.
// 5. Timers arm when their phase starts, relative to the last time reported; before any report they
//    wait as `.pending` and arm at the first one.
// 6. Once `.closed`, the connection never changes phase again; `transportDirective` says what the
//    caller should do with the transport (RFC 6455 §7.1.1): a client that closed cleanly waits for the
//    server to close TCP (bounded by the close timer); otherwise the caller writes what is left, shuts
//    down its sending side and reads until the peer closes too (bounded by the linger timer), so that
//    unread bytes cannot turn the close into a reset that destroys the last frames; once the input
//    ended, or the caller aborted, the transport closes at once. Every adapter obeys it the same way.

/// The lifecycle of a connection, as the caller sees it.
public enum State: Sendable, Hashable {
    /// The opening handshake is under way.
    case connecting
    /// Messages flow both ways.
    case open
    /// One side has sent a Close frame and the closing handshake is not finished: `.local` when we
    /// sent ours first and await the peer's, `.remote` when the peer's arrived while we were sending a
    /// fragmented message, and our reply waits for its last fragment (RFC 6455 §5.5.1).
    case closing(initiatedBy: Side)
    /// Nothing more can be sent or received.
    case closed(CloseStatus)

    public enum Side: Sendable, Hashable {
        case local
        case remote
    }
}

enum Phase: Sendable {
    // The HTTP parser and body reader of the handshake phases live in stored properties of the
    // connection, not in these payloads, so that they mutate in place instead of being copied out of
    // the enum and back (which would copy their buffers on every call).
    case clientAwaitingResponse(key: String)
    case clientReadingRejection(HTTPResponseHead)
    case serverAwaitingRequest
    case serverAwaitingDecision(HandshakeRequest)
    case open
    /// We sent this Close frame and wait for the peer's.
    case closingLocally(sent: CloseFrame)
    /// The peer sent this Close frame; our reply waits for the end of the message we are sending.
    case closingRemotely(received: CloseFrame)
    case closed(CloseStatus, transport: TransportDisposition)
}

/// What the caller should do with the transport once the connection is closed.
enum TransportDisposition: Sendable, Hashable {
    /// Close it (after writing what is pending, if the transport takes it without waiting).
    case closeNow
    /// (Client) Wait for the server to close it (RFC 6455 §7.1.1), until the close timer runs out.
    case awaitPeerClose
    /// Write what is pending, shut down the sending side, and read until the peer closes, until the
    /// linger timer runs out.
    case drain
}

/// What to do with the transport under a connection, as ``Connection/transportDirective`` says.
///
/// A TCP connection closed while unread bytes wait in its receive buffer is reset, and a reset can
/// destroy the frames written just before it (the last message, the Close frame) before the peer
/// reads them. RFC 6455 §7.1.1 therefore has the server close first and the client wait for it;
/// and an endpoint that closes first should shut down its sending side, then read until the peer
/// closes too. The connection says which of these applies, so that every adapter closes the same way.
///
/// ```swift
/// switch connection.transportDirective {
/// case .keepOpen, .awaitPeerClose: break                      // keep reading (and writing)
/// case .halfCloseAndDrain: if connection.pendingOutputCount == 0 { socket.shutdown(.write) }
/// case .close: socket.close()
/// }
/// ```
///
/// RFC 6455 §7.1.1: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.1>
public enum TransportDirective: Sendable, Hashable {
    /// The connection is not closed: read, and write the output.
    case keepOpen
    /// (Client, after a clean closing handshake) Keep reading: the server closes the TCP connection
    /// first. What arrives is discarded. The directive becomes ``close`` when the input ends
    /// (``Connection/receiveEOF()``) or the close timer (``Timeouts/close``) runs out.
    case awaitPeerClose
    /// Write the pending output, then shut down the sending side of the transport (a TCP FIN, after
    /// a TLS close_notify), and keep reading: what arrives is discarded. The directive becomes
    /// ``close`` when the input ends or at `deadline` (``Timeouts/linger`` after the close; `nil`
    /// while no time has been reported), when pending output is given up on as well.
    case halfCloseAndDrain(deadline: Instant?)
    /// Close the transport now. Pending output may be written first if the transport takes it
    /// without waiting (a reply to a peer that shut down only its own sending side).
    case close
}

/// A deadline that is off, waiting for the first time report, or armed.
enum Timer: Sendable, Hashable {
    case off
    case pending(Duration)
    case armed(Instant)

    var deadline: Instant? {
        if case .armed(let instant) = self { return instant }
        return nil
    }

    /// A pending timer starts at the first reported time.
    mutating func arm(at now: Instant) {
        if case .pending(let duration) = self { self = .armed(now + duration) }
    }

    func hasExpired(at now: Instant) -> Bool {
        if case .armed(let instant) = self { return instant <= now }
        return false
    }
}

extension Connection {
    /// The connection's lifecycle state.
    public var state: State {
        switch phase {
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision:
            return .connecting
        case .open: return .open
        case .closingLocally: return .closing(initiatedBy: .local)
        case .closingRemotely: return .closing(initiatedBy: .remote)
        case .closed(let status, _): return .closed(status)
        }
    }

    /// Whether the caller should stop using the transport: ``transportDirective`` is
    /// ``TransportDirective/halfCloseAndDrain(deadline:)`` or ``TransportDirective/close``. A caller
    /// that then closes the socket at once is correct, but may lose its last frames to a TCP reset
    /// when the peer still sends; ``transportDirective`` says how to close gracefully.
    public var shouldCloseTransport: Bool {
        switch phase {
        case .closed(_, .closeNow), .closed(_, .drain): return true
        case .closed(_, .awaitPeerClose), .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest,
             .serverAwaitingDecision, .open, .closingLocally, .closingRemotely:
            return false
        }
    }

    /// What the caller should do with the transport now (RFC 6455 §7.1.1); see ``TransportDirective``.
    public var transportDirective: TransportDirective {
        switch phase {
        case .closed(_, .closeNow): return .close
        case .closed(_, .awaitPeerClose): return .awaitPeerClose
        case .closed(_, .drain): return .halfCloseAndDrain(deadline: lingerTimer.deadline)
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
             .open, .closingLocally, .closingRemotely:
            return .keepOpen
        }
    }

    // MARK: Transitions (the only place `phase` changes)

    mutating func enterHandshakePhase(_ next: Phase) {
        phase = next
        readsFrames = false
    }

    mutating func enterOpen() {
        phase = .open
        readsFrames = true
        handshakeTimer = .off
        if let interval = configuration.timeouts.keepaliveInterval {
            pingTimer = arm(interval)
        }
    }

    mutating func enterClosingLocally(sent frame: CloseFrame) {
        phase = .closingLocally(sent: frame)
        readsFrames = true
        stopKeepalive()
        closeTimer = configuration.timeouts.close.map(arm) ?? .off
    }

    mutating func enterClosingRemotely(received frame: CloseFrame) {
        phase = .closingRemotely(received: frame)
        readsFrames = false
        // What followed the peer's Close frame is never read (RFC 6455 §5.5.1).
        releaseInput()
        stopKeepalive()
        closeTimer = configuration.timeouts.close.map(arm) ?? .off
    }

    /// Ends the connection for good and emits `.closed`, choosing what the transport does next
    /// (``TransportDirective``): once the input ended, or when `aborting`, it closes at once; a client
    /// that closed cleanly waits for the server to close it; everything else half-closes and drains.
    mutating func enterClosed(_ status: CloseStatus, aborting: Bool = false) {
        if case .closed = phase { preconditionFailure("closed twice") }
        let disposition: TransportDisposition
        if inputEnded || aborting {
            disposition = .closeNow
        } else if isClient && status.wasClean {
            disposition = .awaitPeerClose
        } else if configuration.timeouts.linger != nil {
            disposition = .drain
        } else {
            disposition = .closeNow
        }
        phase = .closed(status, transport: disposition)
        readsFrames = false
        handshakeTimer = .off
        stopKeepalive()
        closeTimer = disposition == .awaitPeerClose ? (configuration.timeouts.close.map(arm) ?? .off) : .off
        lingerTimer = disposition == .drain ? (configuration.timeouts.linger.map(arm) ?? .off) : .off
        releaseInput()
        messageBuffer = []
        enqueue(.closed(status))
    }

    /// Drops buffered input and the buffers that held it.
    private mutating func releaseInput() {
        inbox = []
        spareInbox = []
        inboxStart = 0
        inboxIsShared = false
    }

    /// The peer closed the transport, or we stop waiting for it to (the close or linger timer ran
    /// out, or the caller aborted): the transport closes now.
    mutating func releaseTransport() {
        guard case .closed(let status, let disposition) = phase, disposition != .closeNow else { return }
        phase = .closed(status, transport: .closeNow)
        closeTimer = .off
        lingerTimer = .off
    }

    private mutating func stopKeepalive() {
        pingTimer = .off
        pongTimer = .off
    }

    /// A timer for `duration` from the last reported time, or pending until the first report.
    func arm(_ duration: Duration) -> Timer {
        if let now = lastReportedTime { return .armed(now + duration) }
        return .pending(duration)
    }
}
