extension Connection {
    /// The earliest instant at which ``advanceTime(to:)`` has something to do, or `nil` when no timer
    /// is armed: the phase's timers (handshake, keepalive, close, linger) and the timeouts of awaited
    /// pings (``sendPing(_:awaitingPongWithin:)``). Timers start at the first reported time, so report
    /// one when the connection starts.
    public var nextDeadline: Connection.Instant? {
        // Adapters ask after every read and write, and this must not allocate. Without an awaited
        // ping that has a timeout, the pings cost one comparison with `nil`.
        guard let ping = awaitedPings.earliestDeadline else { return phaseDeadline }
        return Self.earlier(phaseDeadline, ping)
    }

    /// The earliest deadline of the phase's timers.
    @inline(__always)
    private var phaseDeadline: Connection.Instant? {
        // Each timer lives in the payload of its phase: only that phase's timers can be armed.
        switch phase {
        case .clientAwaitingResponse(_, _, let timeout), .clientReadingRejection(_, let timeout),
             .serverAwaitingRequest(let timeout), .serverAwaitingDecision(_, let timeout),
             .closingLocally(_, let timeout), .closingRemotely(_, let timeout),
             .closed(_, .awaitPeerClose(let timeout)), .closed(_, .drain(let timeout)):
            return timeout.deadline
        case .open(let keepalive):
            return Self.earlier(keepalive.ping.deadline, keepalive.pong.deadline)
        case .closed(_, .closeNow):
            return nil
        }
    }

    /// The earlier of two deadlines, `nil` standing for none.
    @inline(__always)
    private static func earlier(_ a: Connection.Instant?, _ b: Connection.Instant?) -> Connection.Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return b < a ? b : a
    }

    /// Reports the current time (from any monotonic clock; only differences matter). Runs the timers
    /// that expired: the opening handshake timeout, keepalive pings and their pong timeout, the
    /// closing handshake timeout, and the timeouts of awaited pings. Their events are pulled with
    /// ``nextEvent()``, their frames taken with the output, and the awaited pings that timed out
    /// reported by ``nextPingOutcome()``. Time never runs backwards here: an earlier instant than the
    /// last is ignored.
    ///
    /// Awaited pings whose timeout has passed end first, as timed out; then the phase's timers run
    /// (and if one closes the connection, the pings still awaited end as closed first).
    public mutating func advanceTime(to now: Connection.Instant) {
        if let last = lastReportedTime {
            if now < last { return }
            // Once a time has been reported no timer is pending (each is armed when it starts), so
            // with none due there is nothing to run: adapters report the time after every read, and
            // the pass through the phase's timers cost more than the rest of this call.
            if nextDeadline.map({ now < $0 }) ?? true {
                lastReportedTime = now
                return
            }
        } else if !awaitedPings.pending.isEmpty {
            // The first time reported: pings sent before it count as sent now, and their timers start.
            awaitedPings.startClock(at: now)
        }
        lastReportedTime = now
        // Without an awaited ping that has a timeout, one comparison with `nil`.
        if let deadline = awaitedPings.earliestDeadline, deadline <= now { awaitedPings.timeOut(at: now) }
        transition(.timeAdvanced(to: now))
    }

    /// (Open, the ping timer expired) Sends the next keepalive ping and waits for its pong, or, without
    /// a pong timeout, schedules the next ping.
    mutating func sendKeepalivePing(_ keepalive: inout Keepalive, at now: Connection.Instant) {
        keepalive.count &+= 1
        // The payload is the counter, big-endian, lent from the stack: no array per ping.
        let counter = keepalive.count.bigEndian
        withUnsafeBytes(of: counter) { writeFrame(.ping, fin: true, payload: $0) }
        keepalive.ping = .off
        let timeouts = configuration.timeouts
        if let timeout = timeouts.keepaliveTimeout {
            keepalive.pong = .armed(now + timeout)
        } else {
            keepalive.pong = .off
            if let interval = timeouts.keepaliveInterval { keepalive.ping = .armed(now + interval) }
        }
    }
}
