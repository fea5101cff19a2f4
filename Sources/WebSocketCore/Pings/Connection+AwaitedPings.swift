// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Awaited pings (RFC 6455 §5.5.2, §5.5.3): pings whose pongs the connection waits for, matched by
// payload, timed with the reported time, ended by their pong, their timeout or the close. The state
// is `AwaitedPings`, beside the phase; this file is the caller's face and the hook the frame reader
// calls. The timers (`advanceTime(to:)`, `nextDeadline`) and the transition into `closed` call the
// rest.

extension Connection {
    /// Sends a ping whose pong is awaited, and returns the identifier its outcome is reported under.
    ///
    /// The ping ends in one of three ways, each reported once by ``nextPingOutcome()``:
    ///
    /// - A pong with its payload is read: ``Connection/PingOutcome/answered(_:)``, with the round
    ///   trip. That pong also answers every awaited ping sent before this one, which end the same way:
    ///   RFC 6455 §5.5.3 lets a peer answer only the most recent of several pings. A pong whose
    ///   payload no awaited ping has (unsolicited, or the answer to a keepalive ping) answers none.
    ///   Every pong is still reported as ``Connection/Event/pong(_:)`` and still answers the
    ///   keepalive, as before.
    /// - `timeout` passes first: ``Connection/PingOutcome/timedOut``. Nothing else changes: the
    ///   connection goes on, and a pong for this ping that comes later answers nothing.
    /// - The connection closes first, in any way (a closing handshake, ``abort()``, a violation, the
    ///   end of the stream, a timer): ``Connection/PingOutcome/connectionClosed(_:)``, with the status
    ///   of ``Connection/Event/closed(_:)``.
    ///
    /// The round trip runs from the first time reported with ``advanceTime(to:)`` after the send
    /// (``nextDeadline`` asks for it at once) to the last time reported when its pong is read: report
    /// the time before you pull events, as you do for the timers. When the pong is read at that first
    /// report (a loop that reports at the start of each turn, and a quick pong), it runs from the last
    /// report before the send instead. The timeout starts at that first report, as every timer a call
    /// starts does; without any report around the send, the round trip is zero.
    ///
    /// ```swift
    /// let id = try connection.sendPing(awaitingPongWithin: .seconds(10))
    /// // … write the output, read, report the time, pull events …
    /// while let (ended, outcome) = connection.nextPingOutcome() {
    ///     if ended == id, let roundTrip = outcome.answered { print("round trip: \(roundTrip)") }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - payload: at most 125 bytes. Default `nil`: a payload no other awaited ping of this connection
    ///     has (the bytes `ws`, then a 6-byte counter), and no keepalive ping's can equal (those are
    ///     an 8-byte counter from 1). A pong answers the first awaited ping whose payload it carries,
    ///     so a payload of your own should differ from the other awaited pings'.
    ///   - timeout: how long to wait for the pong, from the time the ping is sent; its deadline is part
    ///     of ``nextDeadline``. `nil` waits until the connection closes.
    /// - Returns: the ping's identifier, under which ``nextPingOutcome()`` reports how it ended.
    /// - Throws: what ``ping(_:)`` throws in the same state, in the same order
    ///   (``Connection/UsageError/notOpen``, ``Connection/UsageError/closeAlreadySent``,
    ///   ``Connection/UsageError/controlPayloadTooLarge``, ``Connection/UsageError/outputBufferFull``), then
    ///   ``Connection/UsageError/tooManyAwaitedPings`` when ``Connection/Limits/maxAwaitedPings`` pings are
    ///   awaited or have outcomes not taken yet. A refused ping is neither sent nor awaited. (While
    ///   closing remotely, when the peer's Close came during your fragmented message, a ping is still
    ///   sent, as with ``ping(_:)``; but nothing the peer sends is read any more, so it ends when the
    ///   connection closes.)
    ///
    /// RFC 6455 §5.5.2, §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public mutating func sendPing(_ payload: [UInt8]? = nil,
                                  awaitingPongWithin timeout: Duration?) throws(Connection.UsageError) -> Connection.PingID {
        try checkCanSendControl(payloadCount: payload?.count ?? 0)
        // Limits before memory: the count is checked before the payload is made or stored.
        guard awaitedPings.count < max(0, configuration.limits.maxAwaitedPings) else { throw .tooManyAwaitedPings }
        let bytes = payload ?? awaitedPings.makePayload()
        writeFrame(.ping, fin: true, payload: bytes)
        let deadline: Timer
        if let timeout { deadline = arm(timeout) } else { deadline = .off }
        return awaitedPings.add(payload: bytes, sentAt: armingTime, reportedBefore: lastReportedTime, deadline: deadline)
    }

    /// The next awaited ping that ended (answered, timed out, or the connection closed first), oldest
    /// first; `nil` when none.
    ///
    /// Pings end while you pull events (a pong is read), when you report the time (a timeout), and
    /// when the connection closes (while you pull events, on ``abort()``, or when a timer runs out):
    /// take outcomes after each. They come in the order the pings ended; pings that ended
    /// together (one pong answering several, or the close) in the order they were sent. Each is
    /// reported once, and until it is, its ping counts against ``Connection/Limits/maxAwaitedPings``.
    ///
    /// - Returns: the ping's identifier (from ``sendPing(_:awaitingPongWithin:)``) and how it ended.
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public mutating func nextPingOutcome() -> (id: Connection.PingID, outcome: Connection.PingOutcome)? {
        // Checked before the mutating call, which would recompute the stored deadline for nothing.
        guard awaitedPings.hasOutcome, let ended = awaitedPings.nextOutcome() else { return nil }
        return (ended.id, ended.outcome)
    }

    /// (The frame reader) A pong with `payload` was read: it answers the awaited pings it matches.
    mutating func answerAwaitedPings(_ payload: [UInt8]) {
        guard !awaitedPings.pending.isEmpty else { return }
        awaitedPings.answer(payload, at: lastReportedTime)
    }
}
