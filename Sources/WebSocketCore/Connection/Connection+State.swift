// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
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
        case closed(Connection.CloseStatus)

        /// Which end sent the first Close frame.
        public enum Side: Sendable, Hashable {
            /// This connection (``Connection/close(code:reason:)`` or a timeout).
            case local
            /// The peer.
            case remote
        }
    }
}

extension Connection {
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
        /// (``Connection/receiveEOF()``) or the close timer (``Connection/Timeouts/close``) runs out.
        case awaitPeerClose
        /// Write the pending output, then shut down the sending side of the transport (a TCP FIN, after
        /// a TLS close_notify), and keep reading: what arrives is discarded. The directive becomes
        /// ``close`` when the input ends or at `deadline` (``Connection/Timeouts/linger`` after the close; `nil`
        /// until a time is reported after it: ``Connection/nextDeadline`` asks for one at once), when pending output is given up on as well.
        case halfCloseAndDrain(deadline: Connection.Instant?)
        /// Close the transport now. Pending output may be written first if the transport takes it
        /// without waiting (a reply to a peer that shut down only its own sending side).
        case close
    }
}

extension Connection {
    /// The connection's lifecycle state.
    @inlinable
    public var state: Connection.State { phaseSummary.state }

    /// Whether ``state`` is ``Connection/State/open``: a test of the state's case, inlined where it
    /// is asked, where `state == .open` is a call to the derived equality of an enum with a payload
    /// (about 35 instructions per echo, asked before every send from a loop).
    @inlinable
    public var isOpen: Bool {
        if case .open = phaseSummary.state { return true }
        return false
    }

    /// Whether the caller should stop using the transport: ``transportDirective`` is
    /// ``Connection/TransportDirective/halfCloseAndDrain(deadline:)`` or ``Connection/TransportDirective/close``. A caller
    /// that then closes the socket at once is correct, but may lose its last frames to a TCP reset
    /// when the peer still sends; ``transportDirective`` says how to close gracefully.
    @inlinable
    public var shouldCloseTransport: Bool {
        switch phaseSummary.directive {
        case .close, .halfCloseAndDrain: return true
        case .keepOpen, .awaitPeerClose: return false
        }
    }

    /// What the caller should do with the transport now (RFC 6455 §7.1.1); see ``Connection/TransportDirective``.
    @inlinable
    public var transportDirective: Connection.TransportDirective { phaseSummary.directive }

}

/// What the public getters read of the phase, kept beside it (``Connection/phase``'s `didSet`), so that
/// they are inlinable into the caller's module and read a few words where the connection lies: read
/// from a class's stored property, a getter that is an opaque call makes the caller copy the whole
/// connection first (about 700 instructions, callgrind), where one inlined reads what it needs.
@usableFromInline
struct PhaseSummary: Sendable {
    /// ``Connection/state``.
    @usableFromInline var state: Connection.State
    /// ``Connection/transportDirective``.
    @usableFromInline var directive: Connection.TransportDirective
    /// Whether one of the phase's timers waits for the next report of the time (due at once).
    @usableFromInline var timerPending: Bool
    /// The earliest deadline of the phase's armed timers.
    @usableFromInline var earliestArmed: Connection.Instant?
    /// ``Connection/pendingHandshakeRequest`` (one pointer: the request keeps its fields in a box).
    @usableFromInline var pendingRequest: Connection.HandshakeRequest? = nil
    /// Whether the phase reads frames (open, or closing after our Close frame) rather than an HTTP
    /// head, or nothing: what ``Connection/isAwaitingInput`` asks of the phase, in the caller.
    @usableFromInline var readsFrames = false

    init(_ phase: borrowing Phase) {
        state = .connecting
        directive = .keepOpen
        timerPending = false
        earliestArmed = nil
        update(phase)
    }

    /// Sets every field from `phase`, in place. (A new summary assigned whole was built in a
    /// temporary, copied out and the temporary destroyed, at every transition.)
    mutating func update(_ phase: borrowing Phase) {
        var timers: (Timer, Timer) = (.off, .off)
        var request: Connection.HandshakeRequest? = nil
        var frames = false
        // `let`s, so that the compiler checks that every case sets both.
        let newState: Connection.State
        let newDirective: Connection.TransportDirective
        switch phase {
        case .clientAwaitingResponse(_, _, let timeout), .clientReadingRejection(_, let timeout),
             .serverAwaitingRequest(let timeout):
            newState = .connecting
            newDirective = .keepOpen
            timers.0 = timeout
        case .serverAwaitingDecision(let pending, let timeout):
            newState = .connecting
            newDirective = .keepOpen
            timers.0 = timeout
            request = pending
        case .open(let keepalive):
            newState = .open
            newDirective = .keepOpen
            timers = (keepalive.ping, keepalive.pong)
            frames = true
        case .closingLocally(_, let timeout):
            newState = .closing(initiatedBy: .local)
            newDirective = .keepOpen
            timers.0 = timeout
            frames = true
        case .closingRemotely(_, let timeout):
            newState = .closing(initiatedBy: .remote)
            newDirective = .keepOpen
            timers.0 = timeout
        case .closed(let status, .closeNow):
            newState = .closed(status)
            newDirective = .close
        case .closed(let status, .awaitPeerClose(let timeout)):
            newState = .closed(status)
            newDirective = .awaitPeerClose
            timers.0 = timeout
        case .closed(let status, .drain(let linger)):
            newState = .closed(status)
            newDirective = .halfCloseAndDrain(deadline: linger.deadline)
            timers.0 = linger
        }
        state = newState
        directive = newDirective
        pendingRequest = request
        readsFrames = frames
        timerPending = timers.0.isPending || timers.1.isPending
        earliestArmed = Connection.earlier(timers.0.deadline, timers.1.deadline)
    }
}
