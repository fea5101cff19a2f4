#if os(Linux)
import Glibc
import WebSocketTransport

// Everything here runs on the connection's loop.
extension EventLoopWebSocket {
    /// How many reads one connection makes in a turn before the others get theirs.
    static let readsPerTurn = 16

    // MARK: Reading

    /// The kernel reported readiness.
    func handle(_ readiness: Epoll.Readiness) {
        if case .finished = phase { return }
        if !readiness.isDisjoint(with: [.writable, .failed]) {
            writable = true
            markDirty()
        }
        if !readiness.isDisjoint(with: [.readable, .failed]) {
            readable = true
            readAvailable()
        }
    }

    /// Reads again after giving the loop's other connections a turn, or after the consumer took
    /// messages that had paused reading.
    func readAgain() {
        if case .finished = phase { return }
        readAvailable()
    }

    /// Whether the connection wants bytes now. Once closed it reads (and discards) until the end of
    /// the stream; while open, not while its async consumer holds too much already.
    var wantsInput: Bool {
        guard !inputEnded else { return false }
        guard peek({ $0.connection.transportDirective }) == .keepOpen else { return true }
        if case .open(.batches(let batches)) = phase {
            return batches.mayRead(limit: server.options.maxUndeliveredBytes)
        }
        return true
    }

    /// Reads until the socket has nothing more (or the turn's share is used), feeding the pipeline
    /// and delivering what it parses after each read.
    func readAvailable() {
        var reads = 0
        while readable, wantsInput {
            guard reads < Self.readsPerTurn else {
                loop.readAgain(self)
                break
            }
            reads += 1
            let buffer = loop.readBuffer
            let outcome: Socket.ReadOutcome
            do throws(Errno) {
                outcome = try socket.read(into: buffer)
            } catch {
                readable = false
                pipeline.fail(.transport(error))
                break
            }
            switch outcome {
            case .bytes(let count):
                // A short read emptied the socket: the next arrival is a new edge.
                if count < buffer.count { readable = false }
                pipeline.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            case .nothing:
                readable = false
                continue
            case .endOfStream:
                readable = false
                inputEnded = true
                pipeline.receiveEOF()
            }
            deliverEvents()
        }
        markDirty()
    }

    // MARK: Events

    /// Pulls every event the connection has and acts on each, one at a time: an event is acted on
    /// (a handler's echo sent) before the next one is parsed, so that a frame that fails the
    /// connection cannot overtake the answer to the message before it. Payloads are lent by the core
    /// (`nextEventView`) and copied once, into the message handed on; the handler runs after the
    /// lending call returns, since acting (a send) changes the connection.
    func deliverEvents() {
        pipeline.advanceTime(to: loop.now)
        var pulled: Connection.Event? = nil
        while pipeline.connection.nextEventView({ view in
            switch view {
            case .text(let bytes): pulled = .text(String(decoding: bytes, as: UTF8.self))
            case .binary(let bytes): pulled = .binary(Array(bytes))
            case .other(let event): pulled = event
            }
        }) {
            if let event = pulled.take() { act(on: event) }
        }
        if case .open(.batches(let batches)) = phase { batches.publish() }
    }

    private func act(on event: Connection.Event) {
        switch event {
        case .handshakeRequest(let request):
            let decision = server.decide(request)
            do throws(Connection.UsageError) {
                try pipeline.connection.respond(to: decision)
            } catch {
                // An answer the core refuses (a subprotocol the client did not offer…).
                try? pipeline.connection.respond(to: .reject(status: 500))
            }
        case .handshakeCompleted(let result):
            opened(result)
        case .handshakeFailed:
            break  // the connection closes; it never reached the user
        case .text(let text): deliver(.text(text))
        case .binary(let bytes): deliver(.binary(bytes))
        case .fragment(let fragment): deliver(.fragment(fragment))
        case .ping(let payload): deliver(.ping(payload))
        case .pong(let payload): deliver(.pong(payload))
        case .closeReceived(let frame): deliver(.closeReceived(frame))
        case .protocolViolation, .closed:
            break  // the status is read once the socket is closed
        }
    }

    private func opened(_ result: Connection.HandshakeResult) {
        let consumer = server.consumer(for: self)
        shared.withLock { shared in
            shared.handshake = result
            if case .batches(let batches) = consumer { shared.batches = batches }
        }
        phase = .open(consumer)
        switch consumer {
        case .handler: deliver(.open(result))
        case .batches: server.opened(self)
        }
    }

    func deliver(_ event: WebSocketEvent) {
        guard case .open(let consumer) = phase else { return }
        switch consumer {
        case .handler(let handler):
            handler(self, event)
        case .batches(let batches):
            if let message = event.message(receivesControlFrames: server.options.receivesControlFrames) {
                batches.stage(message)
            }
        }
    }

    // MARK: Writing

    /// (End of the turn) Writes what the socket takes, then obeys the pipeline's directive.
    func flush() {
        isDirty = false
        if case .finished = phase { return }
        pipeline.update()
        while writable, peek({ $0.socketOutputCount }) > 0 {
            var wroteAll = true
            do throws(Errno) {
                // One gathered send for a connection's pieces (its frames, and prepared messages
                // kept apart in place): a burst of broadcasts goes out in a few calls.
                try pipeline.withSocketOutputPieces(upTo: Socket.maxPieces) {
                    (pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Errno) -> Int in
                    let written = try socket.writeSome(pieces: pieces)
                    var offered = 0
                    for piece in pieces { offered += piece.count }
                    if written < offered { wroteAll = false }
                    return written
                }
            } catch {
                pipeline.fail(.transport(error))
                break
            }
            if !wroteAll { writable = false }
            pipeline.update()
        }
        if peek({ $0.socketOutputCount }) > 0 {
            if writeStallDeadline == nil, let timeout = server.options.writeTimeout {
                writeStallDeadline = loop.now + timeout
            }
        } else {
            writeStallDeadline = nil
        }
        resumeAfterDrain()
        switch peek({ $0.socketDirective }) {
        case .open, .drain:
            break
        case .shutDownWrite:
            socket.shutdown(SocketConstants.shutdownWrite)
            pipeline.didShutDownWrite()
        case .close:
            finish()
            return
        }
        // A change of phase (closed: now reading to the end) may want input the socket has.
        if readable, wantsInput { loop.readAgain(self) }
        scheduleTimer()
    }

    /// Once the buffer is back at the low-water mark: queues the waiting async sends in order, then
    /// reports the drain to a handler.
    private func resumeAfterDrain() {
        guard awaitingDrain, peek({ $0.pendingOutputCount }) <= max(0, server.options.lowWaterMark) else { return }
        awaitingDrain = false
        while let first = waitingSends.first {
            waitingSends.removeFirst()
            do throws(WebSocketError) {
                try sendNow(first.message)
                first.continuation.resume(returning: .success(()))
            } catch .bufferFull {
                waitingSends.insert(first, at: 0)
                return
            } catch {
                first.continuation.resume(returning: .failure(error))
            }
        }
        if case .open(.handler) = phase { deliver(.drained(bufferedAmount: peek({ $0.pendingOutputCount }))) }
    }

    // MARK: Time

    /// Makes sure the loop wakes by the connection's earliest deadline.
    private func scheduleTimer() {
        var deadline = peek({ $0.nextDeadline })
        if let stall = writeStallDeadline, deadline.map({ stall < $0 }) ?? true { deadline = stall }
        guard let deadline else { return }
        if let scheduled = scheduledDeadline, scheduled <= deadline { return }
        scheduledDeadline = deadline
        loop.schedule(self, at: deadline)
    }

    /// A deadline of the loop's timers for this connection came (it may have moved since).
    func timerFired() {
        if case .finished = phase { return }
        scheduledDeadline = nil
        if let stall = writeStallDeadline, loop.now >= stall { pipeline.fail(.timedOut(.write)) }
        deliverEvents()
        markDirty()
    }

    // MARK: The end

    /// Closes the socket and reports the end.
    func finish() {
        let previous = phase
        loop.unregister(self, descriptor: socket.descriptor)
        socket.close()
        // The socket is gone: a connection that is not closed yet is aborted, so its state says so.
        pipeline.connection.abort()
        let status = peek({ $0.closeStatus })
        phase = .finished(status)
        shared.withLock { $0.closeStatus = status }
        switch previous {
        case .handshaking:
            server.endedBeforeOpening()
        case .open(.handler(let handler)):
            handler(self, .closed(status))
            server.ended()
        case .open(.batches(let batches)):
            batches.finish(status.wasClean ? nil : .closed(status))
            server.ended()
        case .finished:
            return
        }
        let sends = waitingSends, closes = closeWaiters
        waitingSends = []
        closeWaiters = []
        for send in sends { send.continuation.resume(returning: .failure(.closed(status))) }
        for waiter in closes { waiter.resume(returning: status) }
    }
}
#endif
