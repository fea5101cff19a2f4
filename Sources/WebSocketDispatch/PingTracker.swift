import WebSocketTransport

/// The pings sent by ``WebSocket/ping(_:timeout:)`` and ``WebSocket/ping(_:timeout:onPong:)`` that
/// wait for their pongs, oldest first.
///
/// A pong answers the ping whose payload it echoes (RFC 6455 §5.5.3) and every ping sent before that
/// one: a peer may answer only the most recent of several pings. A pong that matches no waiting ping
/// (unsolicited, or for a keepalive ping) answers none.
///
/// Used only on the socket's queue.
struct PingTracker {
    struct Pending {
        var id: UInt64
        var payload: [UInt8]
        var sentAt: Connection.Instant
        /// Called once, on the socket's queue, with the round-trip time or why there is none.
        var complete: @Sendable (Result<Duration, WebSocketError>) -> Void
    }

    private var pending: [Pending] = []
    private var nextID: UInt64 = 0

    /// Whether no ping waits.
    var isEmpty: Bool { pending.isEmpty }

    /// A payload no other waiting ping of this socket has: `ws` and a 6-byte counter, the one the
    /// next ``add(payload:sentAt:complete:)`` takes.
    mutating func makePayload() -> [UInt8] {
        let counter = nextID
        return Array("ws".utf8) + (0..<6).map { UInt8(truncatingIfNeeded: counter >> (40 - 8 * UInt64($0))) }
    }

    /// Waits for the pong of a ping sent with `payload`; returns its identifier (for a timeout).
    mutating func add(payload: [UInt8], sentAt: Connection.Instant,
                      complete: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) -> UInt64 {
        let id = nextID
        nextID &+= 1
        pending.append(Pending(id: id, payload: payload, sentAt: sentAt, complete: complete))
        return id
    }

    /// A pong arrived at `now`.
    mutating func answer(_ payload: [UInt8], at now: Connection.Instant) {
        guard let index = pending.firstIndex(where: { $0.payload == payload }) else { return }
        let answered = pending[...index]
        pending.removeSubrange(...index)
        for ping in answered { ping.complete(.success(now - ping.sentAt)) }
    }

    /// The ping `id` ran out of time, if it still waits.
    mutating func timeOut(_ id: UInt64) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let ping = pending.remove(at: index)
        ping.complete(.failure(.timedOut(.ping)))
    }

    /// The connection ended: every waiting ping fails with `error`.
    mutating func failAll(_ error: WebSocketError) {
        let all = pending
        pending = []
        for ping in all { ping.complete(.failure(error)) }
    }
}
