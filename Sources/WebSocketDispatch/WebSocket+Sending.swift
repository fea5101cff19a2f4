import WebSocketTransport

extension WebSocket {
    /// The outcome of one attempt to queue data in the core.
    enum SendOutcome {
        case queued
        /// The core refused it with ``Connection/UsageError/outputBufferFull``.
        case bufferFull
        case failed(WebSocketError)
    }

    /// Runs a send, ping or close on the core (on the queue), then writes. Data sends are refused
    /// while async sends wait for room, which keeps messages in the order they were sent.
    func perform(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void) -> Result<Void, WebSocketError> {
        if isData && !pendingSends.isEmpty {
            awaitingDrain = true
            return .failure(.bufferFull(bufferedAmount: peek({ $0.pendingOutputCount })))
        }
        switch attempt(body) {
        case .queued:
            pump()
            return .success(())
        case .bufferFull:
            return .failure(.bufferFull(bufferedAmount: peek({ $0.pendingOutputCount })))
        case .failed(let error):
            return .failure(error)
        }
    }

    /// Queues a whole message (on the queue); see ``perform(isData:_:)``.
    func sendOnQueue(_ message: WebSocketMessage) -> Result<Void, WebSocketError> {
        perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(message)
        }
    }

    /// One call into the core, with the time reported first (so that a close timer starts now). A
    /// refusal for lack of room, or a buffer left at the high-water mark, arms the drain report.
    func attempt(_ body: (inout Connection) throws(Connection.UsageError) -> Void) -> SendOutcome {
        if let failure = peek({ $0.failure }) { return .failed(failure) }
        pipeline.advanceTime(to: system.monotonicNow())
        do throws(Connection.UsageError) {
            try body(&pipeline.connection)
        } catch .outputBufferFull {
            awaitingDrain = true
            return .bufferFull
        } catch {
            return .failed(.connection(error))
        }
        if peek({ $0.connection.pendingOutputCount }) >= highWaterMark { awaitingDrain = true }
        return .queued
    }

    /// Once the buffer is back at the low-water mark: queues the waiting async sends in order, then
    /// reports the drain to the handler.
    func resumeAfterDrain() {
        guard awaitingDrain, peek({ $0.pendingOutputCount }) <= max(0, options.lowWaterMark) else { return }
        awaitingDrain = false
        var queuedAny = false
        while let pending = pendingSends.first {
            guard pending.waiter.isWaiting else {
                pendingSends.removeFirst()
                continue
            }
            let outcome = attempt { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.send(pending.message)
            }
            if case .bufferFull = outcome { break }
            pendingSends.removeFirst()
            switch outcome {
            case .queued:
                queuedAny = true
                pending.waiter.resume(.success(()))
            case .failed(let error):
                pending.waiter.resume(.failure(error))
            case .bufferFull:
                break
            }
        }
        if queuedAny {
            pipeline.update()
            writeOutput()
        }
        if !awaitingDrain {
            emit(.drained(bufferedAmount: peek({ $0.pendingOutputCount })))
            flushBatch()
        }
    }
}

extension WebSocket {
    /// How many async sends wait for buffer room (for tests).
    var waitingSendCount: Int {
        queue.sync { pendingSends.filter { $0.waiter.isWaiting }.count }
    }
}
