// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A point in time on the caller's monotonic clock, as an offset from an origin the caller chooses.
    ///
    /// The connection owns no clock: the caller reports the time with ``Connection/advanceTime(to:)`` and
    /// reads ``Connection/nextDeadline``. Only differences between instants matter, so a test can start at
    /// ``zero`` and step through time deterministically, and an adapter can use any monotonic clock.
    public struct Instant: Sendable, Hashable, Comparable {
        /// The time elapsed since the caller's origin.
        public var sinceOrigin: Duration

        /// The instant `sinceOrigin` after the origin.
        public init(sinceOrigin: Duration) { self.sinceOrigin = sinceOrigin }

        /// The origin itself.
        public static let zero = Connection.Instant(sinceOrigin: .zero)

        /// Whether `lhs` comes before `rhs`.
        ///
        /// Compared through the duration's two stored halves (its frozen layout: a signed 128-bit count
        /// of attoseconds, high half first in order), not `Duration`'s own `<`, which is not inlinable:
        /// a call per comparison, about 30 per connection between a server's deadlines and its loop's
        /// timer heap. `InstantTests` checks the two agree.
        @inlinable
        public static func < (lhs: Connection.Instant, rhs: Connection.Instant) -> Bool {
            (lhs.sinceOrigin._high, lhs.sinceOrigin._low) < (rhs.sinceOrigin._high, rhs.sinceOrigin._low)
        }

        /// The instant `duration` later. Traps when the sum is past `Duration`'s range, as
        /// `Duration`'s `+` does.
        ///
        /// Added through the duration's two stored halves, as `<` compares them: `Duration`'s `+` is
        /// not inlinable, a call into the runtime's 128-bit arithmetic for every deadline a
        /// connection or a loop sets (about 15 instructions here against 60). `InstantTests` checks
        /// the two agree.
        @inlinable
        public static func + (lhs: Connection.Instant, rhs: Duration) -> Connection.Instant {
            let (low, carry) = lhs.sinceOrigin._low.addingReportingOverflow(rhs._low)
            let (partial, first) = lhs.sinceOrigin._high.addingReportingOverflow(rhs._high)
            let (high, second) = partial.addingReportingOverflow(carry ? 1 : 0)
            // The carry's wrap undoes the halves' only when the sum is one below Int64.min before
            // it: the sum is out of range exactly when one of the two wraps happened alone.
            precondition(first == second, "Connection.Instant + Duration overflows")
            return Connection.Instant(sinceOrigin: Duration(_high: high, low: low))
        }

        /// The instant `seconds` and `nanoseconds` after the origin: a clock's `timespec` (from
        /// `clock_gettime(CLOCK_MONOTONIC)`) in one step. Any values are exact, negative ones
        /// included (the sum cannot leave `Duration`'s range).
        ///
        /// `.seconds(s) + .nanoseconds(n)` computes the same, through three calls into the
        /// runtime's 128-bit arithmetic: about 70 instructions per read of the clock, which an
        /// event loop reads at least twice a turn.
        @inlinable
        public init(seconds: Int64, nanoseconds: Int64) {
            let whole = seconds.multipliedFullWidth(by: 1_000_000_000_000_000_000)
            let part = nanoseconds.multipliedFullWidth(by: 1_000_000_000)
            let (low, carry) = whole.low.addingReportingOverflow(part.low)
            // |seconds × 10^18| + |nanoseconds × 10^9| < 2^127: no wrap.
            sinceOrigin = Duration(_high: whole.high &+ part.high &+ (carry ? 1 : 0), low: low)
        }

        /// The instant `nanoseconds` after the origin: a clock that counts nanoseconds (SwiftNIO's
        /// `NIODeadline.uptimeNanoseconds`, `clock_gettime(CLOCK_MONOTONIC)`, `DispatchTime.uptimeNanoseconds`)
        /// converts in one step. Values past `Int64.max` (292 years of uptime) are taken as `Int64.max`.
        public init(nanosecondsSinceOrigin nanoseconds: UInt64) {
            sinceOrigin = .nanoseconds(Int64(clamping: nanoseconds))
        }

        /// The whole nanoseconds since the origin, for a clock that counts them (to schedule a timer
        /// at ``Connection/nextDeadline`` on it): 0 for an instant before the origin, `UInt64.max`
        /// past the range (never for an instant made from nanoseconds or a reported time plus a timeout).
        public var nanosecondsSinceOrigin: UInt64 {
            let (seconds, attoseconds) = sinceOrigin.components
            guard seconds >= 0, attoseconds >= 0 else { return 0 }
            let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
            let (total, carry) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
            return overflow || carry ? .max : total
        }

        /// The duration from `rhs` to `lhs`.
        public static func - (lhs: Connection.Instant, rhs: Connection.Instant) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }
    }
}
