extension Connection {
    /// The earliest instant at which ``advanceTime(to:)`` has something to do, or `nil` when no timer
    /// is armed. Timers start at the first reported time, so report one when the connection starts.
    public var nextDeadline: Instant? {
        // The five timers compared in place: adapters ask after every read and write, and this must
        // not allocate (an array's `min()` would, and so does a local function that captures a
        // variable, in an unoptimised build).
        Self.earlier(Self.earlier(Self.earlier(handshakeTimer.deadline, closeTimer.deadline),
                                  Self.earlier(pingTimer.deadline, pongTimer.deadline)),
                     lingerTimer.deadline)
    }

    /// The earlier of two deadlines, `nil` standing for none.
    @inline(__always)
    private static func earlier(_ a: Instant?, _ b: Instant?) -> Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return b < a ? b : a
    }

    /// Reports the current time (from any monotonic clock; only differences matter). Runs the timers
    /// that expired: the opening handshake timeout, keepalive pings and their pong timeout, and the
    /// closing handshake timeout. Their events are pulled with ``nextEvent()`` and their frames taken
    /// with the output. Time never runs backwards here: an earlier instant than the last is ignored.
    public mutating func advanceTime(to now: Instant) {
        if let last = lastReportedTime, now < last { return }
        lastReportedTime = now
        handshakeTimer.arm(at: now)
        closeTimer.arm(at: now)
        pingTimer.arm(at: now)
        pongTimer.arm(at: now)
        lingerTimer.arm(at: now)

        switch phase {
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision:
            if handshakeTimer.hasExpired(at: now) {
                _ = failHandshake(.timedOut)
            }
        case .open:
            if pongTimer.hasExpired(at: now) {
                // The peer is gone or stuck: fail the connection (RFC 6455 §7.1.7) with 1011, the code
                // keepalive timeouts are commonly reported with, and report 1006 locally since no
                // Close frame came back.
                writeClose(CloseFrame(code: .internalError, reason: "keepalive timeout"))
                enterClosed(CloseStatus(code: .abnormalClosure, reason: "keepalive timeout", wasClean: false,
                                        failure: .keepaliveTimeout))
            } else if pingTimer.hasExpired(at: now) {
                keepaliveCount &+= 1
                // The payload is the counter, big-endian, lent from the stack: no array per ping.
                let counter = keepaliveCount.bigEndian
                withUnsafeBytes(of: counter) { writeFrame(.ping, fin: true, payload: $0) }
                pingTimer = .off
                let timeouts = configuration.timeouts
                if let timeout = timeouts.keepaliveTimeout {
                    pongTimer = .armed(now + timeout)
                } else {
                    pongTimer = .off
                    if let interval = timeouts.keepaliveInterval { pingTimer = .armed(now + interval) }
                }
            }
        case .closingLocally:
            if closeTimer.hasExpired(at: now) {
                enterClosed(CloseStatus(code: .abnormalClosure, reason: "close handshake timed out", wasClean: false,
                                        failure: .closeTimeout))
            }
        case .closingRemotely(let received):
            if closeTimer.hasExpired(at: now) {
                // Our message did not end in time: the reply goes out anyway.
                writeCloseReply(to: received)
                outgoing = .none
                enterClosed(CloseStatus(code: received.code, reason: received.reason, wasClean: true))
            }
        case .closed:
            if closeTimer.hasExpired(at: now) || lingerTimer.hasExpired(at: now) { releaseTransport() }
        }
    }

    /// A pong arrived: the peer is alive; the next keepalive ping is due one interval from now.
    mutating func pongArrived() {
        guard case .armed = pongTimer else { return }
        pongTimer = .off
        if let interval = configuration.timeouts.keepaliveInterval { pingTimer = arm(interval) }
    }
}
