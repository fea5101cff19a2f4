// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// What waits on a session for something to finish: called once, with the outcome.
package typealias SessionCompletion<Value> = @Sendable (Result<Value, WebSocketError>) -> Void

/// A completion and its outcome, to run outside the adapter's locks and accesses.
package struct Resumption: Sendable {
    private let body: @Sendable () -> Void

    package init<Value: Sendable>(_ completion: @escaping SessionCompletion<Value>, _ result: Result<Value, WebSocketError>) {
        body = { completion(result) }
    }

    /// Resumes whoever waits.
    package func run() { body() }
}

/// What the adapter does next, pulled with ``SocketSession/nextAction()``.
package enum SessionAction: Sendable {
    /// Hand this event to the consumer (a handler, or the async face's messages).
    case deliver(WebSocketEvent)
    /// (Server) Decide on this opening handshake request, then ``SocketSession/respond(to:)``.
    /// Not boxed: a request is one reference (its fields are boxed), and an `indirect` case cost
    /// an allocation per handshake.
    case decide(Connection.HandshakeRequest)
    /// Resume a waiter: a send that waited for room, an awaited ping, a close, a connect.
    case resume(Resumption)
}

extension SocketSession {
    /// The next thing the adapter must do, or `nil` when the session needs an input first. Pull
    /// until `nil` after every input, acting on each action before pulling the next.
    ///
    /// The connection's events become consumer events here, once: messages (and control frames,
    /// when ``TransportOptions/receivesControlFrames`` asks for them) as
    /// ``WebSocketEvent/message(_:)``, the opening as ``WebSocketEvent/open(_:)``; the rest is
    /// bookkeeping (a handshake failure, the close status, read once the socket is closed).
    /// Payloads are lent by the core and copied once, into the message.
    package mutating func nextAction() -> SessionAction? {
        if actionsStart < actions.count { return takeQueuedAction() }
        switch stage {
        case .handshaking, .open:
            break
        case .finished:
            return takeOwedEnding()
        case .resolving, .connecting:
            return nil
        }
        // The steady state between reads: nothing to parse, no pong awaited.
        if hasNothingToPull { return nil }
        var pulled: Connection.Event? = nil
        while pipeline.connection.nextEventView({ view in
            switch view {
            case .text(let bytes): pulled = .text(String(decoding: bytes, as: UTF8.self))
            case .binary(let bytes): pulled = .binary(Array(bytes))
            case .other(let event): pulled = event
            }
        }) {
            guard let event = pulled.take() else { continue }
            if let action = act(on: event) { return action }
            // A pong queued the answers of its pings: they come before the events read after it.
            if actionsStart < actions.count { return takeQueuedAction() }
        }
        collectPingOutcomes()
        if actionsStart < actions.count { return takeQueuedAction() }
        return nil
    }

    mutating func takeQueuedAction() -> SessionAction {
        actions.dequeue(advancing: &actionsStart)
    }

    /// The last event, if it is owed (``endingOwed``), as the action that delivers it; `nil` otherwise.
    mutating func takeOwedEnding() -> SessionAction? {
        guard endingOwed, case .finished(let ending) = phase else { return nil }
        endingOwed = false
        return .deliver(ending.event)
    }

    /// Queues an action of the session's own, after those already queued.
    mutating func queue(_ action: SessionAction) {
        if endingOwed, let ending = takeOwedEnding() { actions.append(ending) }
        actions.append(action)
    }

    /// Queues the resumption of `completion` with `result`.
    mutating func resume<Value: Sendable>(_ completion: @escaping SessionCompletion<Value>, _ result: Result<Value, WebSocketError>) {
        queue(.resume(Resumption(completion, result)))
    }

    /// One event of the connection: what it means for the consumer, if anything.
    mutating func act(on event: Connection.Event) -> SessionAction? {
        switch event {
        case .text(let text):
            meter?.countMessageReceived()
            return deliver(.text(text))
        case .binary(let bytes):
            meter?.countMessageReceived()
            return deliver(.binary(bytes))
        case .fragment(let fragment):
            meter?.countMessageReceived()
            return deliver(.fragment(fragment))
        case .ping(let payload):
            return settings.receivesControlFrames ? deliver(.ping(payload)) : nil
        case .pong(let payload):
            // The pong first, then the answers of the pings it answers, before anything read after.
            if settings.receivesControlFrames { queue(deliver(.pong(payload))) }
            collectPingOutcomes()
            return nil
        case .closeReceived(let frame):
            stateMayHaveChanged = true
            return settings.receivesControlFrames ? deliver(.close(frame)) : nil
        case .handshakeRequest(let request):
            awaitingDecision = true
            return .decide(request)
        case .handshakeCompleted(let result):
            stateMayHaveChanged = true
            phase = .open
            handshake = result
            limits.start()
            meter?.countOpened()
            let waiters = openWaiters
            openWaiters = []
            for waiter in waiters { resume(waiter, .success(())) }
            return .deliver(.open(result))
        case .handshakeFailed(let failure):
            stateMayHaveChanged = true
            handshakeFailure = failure
            return nil
        case .protocolViolation, .closed:
            stateMayHaveChanged = true
            // Reported with the last event: the status (and its failure) is read from the connection
            // once the socket is closed.
            return nil
        }
    }

    mutating func deliver(_ message: WebSocketMessage) -> SessionAction {
        if settings.consumerHolds {
            heldBytes += message.payloadSize
            heldMessages += 1
        }
        return .deliver(.message(message))
    }

    /// (Server) Answers the pending opening handshake request. A decision the connection refuses (a
    /// subprotocol the client did not offer…) is answered with 500 by the connection itself; a
    /// decision with no request pending (a late one, after the handshake timed out) is ignored.
    ///
    /// `refusal` says why a rejection rejects, for the server's counters: ``ServerMetrics/Refusal/rejected``
    /// for the server's decision, ``ServerMetrics/Refusal/draining`` for its 503 while it drains.
    package mutating func respond(to decision: Connection.HandshakeDecision, refusal: ServerMetrics.Refusal = .rejected) {
        awaitingDecision = false
        let kind = pipeline.connection.pendingHandshakeRequest?.kind
        // The status the connection wrote (it decides: 500 for an answer it refuses), for the counters.
        guard let status = try? pipeline.connection.respond(to: decision), let meter, let kind else { return }
        switch kind {
        case .plain:
            answerCounted = true
            meter.countPlainRequest(status: status)
        case .upgrade:
            guard status != 101 else { return }
            answerCounted = true
            meter.countHandshakeFailed(status: status)
            meter.countRefusal(refusal)
        }
    }
}

extension WebSocketMessage {
    /// The payload bytes the message holds, counted against buffering limits.
    package var payloadSize: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes), .ping(let bytes), .pong(let bytes): return bytes.count
        case .fragment(let fragment): return fragment.bytes.count
        case .close(let frame): return frame.reason.utf8.count
        }
    }

    /// A message, not a control frame: what waits behind async sends for room.
    package var isData: Bool {
        switch self {
        case .text, .binary, .fragment: return true
        case .ping, .pong, .close: return false
        }
    }

    /// Whether it queues behind the sends that wait for room: data, and a Close, which must not
    /// overtake data handed over before it (nothing is sent after a Close, RFC 6455 §5.5.1). Pings
    /// and pongs go ahead.
    package var waitsBehindSends: Bool {
        if case .close = self { return true }
        return isData
    }
}
