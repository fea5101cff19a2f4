// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Theory of operation
//
// A `Connection` is a value: every input (bytes, end of stream, time, a send, a handshake decision)
// is a mutating call, every output is either an event pulled with `nextEvent()` or bytes taken from the
// output buffer. Nothing happens between calls.
//
// 1. The lifecycle is one enum, `Phase`, and one function changes it: `transition(_:)`, an exhaustive
//    switch over (input, phase), is the only writer of `phase` after `init` sets its first value. In the
//    manner of h11's `_state.py`, callers say what happened (`PhaseInput`: a request read, a Close
//    received, a violation, the end of the input, a timer's time, `close()`, `abort()` …), never which
//    phase to enter; the transition decides the next phase and does what entering it means (timers,
//    the frames that go with it, the lifecycle events `.handshakeRequest`, `.handshakeCompleted`,
//    `.handshakeFailed`, `.closeReceived`, `.protocolViolation` and `.closed`). An input a phase does
//    not act on changes nothing, so no sequence of calls can reach a trap. The table is in
//    docs/architecture.md; the public `State` is a projection of the phase.
// 2. State that belongs to a phase is in that phase's payload: the handshake key and offer, the
//    request awaiting a decision, each timer, the keepalive counter, the Close frames of the closing
//    phases, the transport's disposition once closed. Leaving a phase drops its state, so nothing
//    can outlive it or disagree with it. Two exceptions keep the handshake's buffers mutating in place
//    (an enum payload is copied out and back, with its buffer): the HTTP head parser and a refusal's
//    body reader are stored properties that always hold a value, and the phase says which is in use.
//    Beside the phase sit the streams, which are not lifecycle: the input (bytes, and whether the
//    transport's input ended, which the reader reaches in order, after the bytes before it), the frame
//    and message being read, the message being sent, and the output; and the awaited pings, which
//    span phases (sent while open or closing remotely, answered while open or closing locally) and
//    all end when the connection enters `closed`.
// 3. What the caller may do in each phase is decided in one place, `checkPermission(_:)`. A caller's
//    misuse throws `Connection.UsageError` and changes nothing; a permitted call then reports what it did to
//    the transition (`close()` as `.closeCalled`, the last fragment as `.messageSent`).
// 4. Input is parsed lazily, inside `nextEvent()`: `receive(_:)` only buffers. Automatic replies (pong,
//    the close reply, an HTTP error response) are therefore queued while events are pulled; a caller
//    drains events, then writes output. Lifecycle events are queued by the transition and pulled
//    before the reader steps again, so they come out in the order they happened.
// 5. A peer's violation queues the Close frame with the violation's code, emits `.protocolViolation`
//    then `.closed`, and every later input byte is ignored (RFC 6455 §7.1.7).
// 6. A timer that an input starts waits as `.pending` and arms at the next time reported (the last
//    one may be long past); `nextDeadline` asks for that report at once. A timer that a timer starts
//    (`timeAdvanced`) counts from the time being reported. An awaited ping's clock and timeout start
//    at the report after its send; when the timeout expires the ping ends and nothing else changes.
// 7. Once `.closed`, the connection never leaves it; only its transport disposition changes, toward
//    closing now. `transportDirective` says what the caller should do with the transport (RFC 6455
//    §7.1.1): a client that closed cleanly waits for the server to close TCP (bounded by the close
//    timer); otherwise the caller writes what is left, shuts down its sending side and reads until the
//    peer closes too (bounded by the linger timer), so that unread bytes cannot turn the close into a
//    reset that destroys the last frames; once the input ended, or the caller aborted, the transport
//    closes at once. Every adapter obeys it the same way.

extension Connection {
    /// Throws unless the caller may do `action` in this phase; changes nothing. The one place that
    /// knows which phase allows what (the table is in docs/architecture.md). Answering the opening
    /// handshake is allowed only while ``pendingHandshakeRequest`` holds a request.
    @inline(__always)
    func checkPermission(_ action: LocalAction) throws(Connection.UsageError) {
        switch phase {
        case .open:
            return
        case .closingRemotely:
            // The peer's Close arrived while our fragmented message was going out: the message may
            // be finished (and pings sent meanwhile), then our Close answers theirs (RFC 6455 §5.5.1).
            if action == .startMessage { throw .closeAlreadySent }
        case .closingLocally:
            throw .closeAlreadySent
        case .closed(let status, _):
            // After a clean closing handshake a send is "too late"; after a failure the connection
            // never was (or no longer is) usable. A message cut off by the close cannot go on either way.
            guard action != .continueMessage, status.failure == nil, status.wasClean else { throw .notOpen }
            throw .closeAlreadySent
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision:
            throw .notOpen
        }
    }

    // MARK: The transition (the only writer of `phase` after `init`)

    /// Moves the lifecycle on after `input`: the one place that decides the next phase and what comes
    /// with entering it (timers in its payload, frames queued, lifecycle events). An input a phase
    /// does not act on leaves everything unchanged; the readers, the timers and ``checkPermission(_:)``
    /// never produce those pairs, and none of them traps.
    mutating func transition(_ input: consuming PhaseInput) {
        // Consumed: a payload (a request, a result, a Close frame) moves into its case's binding
        // instead of being copied there and destroyed by the caller.
        switch consume input {
        case .requestRead(let request):
            switch phase {
            case .serverAwaitingRequest(let timeout):
                enqueue(.handshakeRequest(request))
                phase = .serverAwaitingDecision(request, timeout: timeout)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingDecision, .open, .closingLocally,
                 .closingRemotely, .closed:
                break
            }

        case .refusalRead(let head):
            switch phase {
            case .clientAwaitingResponse(_, _, let timeout):
                bodyReader = HTTPBodyReader(head: head, limit: max(0, configuration.limits.maxRejectionBodySize))
                phase = .clientReadingRejection(head, timeout: timeout)
            case .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision, .open, .closingLocally,
                 .closingRemotely, .closed:
                break
            }

        case .refusalBodyRead:
            switch phase {
            case .clientReadingRejection(let head, _):
                phase = failedHandshake(refusal(Connection.HTTPResponse(head: head, body: bodyReader.body)))
            case .clientAwaitingResponse, .serverAwaitingRequest, .serverAwaitingDecision, .open, .closingLocally,
                 .closingRemotely, .closed:
                break
            }

        case .handshakeCompleted(let result, let negotiated):
            switch phase {
            case .clientAwaitingResponse, .serverAwaitingDecision:
                phase = openPhase(negotiated)
                enqueue(.handshakeCompleted(result))
            case .clientReadingRejection, .serverAwaitingRequest, .open, .closingLocally, .closingRemotely, .closed:
                break
            }

        case .openedExternally(let negotiated):
            switch phase {
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision:
                phase = openPhase(negotiated)
            case .open, .closingLocally, .closingRemotely, .closed:
                break
            }

        case .handshakeFailed(let failure):
            switch phase {
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision:
                phase = failedHandshake(failure)
            case .open, .closingLocally, .closingRemotely, .closed:
                break
            }

        case .handshakeRejected:
            switch phase {
            case .serverAwaitingDecision:
                phase = closedPhase(.handshakeRejected)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .open, .closingLocally,
                 .closingRemotely, .closed:
                break
            }

        case .closeReceived(let frame):
            // The readers report a Close only while they read frames (open, closing locally).
            closeCodeReceived = frame.code
            switch phase {
            case .open:
                enqueue(.closeReceived(frame))
                if case .sending = outgoing {
                    // RFC 6455 §5.5.1: "An endpoint MAY delay sending a Close frame until its current
                    // message is sent": the reply goes out with the last fragment, or at the close timer.
                    // What followed the peer's Close frame is never read.
                    releaseInput()
                    phase = .closingRemotely(received: frame, timeout: closeTimeout())
                } else {
                    writeCloseReply(to: frame)
                    phase = closedPhase(Connection.CloseStatus(code: frame.code, reason: frame.reason, wasClean: true))
                }
            case .closingLocally:
                // The reply to our Close: the closing handshake is complete (RFC 6455 §7.1.5: the close
                // code is the one in the first Close frame received).
                enqueue(.closeReceived(frame))
                phase = closedPhase(Connection.CloseStatus(code: frame.code, reason: frame.reason, wasClean: true))
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .closingRemotely, .closed:
                break
            }

        case .pongReceived:
            switch phase {
            case .open(var keepalive):
                // The peer is alive: the next keepalive ping is due one interval from now.
                guard case .armed = keepalive.pong else { return }
                keepalive.pong = .off
                if let interval = configuration.timeouts.keepaliveInterval { keepalive.ping = arm(interval) }
                phase = .open(keepalive)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .closingLocally, .closingRemotely, .closed:
                break
            }

        case .violation(let violation):
            switch phase {
            case .open:
                writeClose(Connection.CloseFrame(code: violation.closeCode, reason: violation.reason))
                phase = failedConnection(violation)
            case .closingLocally:
                // Our Close is already out: nothing more is sent.
                phase = failedConnection(violation)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .closingRemotely, .closed:
                break
            }

        case .endOfStream:
            switch phase {
            case .clientAwaitingResponse, .serverAwaitingRequest:
                phase = failedHandshake(.endOfStream)
            case .clientReadingRejection(let head, _):
                // For a body read until close, the end of the transport is its normal end (RFC 9112
                // §6.3); any other body is reported with what arrived.
                phase = failedHandshake(refusal(Connection.HTTPResponse(head: head, body: bodyReader.body)))
            case .open, .closingLocally:
                // RFC 6455 §7.1.5: the transport closed without a closing handshake: 1006.
                phase = closedPhase(.lostWithoutClose)
            case .serverAwaitingDecision, .closingRemotely, .closed:
                // Nothing is read in these phases, so the reader never gets to the end.
                break
            }

        case .closeCalled(let frame):
            switch phase {
            case .open:
                writeClose(frame)
                phase = .closingLocally(sent: frame, timeout: closeTimeout())
            case .closingRemotely(let received, _):
                phase = answeredRemoteClose(received, with: frame)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .closingLocally, .closed:
                break
            }

        case .messageSent:
            switch phase {
            case .closingRemotely(let received, _):
                phase = answeredRemoteClose(received, with: nil)
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .open, .closingLocally, .closed:
                break
            }

        case .inputEnded:
            switch phase {
            case .closed(let status, .awaitPeerClose), .closed(let status, .drain):
                // The peer closed the transport, which is what these dispositions wait for.
                phase = .closed(status, transport: .closeNow)
            case .closed(_, .closeNow), .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest,
                 .serverAwaitingDecision, .open, .closingLocally, .closingRemotely:
                // Input received before the end is read first; the reader then reports `endOfStream`.
                break
            }

        case .aborted:
            switch phase {
            case .closed(let status, .awaitPeerClose), .closed(let status, .drain):
                phase = .closed(status, transport: .closeNow)
            case .closed(_, .closeNow):
                break
            case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
                 .open, .closingLocally, .closingRemotely:
                phase = closedPhase(.aborted, aborting: true)
            }

        case .timeAdvanced(let now):
            // A pending timer starts at this report, then each phase runs its own.
            switch phase {
            case .clientAwaitingResponse(let key, let offered, var timeout):
                timeout.arm(at: now)
                phase = timeout.hasExpired(at: now) ? failedHandshake(.timedOut)
                    : .clientAwaitingResponse(key: key, offered: offered, timeout: timeout)
            case .clientReadingRejection(let head, var timeout):
                timeout.arm(at: now)
                phase = timeout.hasExpired(at: now) ? failedHandshake(.timedOut) : .clientReadingRejection(head, timeout: timeout)
            case .serverAwaitingRequest(var timeout):
                timeout.arm(at: now)
                phase = timeout.hasExpired(at: now) ? failedHandshake(.timedOut) : .serverAwaitingRequest(timeout: timeout)
            case .serverAwaitingDecision(let request, var timeout):
                timeout.arm(at: now)
                phase = timeout.hasExpired(at: now) ? failedHandshake(.timedOut)
                    : .serverAwaitingDecision(request, timeout: timeout)
            case .open(var keepalive):
                keepalive.ping.arm(at: now)
                keepalive.pong.arm(at: now)
                if keepalive.pong.hasExpired(at: now) {
                    // The peer is gone or stuck: fail the connection (RFC 6455 §7.1.7) with 1011, the
                    // code keepalive timeouts are commonly reported with, and report 1006 locally since
                    // no Close frame came back.
                    writeClose(Connection.CloseFrame(code: .internalError, reason: "keepalive timeout"))
                    phase = closedPhase(.keepaliveTimedOut)
                } else {
                    if keepalive.ping.hasExpired(at: now) { sendKeepalivePing(&keepalive, at: now) }
                    phase = .open(keepalive)
                }
            case .closingLocally(let sent, var timeout):
                timeout.arm(at: now)
                phase = timeout.hasExpired(at: now)
                    ? closedPhase(.closeTimedOut)
                    : .closingLocally(sent: sent, timeout: timeout)
            case .closingRemotely(let received, var timeout):
                timeout.arm(at: now)
                // Our message did not end in time: the reply goes out anyway.
                phase = timeout.hasExpired(at: now) ? answeredRemoteClose(received, with: nil)
                    : .closingRemotely(received: received, timeout: timeout)
            case .closed(let status, .awaitPeerClose(var timeout)):
                timeout.arm(at: now)
                phase = .closed(status, transport: timeout.hasExpired(at: now) ? .closeNow : .awaitPeerClose(until: timeout))
            case .closed(let status, .drain(var timeout)):
                timeout.arm(at: now)
                phase = .closed(status, transport: timeout.hasExpired(at: now) ? .closeNow : .drain(until: timeout))
            case .closed(_, .closeNow):
                break
            }
        }
    }

    // MARK: Entering phases (for `transition` only: they return the phase, and it assigns it)

    /// The open phase, with the negotiated transform installed and the keepalive armed.
    @inline(__always)
    private mutating func openPhase(_ negotiated: Connection.Transform?) -> Phase {
        transform = negotiated
        transformBits = negotiated?.reservedBits ?? 0
        return .open(Keepalive(ping: armed(configuration.timeouts.keepaliveInterval)))
    }

    private func closeTimeout() -> Timer {
        armed(configuration.timeouts.close)
    }

    /// Reports the handshake's failure, then closes. After a timeout the transport closes at once: a
    /// peer that said nothing in the whole handshake time has nothing to drain, and the linger would
    /// only hold the caller longer.
    private mutating func failedHandshake(_ failure: Connection.HandshakeFailure) -> Phase {
        enqueue(.handshakeFailed(failure))
        return closedPhase(.handshakeFailed, aborting: failure == .timedOut)
    }

    /// (RFC 6455 §7.1.7) Stops reading the frame in progress, reports the violation, then closes.
    private mutating func failedConnection(_ violation: Connection.ProtocolViolation) -> Phase {
        frame = .header
        incoming = .none
        enqueue(.protocolViolation(violation))
        return closedPhase(Connection.CloseStatus(code: violation.closeCode, reason: violation.reason, wasClean: false,
                                       failure: .protocolViolation(violation)))
    }

    /// Our Close answers the peer's, after (or instead of) the rest of our message: `frame` when the
    /// caller chose one, otherwise the echo of the peer's code. The closing handshake is complete.
    private mutating func answeredRemoteClose(_ received: Connection.CloseFrame, with frame: Connection.CloseFrame?) -> Phase {
        if let frame { writeClose(frame) } else { writeCloseReply(to: received) }
        outgoing = .none
        return closedPhase(Connection.CloseStatus(code: received.code, reason: received.reason, wasClean: true))
    }

    /// The closed phase, choosing what the transport does next (``Connection/TransportDirective``): once the
    /// input ended, or when `aborting`, it closes at once; a client that closed cleanly waits for the
    /// server to close it; everything else half-closes and drains. Ends the awaited pings (the
    /// connection closed first) and emits `.closed`.
    private mutating func closedPhase(_ status: Connection.CloseStatus, aborting: Bool = false) -> Phase {
        let disposition: TransportDisposition
        if inputEnded || aborting {
            disposition = .closeNow
        } else if isClient && status.wasClean {
            disposition = .awaitPeerClose(until: closeTimeout())
        } else if let linger = configuration.timeouts.linger {
            disposition = .drain(until: arm(linger))
        } else {
            disposition = .closeNow
        }
        releaseInput()
        messageBuffer = []
        bodyReader = HTTPBodyReader()
        awaitedPings.endAll(status)
        enqueue(.closed(status))
        return .closed(status, transport: disposition)
    }

    /// Drops buffered input and the buffers that held it.
    private mutating func releaseInput() {
        inbox = []
        spareInbox = []
        inboxStart = 0
        inboxIsShared = false
    }

    /// A timer for `duration`: from the time being reported, when the timers arm it; otherwise
    /// pending until the next report, since the last one may be long past (a caller that reports
    /// only when a deadline passes would otherwise get a close timeout that has already run out).
    /// A pending timer makes ``nextDeadline`` ask for a report at once.
    func arm(_ duration: Duration) -> Timer {
        if let now = armingTime { return .armed(now + duration) }
        return .pending(duration)
    }

    /// ``arm(_:)`` for a timeout that may be off. (Not `duration.map(arm)`: the method reference
    /// captures a copy of the whole connection, a retain of every reference it holds.)
    @inline(__always)
    func armed(_ duration: Duration?) -> Timer {
        guard let duration else { return .off }
        return arm(duration)
    }
}

extension Connection {
    /// A client's refusal as reported: a redirect it can follow, or the response as such.
    func refusal(_ response: Connection.HTTPResponse) -> Connection.HandshakeFailure {
        if case .client(let options) = role, let redirect = Connection.Redirect(response: response, from: options.url) {
            return .redirected(redirect)
        }
        return .rejected(response)
    }
}
