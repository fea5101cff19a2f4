import Dispatch
import WebSocketTransport

extension WebSocket {
    /// Cancels the sources; the socket is closed once they are done, then ``finish()`` runs.
    func closeSocket() {
        switch transport {
        case .closing, .closed: return
        case .idle, .connecting, .open: break
        }
        transport = .closing
        guard let sources else {
            finish()
            return
        }
        sources.close { [self] in
            self.sources = nil
            finish()
        }
    }

    /// The socket is closed: reports the last event and resumes every waiter.
    func finish() {
        guard ending == nil else { return }
        if followRedirect() { return }
        transport = .closed
        timer?.cancel()
        timer = nil
        // The socket is gone: a connection that is not closed yet (only a cancelled connect leaves
        // one) is aborted, so that its state says so.
        pipeline.connection.abort()
        pullEvents()
        let ending = computeEnding()
        self.ending = ending

        if case .server(let context) = consumer { context.connectionEndedBeforeOpening() }
        emit(ending.event)
        flushBatch()
        if case .handler = consumer { consumer = .finished }
        if case .inbox(let inbox) = consumer { inbox.finish(messagesEnd(ending)) }

        let opens = openWaiters, closes = closeWaiters, sends = pendingSends
        openWaiters = []
        closeWaiters = []
        pendingSends = []
        for waiter in opens { waiter.resume(.failure(ending.error)) }
        for waiter in closes {
            switch ending {
            case .closed(let status): waiter.resume(.success(status))
            case .failed(let error): waiter.resume(.failure(error))
            }
        }
        for send in sends { send.waiter.resume(.failure(ending.error)) }
        pendingPings.failAll(ending.error)
    }

    /// (Client) After a handshake that ended in a redirect to follow (``TransportOptions/maxRedirects``):
    /// starts the next hop, a new connection with its own proxy choice and TLS name, and returns
    /// `true`. A redirect that may not be followed becomes the connect error.
    private func followRedirect() -> Bool {
        guard !wasCancelled, handshakeResult == nil, connectFailure == nil, pipeline.failure == nil,
              let failure = handshakeFailure, var chain = redirects, let hop = currentHop else { return false }
        do throws(WebSocketError) {
            guard let next = try chain.next(after: failure, request: hop.request, endpoint: hop.endpoint) else {
                return false
            }
            let plan = try ConnectionPipeline.client(next.request, via: next.endpoint,
                                                     configuration: pipeline.connection.configuration, transport: options)
            redirects = chain
            currentHop = next
            pipeline = plan.pipeline
            transport = .idle
            handshakeFailure = nil
            inputEnded = false
            writeStalledSince = nil
            scheduledDeadline = nil
            timer?.cancel()
            timer = nil
            startConnecting(to: plan)
            return true
        } catch {
            connectFailure = error
            return false
        }
    }

    private func computeEnding() -> Ending {
        if let connectFailure { return .failed(connectFailure) }
        guard handshakeResult != nil else {
            if wasCancelled { return .failed(.cancelled) }
            // A transport failure (TLS, a reset) says more than the end of the handshake it caused.
            if let failure = pipeline.failure { return .failed(failure) }
            if let handshakeFailure { return .failed(.handshakeFailed(handshakeFailure)) }
            return .failed(.closed(pipeline.closeStatus))
        }
        return .closed(pipeline.closeStatus)
    }

    /// How `messages` ends: normally after a clean closing handshake, with an error otherwise.
    func messagesEnd(_ ending: Ending) -> Result<WebSocketMessage?, any Error> {
        switch ending {
        case .closed(let status) where status.wasClean: return .success(nil)
        case .closed, .failed: return .failure(ending.error)
        }
    }

    /// ``cancel()``: closes the socket now; an open connection is aborted (1006).
    func abort() {
        switch transport {
        case .closing, .closed:
            return
        case .idle, .connecting:
            wasCancelled = true
        case .open:
            if handshakeResult == nil { wasCancelled = true }
            pipeline.connection.abort()
            pullEvents()
        }
        closeSocket()
    }
}
