import WebSocketCore
import WebSocketPOSIX

/// `--reconnect N`: which endings are worth another attempt, and how long to wait before each.
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

    /// A connection that could not open: worth retrying when the cause may pass (the server down or
    /// restarting, a timeout, a 5xx answer); not for a bad URL, a TLS refusal or a 4xx answer, which
    /// will be the same next time.
    static func isTransient(_ error: WebSocketError) -> Bool {
        switch error {
        case .connectFailed, .addressResolutionFailed, .timedOut, .transport:
            return true
        case .handshakeFailed(let failure):
            if failure == .timedOut || failure == .endOfStream { return true }
            return (failure.rejected?.head.status).map { $0 >= 500 } ?? false
        case .closed(let status):
            return isTransient(status)
        default:
            return false
        }
    }

    /// A connection that ended: worth reopening when it was lost (1006, a timeout, a socket error) or
    /// the server said it is going away, restarting or overloaded (1001, 1011, 1012, 1013, 1014);
    /// not after a normal close, a protocol error or a refusal the server means.
    static func isTransient(_ status: Connection.CloseStatus) -> Bool {
        if let failure = status.failure { return failure.protocolViolation == nil && failure != .aborted }
        if !status.wasClean { return true }
        return [1001, 1006, 1011, 1012, 1013, 1014].contains(status.code.rawValue)
    }
}
