#if os(Linux)
import WebSocketTransport

/// The messages of an async-face connection on their way from its loop to the task reading them,
/// crossing in batches: the loop stages what one read parsed and publishes it at once; a waiting
/// reader is resumed once per batch, and takes the whole batch at once.
///
/// Confined to the loop: every member is touched on the loop's thread only, so no lock is taken.
/// A reader on the loop (the usual case: ``EventLoopServer/run(_:)`` starts each connection's task
/// with the loop as its executor) takes directly; a reader elsewhere hops to the loop for each take
/// that finds nothing ready, as it would wait for a wake-up anyway. Under a lock, the four lock
/// round trips per echoed message were the largest cost of the async face after executor switches.
/// `@exclusivity(unchecked)` for the reason and under the rule given at ``EventLoopWebSocket``.
///
/// The module's continuations are unsafe ones (no checking box allocated per wait): each is stored
/// in one place, on the loop, and whoever takes it out resumes it, once.
final class MessageBatches: @unchecked Sendable {
    enum Take {
        case messages([WebSocketMessage])
        /// The end: `nil` after a clean close, the error otherwise.
        case end(WebSocketError?)
        /// The waiting task was cancelled; the connection and its messages are untouched.
        case cancelled
    }

    /// Names one wait, so that a cancellation that arrives late (after the wait was answered, or
    /// during a later one) resumes nothing.
    private final class Wait: Sendable {}

    private let loop: EventLoop
    private weak var socket: EventLoopWebSocket?
    /// Published, not yet taken.
    @exclusivity(unchecked) private var messages: [WebSocketMessage] = []
    /// Payload bytes published and not yet taken.
    @exclusivity(unchecked) private var bytes = 0
    /// Parsed in this read, not yet published.
    @exclusivity(unchecked) private var staged: [WebSocketMessage] = []
    @exclusivity(unchecked) private var stagedBytes = 0
    /// Set once: `nil` inside for a clean end.
    @exclusivity(unchecked) private var end: WebSocketError?? = nil
    @exclusivity(unchecked) private var waiter: (wait: Wait, continuation: UnsafeContinuation<Take, Never>)? = nil
    /// A wait whose cancellation reached the loop before the wait itself.
    @exclusivity(unchecked) private var cancelledBeforeWaiting: Wait? = nil
    /// The loop stopped reading because too much was held: a take must restart it.
    @exclusivity(unchecked) private var readingPaused = false

    init(socket: EventLoopWebSocket) {
        self.loop = socket.loop
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
        let batch = staged
        staged = []
        if let waiter, messages.isEmpty {
            self.waiter = nil
            stagedBytes = 0
            waiter.continuation.resume(returning: .messages(batch))
            return
        }
        messages.append(contentsOf: batch)
        bytes += stagedBytes
        stagedBytes = 0
    }

    /// Whether the loop may read more: not while `limit` bytes wait for the reader (then the next
    /// take restarts reading).
    func mayRead(limit: Int) -> Bool {
        guard bytes + stagedBytes >= max(1, limit) else { return true }
        readingPaused = true
        return false
    }

    /// The connection ended: a waiting reader gets the end once the messages are taken.
    func finish(_ error: WebSocketError?) {
        publish()
        end = .some(error)
        guard messages.isEmpty, let waiter else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: .end(error))
    }

    // MARK: The reader's side

    /// Every message published, or the end; waits while there is neither. It runs on its caller's
    /// executor (`nonisolated(nonsending)`), so that a reader on the loop takes without a switch.
    ///
    /// Cancelling the waiting task answers ``Take/cancelled`` at once (a task already cancelled
    /// gets it when nothing is ready); no message is lost, the next take gets it.
    nonisolated(nonsending) func take() async -> Take {
        if loop.inLoop, let ready = takeIfReady() { return ready }
        let wait = Wait()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Take, Never>) in
                if loop.inLoop {
                    takeOrWait(wait, continuation)
                } else {
                    loop.execute { [self] in takeOrWait(wait, continuation) }
                }
            }
        } onCancel: {
            loop.execute { [self] in cancel(wait) }
        }
    }

    /// (On the loop) Resumes `continuation` with what is ready, or keeps it for the next batch.
    private func takeOrWait(_ wait: Wait, _ continuation: UnsafeContinuation<Take, Never>) {
        if let ready = takeIfReady() {
            continuation.resume(returning: ready)
        } else if waiter != nil {
            continuation.resume(returning: .end(.invalidArgument("messages are read by another task")))
        } else if cancelledBeforeWaiting === wait {
            cancelledBeforeWaiting = nil
            continuation.resume(returning: .cancelled)
        } else {
            waiter = (wait, continuation)
        }
    }

    /// (On the loop) The task of `wait` was cancelled: answers it if it is waiting, or remembers it
    /// if its wait has not reached the loop yet (a reader elsewhere, cancelled meanwhile: its two
    /// hops may arrive in either order).
    private func cancel(_ wait: Wait) {
        guard let waiter, waiter.wait === wait else {
            cancelledBeforeWaiting = wait
            return
        }
        self.waiter = nil
        waiter.continuation.resume(returning: .cancelled)
    }

    /// (On the loop) What is ready now, if anything, restarting reading if it had paused.
    private func takeIfReady() -> Take? {
        let ready: Take
        if !messages.isEmpty {
            ready = .messages(messages)
            messages = []
            bytes = 0
        } else if let end {
            return .end(end)
        } else {
            return nil
        }
        if readingPaused {
            readingPaused = false
            // Not from inside the take: reading delivers, and the reader is mid-call.
            if let socket { loop.execute { socket.readAgain() } }
        }
        return ready
    }
}
#endif
