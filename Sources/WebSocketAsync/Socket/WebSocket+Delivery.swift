import Dispatch
import CWebSocketSystem
import WebSocketTransport

/// Where a socket's events go: one of the three faces, or nowhere yet (a server's connection
/// before it opens) or any more.
enum Consumer {
    /// (Server) The opening handshake runs; the server's face takes the socket once it opens.
    case pending
    /// Handlers on the socket's loop.
    case loopHandler(WebSocket.EventHandler)
    /// Handlers on a queue: a serial queue of the socket's own that targets the one you named, so
    /// that one socket's events never overlap and arrive in order, even on a concurrent queue.
    case queueHandler(DispatchQueue, WebSocket.EventHandler)
    /// The async face's messages.
    case batches(MessageBatches)
    /// The last event was delivered.
    case finished

    /// Whether the consumer holds what it is handed after the call that hands it returns: then the
    /// session counts it against ``WebSocketTransport/TransportOptions/maxUndeliveredBytes`` until it is taken.
    var holdsDeliveries: Bool {
        switch self {
        case .loopHandler, .finished: return false
        case .pending, .queueHandler, .batches: return true
        }
    }
}

// Everything here runs on the socket's loop.
extension WebSocket {
    /// Pulls the session's actions and carries out each, one at a time, then hands the queue face's
    /// batch to its queue and publishes the async face's messages.
    func act() {
        while let action = peek({ $0.nextAction() }) {
            switch action {
            case .deliver(let event): deliver(event)
            case .decide(let request): decide(request)
            case .resume(let resumption): resumption.run()
            }
        }
        switch consumer {
        case .queueHandler(let queue, let handler): dispatchBatch(to: queue, handler)
        case .batches(let batches): batches.publish()
        case .pending, .loopHandler, .finished: break
        }
    }

    private func deliver(_ event: WebSocketEvent) {
        if case .open(let result) = event { opened(result) }
        switch consumer {
        case .pending, .finished:
            break
        case .loopHandler(let handler):
            handler(self, event)
        case .queueHandler:
            queueBatch.append(event)
        case .batches(let batches):
            if case .message(let message) = event { batches.stage(message) }
        }
    }

    /// The connection opened: what other threads read is published, and a server's face takes the
    /// socket.
    private func opened(_ result: Connection.HandshakeResult) {
        shared.withLock { shared in
            shared.handshake = result
            shared.state = .open
        }
        publishedState = .open
        if let server, case .pending = consumer { consumer = server.opened(self) }
    }

    /// (Server) Asks the server's decision on the request: here for the loop and async faces, on the
    /// queue for the queue face (reading waits meanwhile).
    private func decide(_ request: Connection.HandshakeRequest) {
        guard let server else { return }
        switch server.face {
        case .loopHandler, .async:
            let decision = server.decide(request)
            peek { $0.respond(to: decision) }
        case .queueHandler(let queue, _):
            queue.async { [self] in
                let decision = server.decide(request)
                loop.execute { [self] in
                    guard !peek({ $0.isFinished }) else { return }
                    peek { $0.respond(to: decision) }
                    act()
                    markDirty()
                }
            }
        }
    }

    /// Hands the queue face's events of this turn to its queue in one block; their payload counts as
    /// held until the handler has returned for all of them.
    private func dispatchBatch(to queue: DispatchQueue, _ handler: @escaping EventHandler) {
        guard !queueBatch.isEmpty else { return }
        let events = queueBatch
        queueBatch = []
        var held = 0, count = 0
        for event in events {
            if case .message(let message) = event {
                held += message.payloadSize
                count += 1
            }
        }
        let bytes = held, messages = count
        queue.async { [self] in
            for event in events { handler(self, event) }
            guard messages > 0 else { return }
            loop.execute { [self] in consumerTook(bytes, messages: messages) }
        }
    }

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
