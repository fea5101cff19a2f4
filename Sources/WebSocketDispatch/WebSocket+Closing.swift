import Dispatch
import WebSocketCore

extension WebSocket {
    /// The core said to close the transport (`shouldCloseTransport`): write what is left first, for at
    /// most ``TransportOptions/lingerTimeout``.
    func beginClosingTransport() {
        if connection.pendingOutputCount == 0 || writeFailed {
            finishFlushing()
        } else {
            transport = .flushing(deadline: MonotonicClock.now() + options.lingerTimeout)
        }
    }

    /// Everything is written. A server that still reads shuts down its writing side and waits (for
    /// at most ``TransportOptions/lingerTimeout``) for the client to close, so that bytes the client
    /// sent meanwhile cannot make our close a reset that destroys our last frames in flight; a client
    /// closes at once (it closes after the server, RFC 6455 §7.1.1).
    func finishFlushing() {
        guard let sources, !isClient, !inputEnded, !writeFailed else {
            closeSocket()
            return
        }
        Socket.shutdownWrite(sources.fd)
        transport = .draining(deadline: MonotonicClock.now() + options.lingerTimeout)
    }

    /// Cancels the sources; the descriptor is closed once they are done, then ``finish()`` runs.
    func closeSocket() {
        switch transport {
        case .closing, .closed: return
        case .idle, .connecting, .open, .flushing, .draining: break
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
        transport = .closed
        timer?.cancel()
        timer = nil
        let ending = computeEnding()
        self.ending = ending

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
    }

    private func computeEnding() -> Ending {
        if let connectFailure { return .failed(connectFailure) }
        if let handshakeFailure { return .failed(.handshakeFailed(handshakeFailure)) }
        guard handshakeResult != nil else {
            if case .closed(let status) = connection.state, !wasCancelled { return .failed(.closed(status)) }
            return .failed(.cancelled)
        }
        if case .closed(let status) = connection.state { return .closed(status) }
        // The socket closed while the core was not closed: only `abort()` does that, and it tells the
        // core first; report a lost connection.
        return .closed(CloseStatus(code: .abnormalClosure, reason: "connection lost", wasClean: false,
                                   failure: .unexpectedEndOfStream))
    }

    /// How `messages` ends: normally after a clean closing handshake, with an error otherwise.
    func messagesEnd(_ ending: Ending) -> Result<WebSocketMessage?, any Error> {
        switch ending {
        case .closed(let status) where status.wasClean: return .success(nil)
        case .closed, .failed: return .failure(ending.error)
        }
    }

    /// ``cancel()``: closes the socket now. Once open, the core is told the transport ended, so that
    /// it reports the loss (1006) as it would a vanished peer.
    func abort() {
        switch transport {
        case .closing, .closed:
            return
        case .idle, .connecting:
            wasCancelled = true
        case .open, .flushing, .draining:
            if handshakeResult == nil {
                wasCancelled = true
            } else {
                inputEnded = true
                connection.receiveEOF()
                pullEvents()
            }
        }
        closeSocket()
    }
}
