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
// 6. Once `.closed`, the connection never changes phase again; `shouldCloseTransport` says whether the
//    caller should now close the socket (at once for a server, RFC 6455 §7.1.1; after the server did,
//    or after the close timeout, for a client).

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
    /// Close it once the output is written.
    case closeNow
    /// (Client) Wait for the server to close it (RFC 6455 §7.1.1), until the close timer runs out.
    case awaitPeerClose
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

    /// Whether the caller should close the transport now, after writing the pending output.
    public var shouldCloseTransport: Bool {
        if case .closed(_, .closeNow) = phase { return true }
        return false
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

    /// Ends the connection for good and emits `.closed`. A clean close by a client waits for the
    /// server to close the transport; everything else closes it at once.
    mutating func enterClosed(_ status: CloseStatus) {
        if case .closed = phase { preconditionFailure("closed twice") }
        let waitsForPeer = isClient && status.wasClean && !inputEnded
        phase = .closed(status, transport: waitsForPeer ? .awaitPeerClose : .closeNow)
        readsFrames = false
        handshakeTimer = .off
        stopKeepalive()
        closeTimer = waitsForPeer ? (configuration.timeouts.close.map(arm) ?? .off) : .off
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

    /// (Client, closed cleanly) The server closed the transport, or we stop waiting for it.
    mutating func releaseTransport() {
        guard case .closed(let status, .awaitPeerClose) = phase else { return }
        phase = .closed(status, transport: .closeNow)
        closeTimer = .off
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
