// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A server connection's lifetime and idle limits (``LifetimeLimits``) as its session runs them.
/// Here rather than in either adapter: both servers run the same limits through the session's
/// ``SocketSession/nextDeadline`` and ``SocketSession/timerFired(at:)``.
struct LimitTimers: Sendable {
    enum State: Sendable {
        /// No limit, or they no longer apply: a closing handshake is under way.
        case off
        /// Limits set; they start when the connection opens.
        case awaitingOpen(lifetime: Duration?, idle: Duration?)
        /// The connection opened: the limits start at the next time reported (as the core's timers do,
        /// so that a decision that took a while does not eat into them).
        case starting(lifetime: Duration?, idle: Duration?)
        /// Open: the connection is closed at `end`, or once nothing was received for `idle` since
        /// `lastInput`.
        case running(end: Connection.Instant?, idle: Duration?, lastInput: Connection.Instant)
    }

    var state: State {
        didSet { deadline = computedDeadline() }
    }
    /// When the first limit runs out, while they run; the last time reported while they wait for a
    /// report to start; `nil` otherwise. Stored, kept by `state` as it changes (it depends on
    /// nothing else while a limit can run out): the session asks for it after every write, and
    /// `nil` also tells the per-read steps that no limit runs, one test of the optional's tag
    /// instead of the state's (an enum whose payloads are optional instants, about 40
    /// instructions per echoed message between the two).
    private(set) var deadline: Connection.Instant?
    /// The time last reported to the session.
    var lastReport = Connection.Instant.zero
    /// Bytes were received since the time was last reported: they count as received at the next
    /// report (an adapter reports the time right after it hands the session what it read).
    var inputUnstamped = false

    /// A client's session, or a server's without limits.
    static let off = LimitTimers(state: .off)

    /// A server connection's limits, its lifetime drawn from `sample`.
    init(_ limits: LifetimeLimits, sample: UInt64) {
        state = limits.isEnabled ? .awaitingOpen(lifetime: limits.lifetime(sample: sample), idle: limits.idleTimeout) : .off
        deadline = nil   // (as above)
    }

    private init(state: State) {
        self.state = state
        deadline = nil   // (`didSet` does not run in an initializer) no limit runs yet in any first state
    }

    /// The time is `now`: input received since the last report counts as received now.
    @inline(__always)
    mutating func report(_ now: Connection.Instant) {
        lastReport = now
        // `deadline` is `nil` unless the limits are starting or running.
        if deadline != nil, case .starting(let lifetime, let idle) = state {
            state = .running(end: lifetime.map { now + $0 }, idle: idle, lastInput: now)
        }
        if inputUnstamped { received(at: now) }
    }

    /// The connection opened: the limits start from the next time reported.
    mutating func start() {
        guard case .awaitingOpen(let lifetime, let idle) = state else { return }
        state = .starting(lifetime: lifetime, idle: idle)
    }

    /// Input arrived at `now`.
    mutating func received(at now: Connection.Instant) {
        inputUnstamped = false
        guard deadline != nil, case .running(let end, let idle?, let last) = state, last < now else { return }
        state = .running(end: end, idle: idle, lastInput: now)
    }

    /// ``deadline``, computed from `state`.
    private func computedDeadline() -> Connection.Instant? {
        if case .starting = state { return lastReport }   // at once: the next report starts them
        guard case .running(let end, let idle, let last) = state else { return nil }
        guard let idle else { return end }
        let silence = last + idle
        guard let end else { return silence }
        return end < silence ? end : silence
    }

    /// The reason to close with, when a limit ran out by `now`.
    func expired(at now: Connection.Instant) -> String? {
        guard case .running(let end, let idle, let last) = state else { return nil }
        if let end, end <= now { return "connection lifetime reached" }
        if let idle, last + idle <= now { return "idle timeout" }
        return nil
    }
}

extension SocketSession {
    /// (A server) When its limits run out, the connection is closed with 1001 (RFC 6455 §7.4.1: the
    /// server is going away from this connection), its reason saying which limit: the client may
    /// reconnect at once, and its load balancer may send it elsewhere. Data handed over before stays
    /// ahead of the Close, as for any close; the close timeout then bounds the closing handshake.
    mutating func enforceLimits(at now: Connection.Instant) {
        guard case .running = limits.state else { return }
        guard stage == .open, pipeline.connection.isOpen else {
            // Closing already (either side): the closing handshake's own timers take over.
            limits.state = .off
            return
        }
        guard let reason = limits.expired(at: now) else { return }
        limits.state = .off
        try? close(code: .goingAway, reason: reason, completion: nil)
    }
}
