// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension ReconnectingWebSocket {
    /// Where the client is, between two calls to `next()`, and what `stop` must reach.
    struct State {
        enum Step {
            /// Report `connecting(attempt)`, then try.
            case announce(attempt: Int)
            /// Try to connect (`connecting(attempt)` was reported).
            case connect(attempt: Int)
            /// A connection is open since `since` (on the client's clock): wait for its end.
            case open(WebSocket, since: Duration)
            /// Wait `delay`, then report `connecting(attempt)` and try.
            case wait(Duration, attempt: Int)
            case finished
        }

        var step = Step.announce(attempt: 0)
        /// Reconnect attempts in the current series.
        var attempts = 0
        var isStopped = false
        /// A `next()` is under way.
        var isStepping = false
        /// The socket of the try under way, or the open connection.
        var socket: WebSocket? = nil
        /// Cuts the current wait short.
        var cutWait: (@Sendable () -> Void)? = nil
        var generator: any RandomNumberGenerator & Sendable
        /// Why the client gave up, when a failure made it (for ``Sockets``).
        var gaveUpOn: WebSocketError? = nil

        init(generator: any RandomNumberGenerator & Sendable) {
            self.generator = generator
        }

        /// The wait before the next reconnect attempt after `failure` (a try's error, or
        /// ``WebSocketTransport/WebSocketError/closed(_:)`` for a connection that ended), counting
        /// it; or `nil` when none follows: the client is stopped, the failure is not worth another
        /// try, or no attempt is left. Sets the next step either way.
        mutating func retry(after failure: WebSocketError, policy: Policy) -> Duration? {
            socket = nil
            let isWorthIt = failure.isWorthReconnecting
            guard !isStopped, isWorthIt, policy.maxAttempts.map({ attempts < $0 }) ?? true else {
                step = .finished
                // Giving up on a failure; a connection that ended for good (1000…) is a normal end.
                if case .closed = failure, !isWorthIt { return nil }
                if !isStopped { gaveUpOn = failure }
                return nil
            }
            attempts += 1
            let delay = policy.delay(beforeAttempt: attempts, using: &generator)
            step = .wait(delay, attempt: attempts)
            return delay
        }
    }

    /// Takes the next step and returns what happened; `nil` once finished.
    func nextEvent() async -> Event? {
        let step: State.Step? = state.withLock { state in
            guard !state.isStepping else { return nil }
            state.isStepping = true
            return state.step
        }
        guard let step else { return nil }
        defer { state.withLock { $0.isStepping = false } }
        if Task.isCancelled { stop() }
        switch step {
        case .finished:
            return nil
        case .announce(let attempt):
            return announce(attempt)
        case .connect(let attempt):
            return await connect(attempt)
        case .open(let socket, let since):
            return await awaitEnd(of: socket, openSince: since)
        case .wait(let delay, let attempt):
            await wait(delay)
            return announce(attempt)
        }
    }

    private func announce(_ attempt: Int) -> Event? {
        state.withLock { state in
            guard !state.isStopped else {
                state.step = .finished
                return nil
            }
            state.step = .connect(attempt: attempt)
            return .connecting(attempt: attempt)
        }
    }

    /// One try: `opened`, or `failed` with the wait before the next.
    private func connect(_ attempt: Int) async -> Event {
        let socket: WebSocket
        do throws(WebSocketError) {
            socket = try WebSocket.startClient(request, via: endpoint, configuration: configuration, options: options,
                                               consumer: .pending, system: system, loop: loop)
        } catch {
            return .failed(error, willRetryIn: state.withLock { $0.retry(after: error, policy: policy) })
        }
        let isStopped = state.withLock { state in
            state.socket = socket
            return state.isStopped
        }
        if isStopped { socket.cancel() }
        let opening = await withTaskCancellationHandler {
            await socket.waitUntilOpen()
        } onCancel: {
            stop()
        }
        switch opening {
        case .success:
            let since = elapsed()
            state.withLock { $0.step = .open(socket, since: since) }
            return .opened(socket)
        case .failure(let error):
            return .failed(error, willRetryIn: state.withLock { $0.retry(after: error, policy: policy) })
        }
    }

    /// Waits for the open connection's end: `closed`, with the wait before the next try.
    private func awaitEnd(of socket: WebSocket, openSince since: Duration) async -> Event {
        let ending = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Ending, Never>) in
                socket.whenEnded { continuation.resume(returning: $0) }
            }
        } onCancel: {
            stop()
        }
        let status: Connection.CloseStatus
        switch ending {
        case .closed(let closed): status = closed
        case .failed(let error): return .failed(error, willRetryIn: state.withLock { $0.retry(after: error, policy: policy) })
        }
        // A closing handshake this side started is an end, whatever its code.
        let isFinal = socket.closeStartedHere
        // A transport failure (a reset, a write timeout) aborts the connection, a status that on
        // its own means "this side gave up"; whether to try again is the failure's to say.
        let cause: WebSocketError = socket.transportFailure ?? .closed(status)
        let uptime = elapsed() - since
        let retry: Duration? = state.withLock { state in
            if let resetAfter = policy.resetAfter, uptime >= resetAfter { state.attempts = 0 }
            guard !isFinal else {
                state.socket = nil
                state.step = .finished
                return nil
            }
            return state.retry(after: cause, policy: policy)
        }
        return .closed(status, willRetryIn: retry)
    }

    /// Waits `delay` on the client's clock, or until ``stop(code:reason:)`` or the task's
    /// cancellation cuts it short.
    private func wait(_ delay: Duration) async {
        let sleep = self.sleep
        let sleeper = Task { try await sleep(delay) }
        let isStopped = state.withLock { state in
            state.cutWait = { sleeper.cancel() }
            return state.isStopped
        }
        if isStopped { sleeper.cancel() }
        await withTaskCancellationHandler {
            _ = try? await sleeper.value
        } onCancel: {
            stop()
        }
        state.withLock { $0.cutWait = nil }
    }
}
