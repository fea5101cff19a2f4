import WebSocketCore

/// An async send waiting for buffer room.
struct PendingSend: Sendable {
    var message: WebSocketMessage
    var completion: SessionCompletion<Void>
}

extension SocketSession {
    // MARK: Sending

    /// Queues `message` in the connection, or refuses it; nothing else changes when refused.
    ///
    /// - Throws: the transport's failure, once one ended the connection;
    ///   ``WebSocketError/bufferFull(bufferedAmount:)`` at the high-water mark,
    ///   or for a message or a Close while async sends wait for room (neither overtakes them), after which a
    ///   ``WebSocketEvent/drained(bufferedAmount:)`` follows; ``WebSocketError/connection(_:)`` for
    ///   what the connection refuses in its state.
    package mutating func send(_ message: WebSocketMessage) throws(WebSocketError) {
        try perform(isData: message.waitsBehindSends) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(message)
        }
    }

    /// Queues a message framed once for many connections; see ``send(_:)``.
    package mutating func send(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        try perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(prepared)
        }
    }

    /// One call into the connection that queues output (`isData`: a message, which waits behind
    /// async sends), with the refusals and the high-water mark of every adapter.
    package mutating func perform(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void)
        throws(WebSocketError)
    {
        // A transport failure says more than the connection's refusal once closed; after the end,
        // the connection refuses (not open, or its Close already sent).
        if let failure = pipeline.failure { throw failure }
        if isData, !pendingSends.isEmpty {
            awaitingDrain = true
            throw .bufferFull(bufferedAmount: pipeline.pendingOutputCount)
        }
        do throws(Connection.UsageError) {
            try body(&pipeline.connection)
        } catch .outputBufferFull {
            awaitingDrain = true
            throw .bufferFull(bufferedAmount: pipeline.pendingOutputCount)
        } catch {
            throw .connection(error)
        }
        if pipeline.connection.pendingOutputCount >= settings.highWaterMark { awaitingDrain = true }
    }

    /// Queues `message` now if there is room and nothing waits before it, otherwise keeps it (with
    /// `completion`) until the buffer falls to the low-water mark. `completion` is resumed once the
    /// message is queued, or with why it never will be.
    package mutating func sendOrWait(_ message: WebSocketMessage, completion: @escaping SessionCompletion<Void>) {
        if pendingSends.isEmpty || !message.waitsBehindSends {
            do throws(WebSocketError) {
                try send(message)
                resume(completion, .success(()))
                return
            } catch .bufferFull {
                // Waits below.
            } catch {
                resume(completion, .failure(error))
                return
            }
        }
        awaitingDrain = true
        pendingSends.append(PendingSend(message: message, completion: completion))
    }

    /// Whether async sends wait for room.
    package var hasPendingSends: Bool { !pendingSends.isEmpty }

    /// After output was written: once the buffer is back at the low-water mark, queues the waiting
    /// sends in order, then reports the drain (``WebSocketEvent/drained(bufferedAmount:)``).
    package mutating func outputDrained() {
        guard awaitingDrain, pipeline.pendingOutputCount <= settings.lowWaterMark else { return }
        awaitingDrain = false
        while let first = pendingSends.first {
            do throws(WebSocketError) {
                try perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                    try connection.send(first.message)
                }
                pendingSends.removeFirst()
                resume(first.completion, .success(()))
            } catch .bufferFull {
                return
            } catch {
                pendingSends.removeFirst()
                resume(first.completion, .failure(error))
            }
        }
        if !awaitingDrain { queue(.deliver(.drained(bufferedAmount: pipeline.pendingOutputCount))) }
    }

    /// The drain must be reported even though no send was refused here (one refused elsewhere, by
    /// a check made off the adapter's thread).
    package mutating func expectDrain() {
        awaitingDrain = true
    }

    // MARK: Closing

    /// Starts the closing handshake (unless it has started) and resumes `completion` with how the
    /// connection ended, once the socket is closed. While async sends wait for room, the Close
    /// waits behind them (RFC 6455 §5.5.1: nothing is sent after it).
    ///
    /// - Throws: ``WebSocketError/connection(_:)`` for a code or reason that may not be sent, or
    ///   before the connection opened; nothing is queued then.
    package mutating func close(code: Connection.CloseCode, reason: String,
                                completion: SessionCompletion<Connection.CloseStatus>?) throws(WebSocketError) {
        if case .finished(let ending) = phase {
            if let completion { resume(completion, ending.closeResult) }
            return
        }
        do throws(Connection.UsageError) {
            switch pipeline.connection.state {
            case .closing(initiatedBy: .local), .closed:
                break  // under way already: wait for it
            case .open where !pendingSends.isEmpty:
                // Data handed over before the Close still waits for room: the Close goes after it.
                guard code.isValidOnWire else { throw .invalidCloseCode(code) }
                guard reason.utf8.count <= 123 else { throw .closeReasonTooLong }
                pendingSends.append(PendingSend(message: .close(Connection.CloseFrame(code: code, reason: reason)), completion: { _ in }))
            case .connecting, .open, .closing(initiatedBy: .remote):
                try pipeline.connection.close(code: code, reason: reason)
            }
        } catch {
            throw .connection(error)
        }
        if let completion { closeWaiters.append(completion) }
    }
}

extension Connection.State {
    /// What the connection answers a new message in this state, as the core's permission table says
    /// (docs/architecture.md), for a check made from the state alone, off the thread that owns the
    /// connection: `nil` while open.
    package var messageRefusal: Connection.UsageError? {
        switch self {
        case .connecting: return .notOpen
        case .open: return nil
        case .closing: return .closeAlreadySent
        case .closed(let status): return status.wasClean ? .closeAlreadySent : .notOpen
        }
    }
}
