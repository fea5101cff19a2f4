// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import WebSocketTransport

/// What the queue face's handlers get, in order: an event, or a call that must come in order with
/// them (an awaited ping's answer).
enum QueueDelivery {
    case event(WebSocketEvent)
    case call(@Sendable () -> Void)
}

/// Where a socket's events go: one of the three faces, or nowhere yet (a server's connection
/// before it opens) or any more.
enum Consumer {
    /// (Server) The opening handshake runs; the server's face takes the socket once it opens.
    case pending
    /// Handlers on the socket's loop.
    case loopHandler(EventHandlerBox)
    /// A handler on the socket's loop that borrows messages.
    case lendingHandler(LendingHandlerBox)
    /// Handlers on the queue you named, reached through the socket's mailbox, so that one socket's
    /// events never overlap and arrive in order, even on a concurrent queue.
    case queueHandler(DispatchQueue, WebSocket.EventHandler)
    /// The async face's messages.
    case batches(MessageBatches)
    /// The last event was delivered.
    case finished

    /// Handlers on the socket's loop, boxed.
    static func loopHandler(_ handler: @escaping WebSocket.EventHandler) -> Consumer { .loopHandler(EventHandlerBox(handler)) }
    /// A lending handler on the socket's loop, boxed.
    static func lendingHandler(_ handler: @escaping WebSocket.LendingHandler) -> Consumer {
        .lendingHandler(LendingHandlerBox(handler))
    }

    /// Whether a batch is handed over after the actions of a read or a write (``WebSocket/handOver()``):
    /// the queue face's, the async face's, and what comes through the mailbox after the end.
    var handsOver: Bool {
        switch self {
        case .queueHandler, .batches, .finished: return true
        case .pending, .loopHandler, .lendingHandler: return false
        }
    }

    /// Whether the consumer holds what it is handed after the call that hands it returns: then the
    /// session counts it against ``WebSocketTransport/TransportOptions/maxUndeliveredBytes`` until it is taken.
    var holdsDeliveries: Bool {
        switch self {
        case .loopHandler, .lendingHandler, .finished: return false
        case .pending, .queueHandler, .batches: return true
        }
    }
}

// Everything here runs on the socket's loop.
extension WebSocket {
    /// Pulls the session's actions and carries out each, one at a time, then hands the queue face's
    /// batch to its queue and publishes the async face's messages. Returns whether there was any.
    @discardableResult
    func act() -> Bool {
        var acted = false
        while let action = peek({ $0.nextAction() }) {
            acted = true
            perform(action)
        }
        handOver()
        return acted
    }

    /// Hands the queue face's batch to its queue and publishes the async face's messages. The flag
    /// is checked inline: the loop faces, which hand nothing over, call this twice per message.
    @inline(__always)
    func handOver() {
        if handsOver { handOverBatch() }
    }

    private func handOverBatch() {
        if let faceBatches, case .batches = consumer {
            faceBatches._withUnsafeGuaranteedRef { $0.publish() }
            return
        }
        switch consumer {
        case .queueHandler(let queue, let handler): dispatchBatch(to: queue, handler)
        case .batches(let batches): batches.publish()
        case .finished:
            // What comes after the last event (a late ping's answer) still goes through the mailbox.
            if let queueFace { dispatchBatch(to: queueFace.queue, queueFace.handler) }
        case .pending, .loopHandler, .lendingHandler: break
        }
    }

    /// Carries out one action of the session. Out of line: inlined where a loop handler's message
    /// might take this path instead, its setup (hoisted out of the cases that need it) cost the
    /// loop handler's read about 25 instructions per message.
    @inline(never)
    func perform(_ action: consuming SessionAction) {
        // Consumed: a message goes on to the async face's batches without a copy of its own.
        switch consume action {
        case .deliver(let event): deliver(event)
        case .decide(let request): decide(request)
        case .resume(let resumption): resumption.run()
        }
    }

    private func deliver(_ event: consuming WebSocketEvent) {
        if case .open(let result) = event { opened(result) }
        if let faceBatches, case .batches = consumer {
            if case .message(let message) = consume event { faceBatches._withUnsafeGuaranteedRef { $0.stage(message) } }
            return
        }
        switch consumer {
        case .pending, .finished:
            break
        case .loopHandler(let handler):
            handler.call(self, event)
        case .lendingHandler(let handler):
            lend(event, to: handler.call)
        case .queueHandler:
            queueBatch.append(.event(event))
        case .batches(let batches):
            if case .message(let message) = event { batches.stage(message) }
        }
    }

    /// The connection opened: what other threads read is published, and a server's face takes the
    /// socket.
    private func opened(_ result: Connection.HandshakeResult) {
        // The header is copied only when there is one: the copy of an absent one, twice, and its
        // destruction cost about 230 instructions of every connection (callgrind).
        let isProxied = peek { session in
            if case .some = session.proxied { return true }
            return false
        }
        let proxied = isProxied ? peek { $0.proxied } : nil
        shared.withLock { shared in
            shared.handshake = result
            shared.state = .open
            if isProxied { shared.proxyHeader = proxied }
        }
        publishedState = .open
        if let server, case .pending = consumer { consumer = server.opened(self) }
    }

    /// (Server) Asks the server's decision on the request: here for the loop and async faces, on the
    /// queue for the queue face (reading waits meanwhile). Without a decision of the user's, the
    /// request is accepted here, with no hop to the queue.
    private func decide(_ request: Connection.HandshakeRequest) {
        guard let server else { return }
        if server.isDraining {
            peek {
                $0.respond(to: .reject(status: 503, headers: ["Retry-After": "1"], body: Array("the server is shutting down\n".utf8)),
                           refusal: .draining)
            }
            return
        }
        guard let decide = server.decide else {
            peek { $0.respond(to: .accept()) }
            return
        }
        switch server.face {
        case .loopHandler, .lendingHandler, .async:
            let decision = decide(request)
            peek { $0.respond(to: decision) }
        case .queueHandler(let queue, _):
            queue.async { [self] in
                let decision = decide(request)
                loop.execute { [self] in
                    guard !peek({ $0.isFinished }) else { return }
                    peek { $0.respond(to: decision) }
                    act()
                    markDirty()
                }
            }
        }
    }

    /// Moves the queue face's deliveries of this turn to the mailbox, and starts a drain on the queue
    /// unless one runs: while the handlers are busy, what arrives joins the mailbox at the cost of a
    /// lock, and the running drain takes it in its next round.
    private func dispatchBatch(to queue: DispatchQueue, _ handler: @escaping EventHandler) {
        guard !queueBatch.isEmpty else { return }
        let mustStart = shared.withLock { shared in
            if shared.mailbox.isEmpty {
                swap(&shared.mailbox, &queueBatch)
            } else {
                shared.mailbox.append(contentsOf: queueBatch)
            }
            defer { shared.mailboxRunning = true }
            return !shared.mailboxRunning
        }
        queueBatch.removeAll(keepingCapacityUpTo: Self.keptCapacity)
        if mustStart { loop.startDrain(of: self, on: queue, handler) }
    }

    /// (On the queue) The drains the loop started in one turn: one block for every socket whose
    /// events arrived in that turn, one after another, instead of a block each (at 100 connections
    /// echoing, a block each ran at 0.56x of the loop face's rate, one block per turn at 0.86x).
    static func drain(_ sockets: [(WebSocket, EventHandler)], on queue: DispatchQueue) {
        for (socket, handler) in sockets { socket.drainMailbox(queue, handler) }
    }

    /// (On the queue) Hands the mailbox to the handler, round after round, until it is empty; after
    /// a few rounds the queue's other work gets a turn and the drain goes on in a new block. What the
    /// handlers returned from is reported to the loop (their payload counted as held until then),
    /// piggybacked on the visit that their sends asked for when they sent.
    func drainMailbox(_ queue: DispatchQueue, _ handler: @escaping EventHandler) {
        var tookBytes = 0, tookMessages = 0
        var rounds = 0
        while true {
            var mustVisit = false
            let next: Bool? = shared.withLock { shared in
                if tookMessages > 0 {
                    shared.tookBytes += tookBytes
                    shared.tookMessages += tookMessages
                    mustVisit = !shared.visitScheduled
                    shared.visitScheduled = true
                }
                if shared.mailbox.isEmpty {
                    shared.mailboxRunning = false
                    return false
                }
                if rounds == Self.drainRounds { return nil }
                swap(&shared.mailbox, &queueRunning)
                return true
            }
            if mustVisit { loop.submit(.visit(self)) }
            guard let next else {
                queue.async { [self] in drainMailbox(queue, handler) }
                return
            }
            guard next else { return }
            rounds += 1
            tookBytes = 0
            tookMessages = 0
            for delivery in queueRunning {
                switch delivery {
                case .event(let event):
                    if case .message(let message) = event {
                        tookBytes += message.payloadSize
                        tookMessages += 1
                    }
                    handler(self, event)
                case .call(let call):
                    call()
                }
            }
            queueRunning.removeAll(keepingCapacityUpTo: Self.keptCapacity)
        }
    }

    /// Rounds of one drain before the queue's other work gets a turn.
    static let drainRounds = 8

    /// (On the loop) The consumer took `messages` messages of `bytes` it was handed: reading resumes
    /// if it had paused.
    func consumerTook(_ bytes: Int, messages: Int) {
        guard !peek({ $0.isFinished }) else { return }
        let wasPaused = !peek { $0.wantsInput }
        peek { $0.consumerTook(bytes, messages: messages) }
        guard wasPaused, peek({ $0.wantsInput }) else { return }
        if readable { loop.readAgain(self) }
        // The readiness backend is told to wait for input again.
        markDirty()
    }
}

extension WebSocket {
    /// The most elements a per-socket array keeps room for once emptied: a burst (a flood of small
    /// messages to a slow handler) does not leave its peak allocated for the connection's life.
    static let keptCapacity = 256
}

extension Array {
    /// Empties the array, keeping its storage only while it holds at most `limit` elements.
    mutating func removeAll(keepingCapacityUpTo limit: Int) {
        if capacity > limit { self = [] } else { emptyKeepingCapacity() }
    }

    /// Empties the array and keeps its storage. The standard library's
    /// `removeAll(keepingCapacity: true)` goes through `replaceSubrange`, about 70 instructions
    /// whatever the count; a batch of one or two messages (the common case) is emptied from the end
    /// for a fraction of that.
    @inline(__always)
    mutating func emptyKeepingCapacity() {
        if count <= 2 {
            while !isEmpty { removeLast() }
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}
