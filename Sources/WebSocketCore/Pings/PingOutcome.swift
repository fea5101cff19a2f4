// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// How an awaited ping (``Connection/sendPing(_:awaitingPongWithin:)``) ended, as
    /// ``Connection/nextPingOutcome()`` reports it: answered, with the round trip; timed out; or the
    /// connection closed first.
    ///
    /// ```swift
    /// while let (id, outcome) = connection.nextPingOutcome() {
    ///     if let roundTrip = outcome.answered {
    ///         log("\(id): round trip \(roundTrip)")
    ///     } else if outcome == .timedOut {
    ///         log("\(id): no pong in time")                  // the connection goes on
    ///     } else if let status = outcome.connectionClosed {
    ///         log("\(id): the connection closed first (\(status))")
    ///     }
    /// }
    /// ```
    ///
    /// Not an `Error`: the other error types' `~=` takes `any Error`, and would capture a pattern
    /// such as `case .timedOut:` that names one of their members too.
    public struct PingOutcome: Sendable, Hashable {
        // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
        // static members below build and match outcomes (`outcome == .x`, `case .x:` with a
        // `default`), and a property per case reads what it carries.
        enum Base: Sendable, Hashable {
            /// A pong answered the ping (its own, or one for a ping sent after it) after this round trip.
            case answered(Duration)
            /// No pong answered the ping within the timeout it was sent with; the connection goes on.
            case timedOut
            /// The connection closed (with this status) before a pong answered the ping.
            case connectionClosed(Connection.CloseStatus)
        }

        /// Which outcome this is, with what it carries.
        let base: Base

        init(_ base: Base) { self.base = base }

        /// A pong answered the ping (its own, or one for a ping sent after it) after this round trip:
        /// the time between the last times reported with ``Connection/advanceTime(to:)`` when the ping
        /// was sent and when the pong was read.
        public static func answered(_ value: Duration) -> PingOutcome { PingOutcome(.answered(value)) }

        /// What ``answered(_:)`` carries, the round trip; `nil` for any other outcome.
        public var answered: Duration? {
            if case .answered(let value) = base { return value }
            return nil
        }

        /// No pong answered the ping within the timeout it was sent with; the connection goes on.
        public static let timedOut = PingOutcome(.timedOut)

        /// The connection closed (with this status) before a pong answered the ping.
        public static func connectionClosed(_ value: Connection.CloseStatus) -> PingOutcome { PingOutcome(.connectionClosed(value)) }

        /// What ``connectionClosed(_:)`` carries; `nil` for any other outcome.
        public var connectionClosed: Connection.CloseStatus? {
            if case .connectionClosed(let value) = base { return value }
            return nil
        }
    }
}

extension Connection.PingOutcome: CustomStringConvertible {
    /// How the ping ended, e.g. `answered in 0.25 s`, `no pong within the timeout`, `the connection
    /// closed first: 1000 (normal closure)`.
    public var description: String {
        switch base {
        case .answered(let roundTrip): return "answered in \(Self.seconds(roundTrip))"
        case .timedOut: return "no pong within the timeout"
        case .connectionClosed(let status): return "the connection closed first: \(status)"
        }
    }

    /// `duration` in seconds to the microsecond, without trailing zeros (`0.25 s`, `3 s`), from its
    /// integer components: no floating point, no arithmetic that can overflow, no `Character`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        var text = seconds < 0 || attoseconds < 0 ? "-" : ""
        text += String(seconds.magnitude)
        var microseconds = attoseconds.magnitude / 1_000_000_000_000  // below 1,000,000
        var digits = 6
        while digits > 0 && microseconds % 10 == 0 {
            microseconds /= 10
            digits -= 1
        }
        if digits > 0 {
            let fraction = String(microseconds)
            text += "." + String(repeating: "0", count: digits - fraction.utf8.count) + fraction
        }
        return text + " s"
    }
}
