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
        public static func < (lhs: Connection.Instant, rhs: Connection.Instant) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }

        /// The instant `duration` later.
        public static func + (lhs: Connection.Instant, rhs: Duration) -> Connection.Instant {
            Connection.Instant(sinceOrigin: lhs.sinceOrigin + rhs)
        }

        /// The duration from `rhs` to `lhs`.
        public static func - (lhs: Connection.Instant, rhs: Connection.Instant) -> Duration { lhs.sinceOrigin - rhs.sinceOrigin }
    }
}
