// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// An async-face server's open connections on their way to ``WebSocketServer/connections``, and
/// the limit on connections in flight (opening, or open and not yet taken): at the limit the loops
/// stop accepting, and clients wait in the kernel's backlog, until a task takes one.
///
/// `@unchecked Sendable`: everything is behind `state`'s lock.
final class ConnectionQueue: @unchecked Sendable {
    private struct State {
        var sockets: [WebSocket] = []
        var waiter: (wait: Wait, continuation: UnsafeContinuation<WebSocket?, Never>)? = nil
        var inFlight = 0
        /// Loops that stopped accepting at the limit.
        var paused: [EventLoop] = []
        var finished = false
    }

    private let state = Locked(State())
    let limit: Int
    /// The server the paused loops resume accepting for.
    weak var server: ServerCore?

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// (A loop) Whether it may accept another connection; if not, it is resumed when there is room.
    func mayAccept(on loop: EventLoop) -> Bool {
        state.withLock { state in
            guard state.inFlight >= limit else { return true }
            if !state.paused.contains(where: { $0 === loop }) { state.paused.append(loop) }
            return false
        }
    }

    /// (A loop) A connection was accepted.
    func accepted() {
        state.withLock { $0.inFlight += 1 }
    }

    /// (A loop) A connection opened. `false` once the queue has finished: the caller closes it.
    func push(_ socket: WebSocket) -> Bool {
        let waiter: UnsafeContinuation<WebSocket?, Never>?? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return .some(waiter.continuation)
            }
            state.sockets.append(socket)
            return .some(nil)
        }
        guard let waiter else {
            released()
            return false
        }
        if let waiter {
            released()
            waiter.resume(returning: socket)
        }
        return true
    }

    /// A connection in flight was taken, or ended before it opened: accepting may resume.
    func released() {
        let paused: [EventLoop] = state.withLock { state in
            state.inFlight -= 1
            guard state.inFlight < limit, !state.paused.isEmpty else { return [] }
            defer { state.paused = [] }
            return state.paused
        }
        guard !paused.isEmpty, let server else { return }
        for loop in paused { loop.execute { loop.resumeAccepting(for: server) } }
    }

    /// No more connections: a waiting task gets `nil` once the queued ones are taken.
    func finish() {
        let waiter: UnsafeContinuation<WebSocket?, Never>? = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.sockets.isEmpty ? state.waiter?.continuation : nil
        }
        waiter?.resume(returning: nil)
    }

    /// Names one wait, so that a late cancellation resumes nothing.
    private final class Wait: Sendable {}

    /// The next open connection, in the order they opened; `nil` after ``finish()``, or when the
    /// waiting task is cancelled (no connection is lost: the next call gets it).
    func next() async -> WebSocket? {
        let wait = Wait()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<WebSocket?, Never>) in
                enum Outcome { case socket(WebSocket), end, waiting }
                let outcome: Outcome = state.withLock { state in
                    if !state.sockets.isEmpty { return .socket(state.sockets.removeFirst()) }
                    // A cancellation before the wait was stored finds nothing to resume: checked here.
                    if state.finished || state.waiter != nil || Task.isCancelled { return .end }
                    state.waiter = (wait, continuation)
                    return .waiting
                }
                switch outcome {
                case .socket(let socket):
                    released()
                    continuation.resume(returning: socket)
                case .end:
                    continuation.resume(returning: nil)
                case .waiting:
                    break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<WebSocket?, Never>? in
                guard let waiter = state.waiter, waiter.wait === wait else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
