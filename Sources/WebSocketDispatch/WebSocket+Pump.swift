import Dispatch
import WebSocketCore

extension WebSocket {
    /// Moves everything that can move (see the theory of operation in `WebSocket+Phases.swift`).
    /// On the queue.
    func pump() {
        switch transport {
        case .open, .flushing, .draining: break
        case .idle, .connecting, .closing, .closed: return
        }
        connection.advanceTime(to: MonotonicClock.now())
        pullEvents()
        writeOutput()
        resumeAfterDrain()
        if writeFailed { pullEvents() }
        if case .open = transport, connection.shouldCloseTransport { beginClosingTransport() }
        if case .flushing = transport, connection.pendingOutputCount == 0 || writeFailed { finishFlushing() }
        updateInterest()
        rearmTimer()
    }

    // MARK: Events

    /// Pulls the core's events and hands them to the consumer.
    func pullEvents() {
        while let event = connection.nextEvent() {
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
            case .pong(let payload): emit(.pong(payload))
            case .closeReceived(let frame): emit(.closeReceived(frame))
            case .protocolViolation, .closed:
                // Reported with the last event: the status (and its failure) is read from the core
                // once the socket is closed.
                break
            }
        }
        flushBatch()
    }

    /// Hands one event to the consumer: batched for the handler, kept in the inbox for `messages`.
    func emit(_ event: WebSocketEvent) {
        switch consumer {
        case .handler:
            batch.append(event)
            batchBytes += event.payloadSize
        case .inbox(let inbox):
            switch event {
            case .text(let text): inbox.push(.text(text))
            case .binary(let bytes): inbox.push(.binary(bytes))
            case .open:
                let waiters = openWaiters
                openWaiters = []
                for waiter in waiters { waiter.resume(.success(())) }
            case .fragment, .ping, .pong, .closeReceived, .drained, .closed, .failed:
                // The async face reports messages only; pongs and close replies are automatic, and
                // the end comes through `messages`, `close()` and the waiting sends.
                break
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
            sources.setReading(false)
            sources.setWriting(true)
        case .open:
            // A server reads nothing more while its user decides on the request: the core would only
            // buffer it.
            let reading = !inputEnded && connection.pendingHandshakeRequest == nil
                && heldInputBytes < max(1, options.maxUndeliveredBytes)
            sources.setReading(reading)
            sources.setWriting(connection.pendingOutputCount > 0 && !writeFailed)
        case .flushing:
            sources.setReading(!inputEnded)
            sources.setWriting(connection.pendingOutputCount > 0 && !writeFailed)
        case .draining:
            sources.setReading(!inputEnded)
            sources.setWriting(false)
        case .idle, .closing, .closed:
            break
        }
    }

    /// Creates the timer source (suspended until the first deadline is set).
    func makeTimer() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in handleTimer() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        self.timer = timer
    }

    /// Schedules the timer at the earliest deadline: the core's, or the transport phase's own.
    func rearmTimer() {
        var deadline = connection.nextDeadline
        switch transport {
        case .connecting(let attempt):
            deadline = min(deadline ?? attempt.deadline, attempt.deadline)
        case .flushing(let limit), .draining(let limit):
            deadline = min(deadline ?? limit, limit)
        case .idle, .open, .closing, .closed:
            break
        }
        guard deadline != scheduledDeadline, let timer else { return }
        scheduledDeadline = deadline
        timer.schedule(deadline: deadline.map(MonotonicClock.dispatchTime) ?? .distantFuture)
    }

    func handleTimer() {
        scheduledDeadline = nil
        let now = MonotonicClock.now()
        switch transport {
        case .connecting(let attempt):
            if now >= attempt.deadline {
                abandonAttempt(.connectTimedOut)
            } else {
                rearmTimer()
            }
        case .flushing(let deadline), .draining(let deadline):
            if now >= deadline {
                closeSocket()
            } else {
                pump()
            }
        case .open:
            pump()
        case .idle, .closing, .closed:
            break
        }
    }
}
