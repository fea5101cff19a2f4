// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The instant at which to call ``advanceTime(to:)`` next, or `nil` when no timer runs: the
    /// phase's timers (handshake, keepalive, close, linger) and the timeouts of awaited pings
    /// (``sendPing(_:awaitingPongWithin:)``).
    ///
    /// Ask after every call, and report the time once this instant has come. A timer that a call
    /// started (a `close`, a Close from the peer, the connection opening, an awaited ping) counts
    /// from the next time you report, not from the last: until then this is the last time reported
    /// (``Connection/Instant/zero`` before any), that is, at once. So a caller that reports the time
    /// only when it is asked to gets every timeout in full, however long ago it last reported.
    @inlinable
    public var nextDeadline: Connection.Instant? {
        // A stored value (kept by `phase`, `lastReportedTime` and `awaitedPings` as they change), read
        // by inlined code: from a class's stored property it is read in place, where a getter that
        // computed it (comparing `Duration`s, calls the optimizer cannot see into) made the caller
        // copy the whole connection first (1,292 instructions a call instead of a few).
        deadline
    }

    /// ``nextDeadline`` computed from the timers, for tests and fuzzers to check the stored one against.
    @_spi(Testing) public var recomputedDeadline: Connection.Instant? { computedDeadline() }

    /// ``nextDeadline``, computed: what `deadline` is kept equal to.
    func computedDeadline() -> Connection.Instant? {
        // Without an awaited ping, the pings cost two comparisons.
        let now = lastReportedTime ?? .zero
        if awaitedPings.awaitsClock { return now }
        let phase = phaseSummary.timerPending ? Self.earlier(now, phaseSummary.earliestArmed) : phaseSummary.earliestArmed
        guard let ping = awaitedPings.earliestDeadline else { return phase }
        return Self.earlier(phase, ping)
    }

    /// The earlier of two deadlines, `nil` standing for none.
    package static func earlier(_ a: Connection.Instant?, _ b: Connection.Instant?) -> Connection.Instant? {
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
    ///
    /// Inlinable: adapters report the time after every read, and the usual report, with nothing
    /// due, only stores it, inlined where it is called (a call cost about 25 instructions per echoed
    /// message).
    @inlinable
    public mutating func advanceTime(to now: Connection.Instant) {
        if let last = lastReportedTime {
            if now < last { return }
            // A pending timer is due at once, so with nothing due there is nothing to run: adapters
            // report the time after every read, and the pass through the phase's timers cost more
            // than the rest of this call.
            if deadline.map({ now < $0 }) ?? true {
                // The deadline stays what it was: one after `now` comes from an armed timer, not
                // from the time reported (a pending timer, or a ping awaiting its clock, would have
                // made it the last report, which is not after `now`), and none stays none.
                lastReportedTime = now
                return
            }
        }
        runTimers(at: now)
    }

    /// ``advanceTime(to:)`` when a timer may be due (or the time is reported for the first time).
    @usableFromInline
    internal mutating func runTimers(at now: Connection.Instant) {
        lastReportedTime = now
        armingTime = now
        defer { armingTime = nil }
        // Pings sent since the last report count as sent now, and their timers start.
        if awaitedPings.awaitsClock { awaitedPings.startClock(at: now) }
        // Without an awaited ping that has a timeout, one comparison with `nil`.
        if let deadline = awaitedPings.earliestDeadline, deadline <= now { awaitedPings.timeOut(at: now) }
        transition(.timeAdvanced(to: now))
        // A pending timer now counts from `now` even when nothing else changed.
        deadline = computedDeadline()
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
