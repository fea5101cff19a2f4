/// A deadline that is off, waiting for the first time report, or armed.
enum Timer: Sendable, Hashable {
    case off
    case pending(Duration)
    case armed(Connection.Instant)

    var deadline: Connection.Instant? {
        if case .armed(let instant) = self { return instant }
        return nil
    }

    /// A pending timer starts at the first reported time.
    mutating func arm(at now: Connection.Instant) {
        if case .pending(let duration) = self { self = .armed(now + duration) }
    }

    func hasExpired(at now: Connection.Instant) -> Bool {
        if case .armed(let instant) = self { return instant <= now }
        return false
    }
}
