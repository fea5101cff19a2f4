// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The pings sent with ``Connection/sendPing(_:awaitingPongWithin:)`` that wait for their pongs, oldest
/// first, and the outcomes of those that ended, until the caller takes them (RFC 6455 §5.5.2, §5.5.3).
///
/// Not lifecycle state, so not in a phase's payload: pings are awaited across `open`, `closingLocally`
/// (the peer may still answer before its Close frame) and `closingRemotely`, and end all at once when
/// the connection enters `closed` (``Connection/transition(_:)``). A stored property of the connection,
/// so that its arrays mutate in place. It holds at most ``Connection/Limits/maxAwaitedPings`` pings,
/// counting those whose outcome is not taken yet, so neither list grows without bound.
///
/// The timers read ``earliestDeadline`` alone while nothing is pending: one comparison with `nil`.
struct AwaitedPings: Sendable {
    /// A ping whose pong is awaited.
    struct Ping: Sendable {
        var id: Connection.PingID
        var payload: [UInt8]
        /// When it was sent: the time reported next after its send (``startClock(at:)``), `nil` until then.
        var sentAt: Connection.Instant?
        /// The last time reported before its send, if any: the start of its round trip when the
        /// next report is the one its pong is read at (a loop that reports at the start of each
        /// turn reads a quick pong in the turn that starts the clock).
        var reportedBefore: Connection.Instant?
        /// When it times out: off without a timeout, pending until the next time reported.
        var deadline: Timer
    }

    /// A ping that ended, as ``Connection/nextPingOutcome()`` reports it.
    struct Outcome: Sendable {
        var id: Connection.PingID
        var outcome: Connection.PingOutcome
    }

    /// Awaited pings in the order they were sent.
    private(set) var pending: [Ping] = []
    /// Outcomes not taken yet, from `endedStart`, in the order the pings ended.
    private var ended: [Outcome] = []
    private var endedStart = 0
    /// The next ping's identifier, and the counter in the next default payload.
    private var counter: UInt64 = 0
    /// The earliest armed deadline of a pending ping; `nil` when none is armed.
    private(set) var earliestDeadline: Connection.Instant? = nil
    /// A ping was sent since the last time reported: its clock starts at the next report.
    private(set) var awaitsClock = false

    /// Pings that count against ``Connection/Limits/maxAwaitedPings``: those awaited and those whose
    /// outcome was not taken yet.
    var count: Int { pending.count + ended.count - endedStart }

    /// The heap its arrays hold, by capacity (for ``Connection/bufferCapacity``).
    var capacity: Int {
        var bytes = pending.capacity * MemoryLayout<Ping>.stride + ended.capacity * MemoryLayout<Outcome>.stride
        for ping in pending { bytes += ping.payload.capacity }
        return bytes
    }

    // MARK: Sending

    /// A payload no awaited ping has: the two bytes `ws`, then a 6-byte counter, big-endian. Keepalive
    /// pings carry an 8-byte counter from 1, whose top bytes are `ws` only after 2^62 pings, so a pong
    /// to one of them cannot answer an awaited ping. A counter value that a caller's payload already
    /// holds is skipped.
    mutating func makePayload() -> [UInt8] {
        while true {
            let value = counter
            var payload = [UInt8](repeating: 0, count: 8)
            payload[0] = 0x77  // "w"
            payload[1] = 0x73  // "s"
            for index in 2..<8 { payload[index] = UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * index)) }
            if !pending.contains(where: { $0.payload == payload }) { return payload }
            counter &+= 1
        }
    }

    /// Starts awaiting the pong to a ping just sent with `payload`; returns its identifier.
    mutating func add(payload: [UInt8], sentAt: Connection.Instant?, reportedBefore: Connection.Instant?,
                      deadline: Timer) -> Connection.PingID {
        let id = Connection.PingID(counter)
        counter &+= 1
        pending.append(Ping(id: id, payload: payload, sentAt: sentAt, reportedBefore: reportedBefore, deadline: deadline))
        if sentAt == nil { awaitsClock = true }
        if let instant = deadline.deadline, earliestDeadline.map({ instant < $0 }) ?? true { earliestDeadline = instant }
        return id
    }

    // MARK: Ending

    /// A pong with `payload` was read when `now` was the last time reported: it answers the first
    /// awaited ping with that payload and every ping sent before it (RFC 6455 §5.5.3: a peer may
    /// answer only the most recent of several pings). A payload no ping has answers none.
    mutating func answer(_ payload: [UInt8], at now: Connection.Instant?) {
        guard let index = pending.firstIndex(where: { $0.payload == payload }) else { return }
        for ping in pending[...index] {
            ended.append(Outcome(id: ping.id, outcome: .answered(Self.roundTrip(of: ping, to: now))))
        }
        pending.removeSubrange(...index)
        if awaitsClock { awaitsClock = pending.contains { $0.sentAt == nil } }
        findEarliestDeadline()
    }

    /// The time between the reports that followed the send and preceded the pong: zero when no time
    /// was reported between them (without a clock, they happened at the same unknown instant).
    /// The round trip of `ping`, answered when `now` was the last time reported: from the first
    /// report after its send, when that came before the pong was read; from the last report before
    /// its send, when the pong was read at that first report or before it (the send and the pong fell
    /// between the same two reports, and the earlier one is the better bound).
    static func roundTrip(of ping: Ping, to now: Connection.Instant?) -> Duration {
        if let sentAt = ping.sentAt, let now, sentAt < now { return now - sentAt }
        return roundTrip(from: ping.reportedBefore ?? ping.sentAt, to: now)
    }

    static func roundTrip(from sentAt: Connection.Instant?, to now: Connection.Instant?) -> Duration {
        guard let sentAt, let now, sentAt < now else { return .zero }
        return now - sentAt
    }

    /// A time was reported: pings sent since the last report count as sent then, and their timers
    /// start.
    mutating func startClock(at now: Connection.Instant) {
        awaitsClock = false
        for index in pending.indices where pending[index].sentAt == nil {
            pending[index].sentAt = now
            pending[index].deadline.arm(at: now)
        }
        findEarliestDeadline()
    }

    /// Ends the pings whose deadline is `now` or earlier as timed out, in the order they were sent.
    mutating func timeOut(at now: Connection.Instant) {
        guard let earliest = earliestDeadline, earliest <= now else { return }
        for ping in pending where ping.deadline.hasExpired(at: now) {
            ended.append(Outcome(id: ping.id, outcome: .timedOut))
        }
        pending.removeAll { $0.deadline.hasExpired(at: now) }
        findEarliestDeadline()
    }

    /// The connection closed with `status`: every awaited ping ends, in the order they were sent.
    mutating func endAll(_ status: Connection.CloseStatus) {
        guard !pending.isEmpty else { return }
        let outcome = Connection.PingOutcome.connectionClosed(status)
        for ping in pending { ended.append(Outcome(id: ping.id, outcome: outcome)) }
        pending.removeAll()
        earliestDeadline = nil
        awaitsClock = false
    }

    /// Whether an outcome waits to be taken.
    var hasOutcome: Bool { endedStart < ended.count }

    /// The oldest outcome not taken yet.
    mutating func nextOutcome() -> Outcome? {
        guard endedStart < ended.count else { return nil }
        return ended.dequeue(advancing: &endedStart)
    }

    private mutating func findEarliestDeadline() {
        earliestDeadline = nil
        for ping in pending {
            if let instant = ping.deadline.deadline, earliestDeadline.map({ instant < $0 }) ?? true { earliestDeadline = instant }
        }
    }
}
