import Dispatch

/// A task suspended until the socket's queue has an answer for it, and cancellable.
///
/// A waiter is created by the waiting task, then attached (with its continuation) and resumed or
/// cancelled on the socket's queue. Cancellation may arrive before the continuation is attached; the
/// waiter then resumes with `CancellationError` as soon as it is. It resumes its continuation exactly
/// once.
///
/// `@unchecked Sendable`: `state` is read and written only on the socket's serial queue; the waiting
/// task and the cancellation handler reach it only through blocks dispatched there.
final class Waiter<Value: Sendable>: @unchecked Sendable {
    private enum State {
        case created
        case waiting(CheckedContinuation<Value, any Error>)
        case cancelled
        case finished
    }

    private var state = State.created

    /// Stores the continuation. Returns `false`, having resumed it with `CancellationError`, if the
    /// task was cancelled first.
    func attach(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        if case .cancelled = state {
            state = .finished
            continuation.resume(throwing: CancellationError())
            return false
        }
        state = .waiting(continuation)
        return true
    }

    /// Whether the waiter still waits for an answer.
    var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// Resumes the task with `result`, unless it was resumed or cancelled already.
    func resume(_ result: Result<Value, any Error>) {
        guard case .waiting(let continuation) = state else { return }
        state = .finished
        continuation.resume(with: result)
    }

    /// Resumes the task with `CancellationError` now, or as soon as it attaches.
    func cancel() {
        switch state {
        case .created:
            state = .cancelled
        case .waiting(let continuation):
            state = .finished
            continuation.resume(throwing: CancellationError())
        case .cancelled, .finished:
            break
        }
    }
}

/// Suspends the calling task until `register`, run on `queue`, or something it sets up later resumes
/// the waiter. Cancelling the task resumes it with `CancellationError`, then runs `forget` on `queue`
/// (to drop finished waiters); what `register` already did stays done.
func wait<Value: Sendable>(on queue: DispatchQueue, _ register: @escaping @Sendable (Waiter<Value>) -> Void,
                           forget: @escaping @Sendable () -> Void) async throws -> Value {
    let waiter = Waiter<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            queue.async {
                if waiter.attach(continuation) { register(waiter) }
            }
        }
    } onCancel: {
        queue.async {
            waiter.cancel()
            forget()
        }
    }
}

extension WebSocket {
    /// Suspends the calling task until `register`, run on the socket's queue, or something it sets up
    /// later resumes the waiter; see ``wait(on:_:forget:)``.
    func wait<Value: Sendable>(_ register: @escaping @Sendable (Waiter<Value>) -> Void) async throws -> Value {
        try await WebSocketDispatch.wait(on: queue, register) { [self] in forgetFinishedWaiters() }
    }

    /// Drops waiters that were resumed or cancelled (on the queue).
    func forgetFinishedWaiters() {
        pendingSends.removeAll { !$0.waiter.isWaiting }
        openWaiters.removeAll { !$0.isWaiting }
        closeWaiters.removeAll { !$0.isWaiting }
        if case .inbox(let inbox) = consumer { inbox.forgetFinishedWaiters() }
    }
}
