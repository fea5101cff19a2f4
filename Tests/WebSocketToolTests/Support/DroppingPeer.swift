import WebSocketCore
import WebSocketTransport
import TransportTestSupport

/// A raw server that completes the opening handshake of each of its first `count` connections and
/// then drops the TCP connection without a Close frame: an abnormal closure (1006) every time, for
/// the retries of `--reconnect`. It counts the connections it accepted.
final class DroppingPeer: Sendable {
    private let listener: RawListener
    private let accepted = Locked(0)
    /// When each connection was accepted (the monotonic clock).
    private let times = Locked<[Connection.Instant]>([])

    init(count: Int) throws {
        let listener = try RawListener()
        self.listener = listener
        let accepted = self.accepted, times = self.times
        try spawnDetachedThread {
            for _ in 0..<count {
                guard let socket = try? listener.accept(timeout: generousTimeout) else { break }
                times.withLock { $0.append(elapsedClock()) }
                _ = try? socket.acceptHandshake()
                accepted.withLock { $0 += 1 }
                accepted.broadcast()
                socket.close()
            }
        }
    }

    deinit { listener.close() }

    var url: String { "ws://127.0.0.1:\(listener.port)/" }

    /// How many connections it accepted so far.
    var acceptedCount: Int { accepted.withLock { $0 } }

    /// When each connection was accepted.
    var acceptTimes: [Connection.Instant] { times.withLock { $0 } }

    /// Waits until `condition` holds for the count of accepted connections.
    func wait(timeout: Duration = generousTimeout, until condition: (Int) -> Bool) -> Bool {
        accepted.wait(until: condition, deadline: elapsedClock() + timeout, now: elapsedClock)
    }
}
