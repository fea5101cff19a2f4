// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// How a socket ended, once it is closed.
package enum Ending: Sendable, Hashable {
    /// The connection had opened; how it closed.
    case closed(Connection.CloseStatus)
    /// It never opened.
    case failed(WebSocketError)

    /// Whether the connection had opened and its closing handshake completed.
    package var closedCleanly: Bool {
        if case .closed(let status) = self { return status.wasClean }
        return false
    }

    /// The consumer's last event.
    package var event: WebSocketEvent {
        switch self {
        case .closed(let status): return .closed(status)
        case .failed(let error): return .failed(error)
        }
    }

    /// What a waiting send, ping or reader gets.
    package var error: WebSocketError {
        switch self {
        case .closed(let status): return .closed(status)
        case .failed(let error): return error
        }
    }

    /// What a wait for the end gets: the status, or why the connection never opened.
    package var closeResult: Result<Connection.CloseStatus, WebSocketError> {
        switch self {
        case .closed(let status): return .success(status)
        case .failed(let error): return .failure(error)
        }
    }

    /// How a sequence of messages ends: normally after a clean closing handshake, with the error
    /// otherwise.
    package var messagesError: WebSocketError? {
        if case .closed(let status) = self, status.wasClean { return nil }
        return error
    }
}

extension SocketSession {
    /// What ``finish()`` decided.
    package enum Finish: Sendable {
        /// The session is over: its last event and resumptions are queued as actions.
        case ended(Ending)
        /// (Client) The handshake was redirected: the session starts again at
        /// ``Phase/resolving``, with the next hop's pipeline. Resolve ``target`` and connect.
        case redirected
    }

    /// The socket is closed. A client redirected within ``TransportOptions/maxRedirects`` starts
    /// over with the next hop; otherwise the session ends: the connection, if not closed yet, is
    /// aborted, the last event (``WebSocketEvent/closed(_:)`` or ``WebSocketEvent/failed(_:)``) and
    /// every waiter's resumption are queued as actions, and pull them (``nextAction()``).
    package mutating func finish() -> Finish {
        if case .finished(let ending) = phase { return .ended(ending) }
        if followRedirect() { return .redirected }
        pipeline.connection.abort()
        // Drop what the abort produced: the status is read below.
        while pipeline.connection.nextEvent() != nil {}
        collectPingOutcomes()
        let ending = computeEnding()
        if let meter { countEnding(in: meter) }
        phase = .finished(ending)
        if actionsStart == actions.count { endingOwed = true } else { queue(.deliver(ending.event)) }
        let opens = openWaiters, closes = closeWaiters, sends = pendingSends, pings = pingWaiters
        openWaiters = []
        closeWaiters = []
        pendingSends = []
        pingWaiters = []
        for waiter in opens { resume(waiter, .failure(ending.error)) }
        for waiter in closes { resume(waiter, ending.closeResult) }
        for send in sends { resume(send.completion, .failure(ending.error)) }
        for ping in pings { resume(ping.completion, .failure(ending.error)) }
        return .ended(ending)
    }

    /// Counts the end of a server's connection: why it never opened (unless its answer was counted),
    /// its Close frames, a drop for a peer that stopped reading.
    private func countEnding(in meter: ServerMeter) {
        let wasOpen = handshake != nil
        if !wasOpen, !answerCounted {
            if let error = handshakeFailure?.invalidRequest {
                meter.countHandshakeFailed(status: error.httpStatus)
                meter.countRefusal(.invalidRequest)
            } else if handshakeFailure == .timedOut {
                meter.countRefusal(.handshakeTimeout)
            } else if case .proxyProtocol = pipeline.failure {
                meter.countRefusal(.proxyHeader)
            } else {
                meter.countRefusal(.abandoned)
            }
        }
        meter.countEnded(wasOpen: wasOpen, sent: pipeline.connection.closeCodeSent, received: pipeline.connection.closeCodeReceived,
                         droppedForBackpressure: closedForBackpressure || pipeline.failure == .timedOut(.write))
    }

    private func computeEnding() -> Ending {
        // Given up before it opened: cancelled, or the connect failed.
        if let abandonment { return .failed(abandonment) }
        guard handshake != nil else {
            // A transport failure (TLS, a reset) says more than the end of the handshake it caused.
            if let failure = pipeline.failure { return .failed(failure) }
            if let handshakeFailure { return .failed(.handshakeFailed(handshakeFailure)) }
            return .failed(.closed(pipeline.closeStatus))
        }
        return .closed(pipeline.closeStatus)
    }

    /// (Client) After a handshake that ended in a redirect to follow: the next hop, a new pipeline
    /// with its own proxy choice and TLS name. A redirect that may not be followed becomes the
    /// connect error.
    private mutating func followRedirect() -> Bool {
        guard abandonment == nil, handshake == nil, pipeline.failure == nil,
              let failure = handshakeFailure, var chain = redirects, let hop, let transport = clientTransport else { return false }
        do throws(WebSocketError) {
            guard let next = try chain.next(after: failure, request: hop.request, endpoint: hop.endpoint) else {
                return false
            }
            let plan = try ConnectionPipeline.client(next.request, via: next.endpoint,
                                                     configuration: pipeline.connection.configuration, transport: transport)
            redirects = chain
            self.hop = next
            restart(with: plan)
            return true
        } catch {
            abandonment = error
            return false
        }
    }

    /// Starts over with `plan`, keeping the waiters.
    mutating func restart(with plan: ClientPlan) {
        pipeline = plan.pipeline
        target = plan.socketTarget
        phase = .resolving
        handshakeFailure = nil
        inputEnded = false
        writeStalledSince = nil
        heldBytes = 0
        heldMessages = 0
    }

    /// Ends the session's socket at once, without a closing handshake: before the connection opened
    /// it ends as ``WebSocketError/cancelled``; once open, the connection is aborted (1006). The
    /// directive becomes ``ConnectionPipeline/SocketDirective/close``.
    package mutating func cancel() {
        switch phase {
        case .finished:
            return
        case .resolving, .connecting:
            if abandonment == nil { abandonment = .cancelled }
        case .handshaking:
            if abandonment == nil { abandonment = .cancelled }
            pipeline.connection.abort()
        case .open:
            pipeline.connection.abort()
        }
    }
}
