import Dispatch
import WebSocketTransport

/// The async-face server's connections from accept until a task takes them from
/// ``WebSocketServer/connections``: those still in their opening handshake, and those open and
/// waiting to be taken.
///
/// A server must never answer 101 and then drop the connection, so nothing here is ever dropped:
/// while ``limit`` connections are in flight the server stops accepting (``isFull``), and new
/// clients wait in the kernel's listen backlog until a task takes one.
///
/// `@unchecked Sendable`: every property is read and written only on `queue`, the server's serial
/// queue.
final class PendingConnections: @unchecked Sendable {
    let queue: DispatchQueue
    /// The most connections in flight (handshaking, or open and not yet taken).
    let limit: Int
    /// Runs on `queue` when a connection stops being in flight, so that accepting can resume.
    var onRoom: (@Sendable () -> Void)?

    private var ready: [WebSocket] = []
    private var head = 0
    private var waiters: [Waiter<WebSocket?>] = []
    private var inFlight = 0
    private var isFinished = false

    init(queue: DispatchQueue, limit: Int) {
        self.queue = queue
        self.limit = max(1, limit)
    }

    /// Whether accepting must wait.
    var isFull: Bool { inFlight >= limit }

    /// The server accepted a connection; its handshake starts.
    func accepted() { inFlight += 1 }

    /// A connection's handshake succeeded: a waiting task takes it, or it waits. Once the sequence
    /// has ended, nobody will take it: it is closed with 1001 (going away), a clean close.
    func opened(_ socket: WebSocket) {
        if isFinished && head == ready.count && waiters.allSatisfy({ !$0.isWaiting }) {
            inFlight -= 1
            onRoom?()
            try? socket.sendClose(code: .goingAway)
            return
        }
        while let waiter = waiters.first {
            waiters.removeFirst()
            if waiter.isWaiting {
                inFlight -= 1
                onRoom?()
                waiter.resume(.success(socket))
                return
            }
        }
        ready.append(socket)
    }

    /// A connection ended before its handshake succeeded (rejected, invalid, timed out, gone).
    func endedBeforeOpening() {
        inFlight -= 1
        onRoom?()
    }

    /// Hands the oldest open connection to `waiter`, or keeps the waiter.
    func next(_ waiter: Waiter<WebSocket?>) {
        if head < ready.count {
            let socket = ready[head]
            head += 1
            if head == ready.count {
                ready.removeAll(keepingCapacity: true)
                head = 0
            }
            inFlight -= 1
            onRoom?()
            waiter.resume(.success(socket))
        } else if isFinished {
            waiter.resume(.success(nil))
        } else {
            waiters.append(waiter)
        }
    }

    /// The server stopped: the sequence ends once the connections already open have been taken.
    func finish() {
        isFinished = true
        guard head == ready.count else { return }
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume(.success(nil)) }
    }

    func forgetFinishedWaiters() {
        waiters.removeAll { !$0.isWaiting }
    }
}
