import Dispatch
import WebSocketTransport

extension WebSocket {
    /// Moves everything that can move (see the theory of operation in `WebSocket+Phases.swift`).
    /// On the queue.
    func pump() {
        guard case .open = transport else { return }
        pipeline.advanceTime(to: system.monotonicNow())
        pullEvents()
        pipeline.update()
        writeOutput()
        resumeAfterDrain()
        // A failed write aborted the connection, and a drain may have queued sends: their events and
        // output come now.
        pullEvents()
        pipeline.update()
        writeOutput()
        switch peek({ $0.socketDirective }) {
        case .open, .drain:
            break
        case .shutDownWrite:
            sources?.socket.shutdown(SocketConstants.shutdownWrite)
            pipeline.didShutDownWrite()
        case .close:
            closeSocket()
            return
        }
        updateInterest()
        rearmTimer()
    }

    // MARK: Events

    /// Pulls the connection's events and hands them to the consumer.
    func pullEvents() {
        while let event = pipeline.connection.nextEvent() {
            switch event {
            case .handshakeRequest(let request):
                askForDecision(request)
            case .handshakeCompleted(let result):
                handshakeResult = result
                if case .server(let context) = consumer { handOff(to: context) }
                emit(.open(result))
            case .handshakeFailed(let failure):
                handshakeFailure = failure
            case .text(let text): emit(.text(text))
            case .binary(let bytes): emit(.binary(bytes))
            case .fragment(let fragment): emit(.fragment(fragment))
            case .ping(let payload): emit(.ping(payload))
            case .pong(let payload):
                pendingPings.answer(payload, at: system.monotonicNow())
                emit(.pong(payload))
            case .closeReceived(let frame): emit(.closeReceived(frame))
            case .protocolViolation, .closed:
                // Reported with the last event: the status (and its failure) is read from the
                // connection once the socket is closed.
                break
            }
        }
        flushBatch()
    }

    /// Hands one event to the consumer: batched for the handler, kept in the inbox for the async face.
    func emit(_ event: WebSocketEvent) {
        switch consumer {
        case .handler:
            batch.append(event)
            batchBytes += event.payloadSize
        case .inbox(let inbox):
            if case .open = event {
                let waiters = openWaiters
                openWaiters = []
                for waiter in waiters { waiter.resume(.success(())) }
            } else if let message = event.message(receivesControlFrames: options.receivesControlFrames) {
                inbox.push(message)
            }
        case .server, .finished:
            break
        }
    }

    /// Dispatches the batched events to the handler's queue in one block. Their payload counts as
    /// undelivered until the handler returns, which pauses reading past the limit.
    func flushBatch() {
        guard !batch.isEmpty, case .handler(let delivery, let handler) = consumer else { return }
        let events = batch
        let bytes = batchBytes
        batch = []
        batchBytes = 0
        undeliveredBytes += bytes
        delivery.async {
            for event in events { handler(self, event) }
            guard bytes > 0 else { return }
            self.queue.async {
                self.undeliveredBytes -= bytes
                self.pump()
            }
        }
    }

    // MARK: Interest and time

    /// Payload held for a consumer that has not taken it yet.
    var heldInputBytes: Int {
        switch consumer {
        case .handler: return undeliveredBytes
        case .inbox(let inbox): return inbox.bytes
        case .server, .finished: return 0
        }
    }

    /// Resumes or suspends the read and write sources for the current phase.
    func updateInterest() {
        guard let sources else { return }
        switch transport {
        case .connecting:
            sources.setInterest(reading: false, writing: true)
        case .open:
            let reading: Bool
            if peek({ $0.connection.transportDirective }) != .keepOpen {
                // Closed: what still arrives is discarded, and the end of the stream is awaited.
                reading = !inputEnded
            } else {
                // A server reads nothing more while its user decides on the request (the connection
                // would only buffer it), nor while the consumer holds enough.
                reading = !inputEnded && peek({ $0.connection.pendingHandshakeRequest == nil })
                    && heldInputBytes < max(1, options.maxUndeliveredBytes)
            }
            sources.setInterest(reading: reading, writing: peek({ $0.socketOutputCount }) > 0)
        case .idle, .closing, .closed:
            break
        }
    }

    /// Creates the timer source (idle until the first deadline is set).
    func makeTimer() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in handleTimer() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        self.timer = timer
    }

    /// Schedules the timer at the earliest deadline: the connection's, the connect attempt's, or a
    /// stalled write's.
    func rearmTimer() {
        var deadline: Connection.Instant?
        func consider(_ candidate: Connection.Instant?) {
            guard let candidate else { return }
            if let current = deadline, current <= candidate { return }
            deadline = candidate
        }
        switch transport {
        case .connecting(let attempt):
            consider(attempt.deadline)
        case .open:
            consider(peek({ $0.nextDeadline }))
            consider(writeStallDeadline)
        case .idle, .closing, .closed:
            break
        }
        guard deadline != scheduledDeadline, let timer else { return }
        scheduledDeadline = deadline
        guard let deadline else {
            timer.schedule(deadline: .distantFuture)
            return
        }
        // Relative to Dispatch's own clock: the pipeline's instants come from CLOCK_MONOTONIC, which
        // `DispatchTime` need not share. Rounded up, so the timer never fires before the deadline.
        timer.schedule(deadline: .now() + Self.dispatchInterval(deadline - system.monotonicNow()))
    }

    func handleTimer() {
        scheduledDeadline = nil
        let now = system.monotonicNow()
        switch transport {
        case .connecting(let attempt):
            if let deadline = attempt.deadline, now >= deadline {
                connectTimedOut()
            } else {
                rearmTimer()
            }
        case .open:
            if let deadline = writeStallDeadline, now >= deadline {
                pipeline.fail(.timedOut(.write))
            }
            pump()
        case .idle, .closing, .closed:
            break
        }
    }

    /// A duration as a Dispatch interval: whole nanoseconds rounded up, at least 0, at most a year.
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        guard duration > .zero else { return .nanoseconds(0) }
        let (seconds, attoseconds) = duration.components
        guard seconds < 365 * 86_400 else { return .seconds(365 * 86_400) }
        let nanoseconds = seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
        return .nanoseconds(Int(nanoseconds))
    }
}
