import WebSocketTransport

/// The messages of an async-face socket that ``WebSocket/messages`` has not taken yet, and the tasks
/// waiting in `next()`.
///
/// Used only on the socket's queue (it is reachable only through the socket's queue-confined state),
/// hence not `Sendable`.
final class MessageInbox {
    private var messages: [WebSocketMessage] = []
    private var head = 0
    /// The payload bytes held, counted against ``TransportOptions/maxUndeliveredBytes``.
    private(set) var bytes = 0
    private var waiters: [Waiter<WebSocketMessage?>] = []

    /// Hands `message` to the first waiting task, or keeps it.
    func push(_ message: WebSocketMessage) {
        while !waiters.isEmpty {
            let waiter = waiters.removeFirst()
            if waiter.isWaiting {
                waiter.resume(.success(message))
                return
            }
        }
        messages.append(message)
        bytes += message.payloadSize
    }

    /// The oldest message kept, if any.
    func pop() -> WebSocketMessage? {
        guard head < messages.count else { return nil }
        let message = messages[head]
        head += 1
        bytes -= message.payloadSize
        if head == messages.count {
            messages.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= messages.count {
            messages.removeSubrange(0..<head)
            head = 0
        }
        return message
    }

    func append(waiter: Waiter<WebSocketMessage?>) {
        waiters.append(waiter)
    }

    /// Resumes every waiting task with `result` (the end of the sequence).
    func finish(_ result: Result<WebSocketMessage?, any Error>) {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume(result) }
    }

    func forgetFinishedWaiters() {
        waiters.removeAll { !$0.isWaiting }
    }
}

@available(*, unavailable)
extension MessageInbox: Sendable {}
