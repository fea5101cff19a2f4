#if os(Linux)
import WebSocketTransport

/// The messages of an async-face connection on their way from its loop to the task reading them,
/// crossing in batches: the loop stages what one read parsed and publishes it under one lock; a
/// waiting reader is resumed once per batch, and takes the whole batch at once.
///
/// `@unchecked Sendable`: `staged` is touched only on the loop; the rest is behind `state`'s lock.
///
/// The module's continuations are unsafe ones (no checking box allocated per wait): each is stored
/// in one place, under a lock or on the loop, and whoever takes it out resumes it, once.
final class MessageBatches: @unchecked Sendable {
    private struct State {
        var messages: [WebSocketMessage] = []
        /// Payload bytes published and not yet taken.
        var bytes = 0
        /// Set once: `nil` inside for a clean end.
        var end: WebSocketError?? = nil
        var waiter: UnsafeContinuation<Take, Never>? = nil
        /// The loop stopped reading because too much was held: a take must restart it.
        var readingPaused = false
    }

    enum Take {
        case messages([WebSocketMessage])
        /// The end: `nil` after a clean close, the error otherwise.
        case end(WebSocketError?)
    }

    private let state = Locked(State())
    private weak var socket: EventLoopWebSocket?
    private var staged: [WebSocketMessage] = []
    private var stagedBytes = 0

    init(socket: EventLoopWebSocket) {
        self.socket = socket
    }

    // MARK: The loop's side

    func stage(_ message: WebSocketMessage) {
        staged.append(message)
        stagedBytes += message.payloadSize
    }

    /// Hands the staged messages over, resuming a waiting reader with all of them.
    func publish() {
        guard !staged.isEmpty else { return }
        let batch = staged, batchBytes = stagedBytes
        staged = []
        stagedBytes = 0
        let waiter: UnsafeContinuation<Take, Never>? = state.withLock { state in
            if let waiter = state.waiter, state.messages.isEmpty {
                state.waiter = nil
                return waiter
            }
            state.messages.append(contentsOf: batch)
            state.bytes += batchBytes
            return nil
        }
        waiter?.resume(returning: .messages(batch))
    }

    /// Whether the loop may read more: not while `limit` bytes wait for the reader (then the next
    /// take restarts reading).
    func mayRead(limit: Int) -> Bool {
        state.withLock { state in
            guard state.bytes + stagedBytes >= max(1, limit) else { return true }
            state.readingPaused = true
            return false
        }
    }

    /// The connection ended: a waiting reader gets the end once the messages are taken.
    func finish(_ error: WebSocketError?) {
        publish()
        let waiter: UnsafeContinuation<Take, Never>? = state.withLock { state in
            state.end = .some(error)
            guard state.messages.isEmpty, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .end(error))
    }

    // MARK: The reader's side

    /// Every message published, or the end; waits while there is neither.
    func take() async -> Take {
        if let ready = takeIfReady() { return ready }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Take, Never>) in
            if let ready = takeIfReady(orWait: continuation) { continuation.resume(returning: ready) }
        }
    }

    /// What is ready now, if anything; otherwise `waiter`, if given, waits for the next batch.
    private func takeIfReady(orWait waiter: UnsafeContinuation<Take, Never>? = nil) -> Take? {
        let (ready, restart) = state.withLock { state -> (Take?, Bool) in
            guard let ready = Self.take(&state) else {
                guard let waiter else { return (nil, false) }
                if state.waiter != nil { return (.end(.invalidArgument("messages are read by another task")), false) }
                state.waiter = waiter
                return (nil, false)
            }
            let restart = state.readingPaused
            state.readingPaused = false
            return (ready, restart)
        }
        if restart, let socket { socket.loop.execute { socket.readAgain() } }
        return ready
    }

    private static func take(_ state: inout State) -> Take? {
        if !state.messages.isEmpty {
            let messages = state.messages
            state.messages = []
            state.bytes = 0
            return .messages(messages)
        }
        if let end = state.end { return .end(end) }
        return nil
    }
}
#endif
