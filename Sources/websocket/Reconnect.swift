import WebSocketCore
import WebSocketPOSIX

/// `--reconnect N`: how many attempts, and how long to wait before each. Which endings are worth one
/// is the library's `isWorthReconnecting` (of a close status, of a connection error).
struct ReconnectPolicy: Sendable {
    /// Attempts allowed in all (0: never reconnect).
    var limit = 0
    /// The wait before the first attempt; each further one doubles it, up to ``maximumDelay``.
    var delay: Duration = .seconds(1)
    static let maximumDelay: Duration = .seconds(30)

    /// The wait before attempt `attempt` (1 for the first).
    func delay(before attempt: Int) -> Duration {
        var wait = delay
        for _ in 1..<max(attempt, 1) where wait < Self.maximumDelay { wait *= 2 }
        return min(wait, Self.maximumDelay)
    }
}
