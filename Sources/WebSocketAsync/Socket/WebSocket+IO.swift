// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CWebSocketSystem
import WebSocketTransport

// Everything here runs on the socket's loop.
extension WebSocket {
    /// How many reads one socket makes in a turn before the others get theirs.
    static let readsPerTurn = 16

    // MARK: Readiness

    /// The backend reported readiness. Inlined into the loop's handling (see `EventLoop.handle`).
    @inline(__always)
    func handle(_ events: ReadinessEvents) {
        switch peek({ $0.stage }) {
        case .finished, .resolving:
            return
        case .connecting:
            if !events.isEmpty { finishConnectAttempt() }
            return
        case .handshaking, .open:
            break
        }
        // Raw values, not array literals: a debug build allocates an array for each literal.
        // Writable news only when the socket was full: epoll (edge-triggered, both directions
        // registered) reports the socket writable with every read, and marking it dirty each time
        // cost a retain, a release and a place in the loop's dirty list per echoed message. While
        // `writable` holds, no output waits for room (a write round that the socket took less of
        // clears it). A failure always goes through.
        if events.rawValue & ReadinessEvents.failed.rawValue != 0
            || (!writable && events.rawValue & ReadinessEvents.writable.rawValue != 0) {
            writable = true
            markDirty()
        }
        if events.contains(.hangUp) { peerHungUp = true }
        if events.rawValue & (ReadinessEvents.readable.rawValue | ReadinessEvents.failed.rawValue) != 0 {
            readable = true
            readAvailable()
        }
    }

    /// Reads again after giving the loop's other sockets a turn, or after the consumer took what
    /// had paused reading.
    func readAgain() {
        guard !peek({ $0.isFinished }) else { return }
        readAvailable()
    }

    /// Reads until the socket has nothing more (or the turn's share is used), feeding the session
    /// and acting on what it parsed after each read.
    // Inlined into the readiness handling (about 18 instructions per echoed message).
    @inline(__always)
    func readAvailable() {
        var reads = 0
        reading: while readable, let socket = unretainedSocket {
            guard reads < Self.readsPerTurn else {
                if peek({ $0.wantsInput }) { loop.readAgain(self) }
                break
            }
            reads += 1
            let buffer = loop.readBuffer
            let read = socket._withUnsafeGuaranteedRef { socket in session.read(from: socket, into: buffer, at: loop.now, peerHungUp: peerHungUp) }
            switch read {
            case .unwanted:
                break reading
            case .inPlace(let count):
                // A short read emptied the socket: the next arrival is a new edge. Unless the peer
                // hung up: its end of stream is still to be read, and no new edge will say so.
                if count < buffer.count, !peerHungUp { readable = false }
                readInPlace(UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
                // readInPlace pulled until the session had nothing left (no action queued,
                // nothing parsed): only the hand-over of what it delivered remains of `act()`.
                handOver()
                continue
            case .taken(let count):
                if count < buffer.count, !peerHungUp { readable = false }
            case .nothing:
                readable = false
                continue
            case .endOfStream:
                readable = false
            case .failed:
                readable = false
                break reading
            }
            act()
        }
        markDirty()
    }

    /// Acts on what `bytes`, just read into the loop's buffer, hold, reading them where they lie:
    /// whole messages go to the consumer from the loop's buffer, which nothing else uses until this
    /// returns (reads happen only in the loop's own turn, never from a handler).
    private func readInPlace(_ bytes: UnsafeMutableRawBufferPointer) {
        // A loop face's handler, unretained: the socket holds its box for its whole life
        // (``faceHandler``), so a handler that ends the socket does not free it while it runs.
        switch faceHandler {
        case .lendingHandler(let box): readInPlace(bytes, lending: box, handler: nil)
        case .loopHandler(let box): readInPlace(bytes, handler: box)
        case .none: readInPlace(bytes, lending: nil, handler: nil)
        }
    }

    /// ``readInPlace(_:)`` with the consumer's handler, which the socket holds. The consumer changes
    /// only from `.pending` and to `.finished`, so while it is still of the same case (a test of
    /// the case alone) the handler is its handler.
    // Never inlined into the loop handler's read: it would bring its setup along.
    @inline(never)
    private func readInPlace(_ bytes: UnsafeMutableRawBufferPointer, from start: Int = 0, lending: Unmanaged<LendingHandlerBox>?,
                             handler: Unmanaged<EventHandlerBox>?) {
        // `offset` is not captured by `hand`: a captured variable is checked for exclusive access
        // at run time (about 120 instructions per message).
        var offset = start
        /// Hands a whole message to the consumer.
        @inline(__always)
        func hand(_ kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer) {
            if let lending, case .lendingHandler = consumer {
                lending._withUnsafeGuaranteedRef { $0.call(self, kind == .text ? .text(payload) : .binary(payload)) }
            } else if let handler, case .loopHandler = consumer {
                deliver(kind, payload, to: handler)
            } else {
                perform(peek { $0.deliver(lent: kind, payload) })
            }
        }
        while true {
            // Whole messages by the short pull, everything else by the general one. A loop
            // handler's binary message is unmasked straight into the loop's reused array.
            var pulled = false
            if let handler, case .loopHandler = consumer {
                pulled = pullWholeMessage(bytes, from: &offset, for: handler)
            } else if let (kind, payload) = peek({ $0.nextMessage(readingInPlace: bytes, from: &offset) }) {
                pulled = true
                hand(kind, payload)
            }
            if !pulled {
                switch peek({ $0.nextAction(readingInPlace: bytes, from: &offset) }) {
                case .message(let kind, let payload)?: hand(kind, payload)
                case .action(let action)?:
                    perform(action)
                    continue
                case nil: return
                }
            }
            // The read's last message: the pull that would find nothing is skipped.
            if offset == bytes.count, peek({ $0.hasNothingToPull }) { return }
        }
    }

    /// ``readInPlace(_:)`` for a loop handler, which the socket holds: the messages that the short
    /// pull takes, each handed over as it comes, until the read is used up; from the first that it
    /// does not take (a fragment, a control frame, a partial frame, a queued action), the general
    /// loop, whose first step tries the short pull again and finds nothing again (rare, and no
    /// flag to pass). Apart from the general loop and `perform(_:)` (both out of line), the usual
    /// read (whole messages only) runs in a small frame: with them inlined, the setup of their
    /// paths, hoisted to the start, cost about 25 instructions per read (120 → 93 per read; the
    /// separate function alone changed nothing measurable).
    private func readInPlace(_ bytes: UnsafeMutableRawBufferPointer, handler: Unmanaged<EventHandlerBox>) {
        var offset = 0
        while case .loopHandler = consumer {
            guard pullWholeMessage(bytes, from: &offset, for: handler) else { break }
            // The read's last message: the pull that would find nothing is skipped.
            if offset == bytes.count, peek({ $0.hasNothingToPull }) { return }
        }
        readInPlace(bytes, from: offset, lending: nil, handler: handler)
    }

    /// The short pull for a loop handler: a whole message at `offset` is handed to it (a binary one
    /// unmasked straight into the loop's reused array), `false` when there is none.
    @inline(__always)
    private func pullWholeMessage(_ bytes: UnsafeMutableRawBufferPointer, from offset: inout Int,
                                  for handler: Unmanaged<EventHandlerBox>) -> Bool {
        var spare = loop.spareMessageBytes.take() ?? []
        guard let (kind, text) = peek({ $0.nextMessage(readingInPlace: bytes, from: &offset, binaryInto: &spare) }) else {
            loop.spareMessageBytes = spare
            return false
        }
        if kind == .binary {
            // Called on the property itself, not through `peek`: a closure would capture the array
            // and retain it.
            give(session.deliver(binary: consume spare), to: handler)
        } else {
            loop.spareMessageBytes = spare
            deliver(kind, text, to: handler)
        }
        return true
    }

    /// Hands a message to the loop handler, which the caller holds. A binary message comes in an
    /// array the loop reuses: once the handler returns, the array is kept for the next message,
    /// which overwrites its bytes. An array the handler kept stays the handler's: the next message's
    /// first write to the shared array copies it apart (copy-on-write), which costs that message an
    /// allocation and a copy of the kept bytes. A message allocated and freed per delivery cost about
    /// 250 instructions per echo.
    private func deliver(_ kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer,
                         to handler: Unmanaged<EventHandlerBox>) {
        give(kind == .binary
            ? peek { $0.deliver(lentBinary: payload, reusing: loop.spareMessageBytes.take() ?? []) }
            : peek { $0.deliver(lent: kind, payload) },
            to: handler)
    }

    /// Hands a delivery to the loop handler, which the caller holds; a binary message's array is
    /// then kept as it is, bytes and all, for the next message to overwrite.
    private func give(_ action: consuming SessionAction, to handler: Unmanaged<EventHandlerBox>) {
        perform(action, calling: handler)
        guard case .deliver(.message(.binary(let bytes))) = consume action,
              bytes.capacity <= EventLoop.spareMessageCapacity else { return }
        loop.spareMessageBytes = bytes
    }

    /// ``perform(_:)`` for a loop handler the caller holds: an event goes to it with no retain.
    private func perform(_ action: SessionAction, calling handler: Unmanaged<EventHandlerBox>) {
        if case .deliver(.message(let message)) = action {
            handler._withUnsafeGuaranteedRef { $0.call(self, .message(message)) }
        } else {
            perform(action)
        }
    }

    // MARK: Writing

    /// (End of the turn, or right after a read) Writes what the socket takes, then obeys the
    /// session's directive, and tells the loop what to wait for.
    ///
    /// Inlined where the loop calls it, down to the steady state's test; the rest is out of line
    /// (``flush(wroteOpen:)``). Called once per echoed message, the call cost about 15 instructions.
    @inline(__always)
    func flush() {
        isDirty = false
        if case .open = peek({ $0.stage }) {
            // The steady state (everything written, nothing published or owed, interest
            // unchanged), in one check: each step of the rest would find nothing to do.
            let round = writeOutput()
            if round.isSteady, publishedBuffered == 0, publishedWaiting == 0 {
                handOver()
                if readable { loop.readAgain(self) }
                if interest != (readable ? [] : .readable) { syncInterest() }
                scheduleTimer(round.steadyDeadline)
                return
            }
            flush(wroteOpen: true)
        } else {
            flush(wroteOpen: false)
        }
    }

    /// ``flush()`` past the steady state's test, with its write round made when the session was
    /// open (`wroteOpen`), to make otherwise.
    @inline(never)
    private func flush(wroteOpen: Bool) {
        if !wroteOpen {
            switch peek({ $0.stage }) {
            case .finished:
                // Answers queued after the end (a ping asked for on the loop) are still carried out.
                act()
                return
            case .resolving, .connecting:
                act()
                if peek({ $0.socketDirective }) == .close { closeSocket() } else { scheduleTimer() }
                return
            case .handshaking, .open:
                writeOutput()
            }
        }
        // A drain resumes waiting sends (more output) or owes the handler its event, and what it
        // queued may go out at once and be drained in turn (the waiting sends filled the buffer
        // again, a handler sent until refused): until the socket is full or nothing is left, else
        // no later turn would look again and the sends left waiting, or the drain, would stall.
        while true {
            peek { $0.outputDrained() }
            // Published before the drain is reported: a send from another thread in answer to it (a
            // queue's handler, a task) is checked against the room it announces, not the full buffer.
            publishBufferedAmount()
            act()
            guard peek({ $0.pipeline.socketOutputCount }) > 0, writable else { break }
            writeOutput()
        }
        publishBufferedAmount()
        switch peek({ $0.socketDirective }) {
        case .open, .drain:
            break
        case .shutDownWrite:
            socket?.shutdown(SocketConstants.shutdownWrite)
            peek { $0.didShutDownWrite() }
        case .close:
            closeSocket()
            return
        }
        // A change of phase (closed: now reading to the end) may want input the socket has.
        if readable, peek({ $0.wantsInput }) { loop.readAgain(self) }
        publishStateIfChanged()
        syncInterest()
        scheduleTimer()
    }

    /// Writes the session's output while the socket takes it, in gathered sends (the connection's
    /// frames, and prepared messages kept apart in place): a burst goes out in a few calls. Returns
    /// whether the session is steady after it, and if so its next deadline.
    @discardableResult
    private func writeOutput() -> SocketSession.WriteRound {
        guard let socket = unretainedSocket else {
            return SocketSession.WriteRound(isFull: false, isSteady: false, deadline: nil)
        }
        let round = socket._withUnsafeGuaranteedRef { socket in
            session.writeOutput(to: socket, at: loop.now, socketIsWritable: writable)
        }
        if round.isFull { writable = false }
        return round
    }

    /// Publishes the buffered amount for other threads, when it changed.
    private func publishBufferedAmount() {
        let amount = peek { $0.bufferedAmount }
        if amount != publishedBuffered {
            publishedBuffered = amount
            cwebsocket_atomic_store_long(publishedBufferedAmount, amount)
        }
        let waiting = peek { $0.hasPendingSends ? $0.waitingBytes : 0 }
        if waiting != publishedWaiting {
            publishedWaiting = waiting
            shared.withLock { $0.waitingBytes = waiting }
        }
    }

    /// Publishes the connection's state for other threads, when it changed.
    private func publishStateIfChanged() {
        guard peek({ $0.takeStateChange() }) else { return }
        let state = peek { $0.pipeline.connection.state }
        guard state != publishedState else { return }
        publishedState = state
        shared.withLock { $0.state = state }
    }

    /// Tells the readiness backend what the socket waits for: to read while it wants input and knows
    /// of none, to write while output waits and the socket took no more.
    func syncInterest() {
        guard let socket else { return }
        var wanted: Interest = []
        if peek({ $0.stage }) == .connecting {
            wanted = .writable
        } else {
            if !readable, peek({ $0.wantsInput }) { wanted.insert(.readable) }
            if !writable, peek({ $0.pipeline.socketOutputCount }) > 0 { wanted.insert(.writable) }
        }
        guard wanted != interest else { return }
        interest = wanted
        loop.readiness.update(socket.descriptor, interest: wanted)
    }

    // MARK: Time

    /// Makes sure the loop wakes by the socket's earliest deadline.
    func scheduleTimer() {
        scheduleTimer(peek { $0.nextDeadline })
    }

    /// ``scheduleTimer()`` with the session's ``WebSocketTransport/SocketSession/nextDeadline``,
    /// just read.
    @inline(__always)
    private func scheduleTimer(_ sessionDeadline: Connection.Instant?) {
        var deadline = sessionDeadline
        if let due = deadline, due <= loop.now { deadline = reportTimeNow(due) }
        if let receive = receiveDeadline?.at, deadline.map({ receive < $0 }) ?? true { deadline = receive }
        guard let deadline else { return }
        if let scheduled = scheduledDeadline, scheduled <= deadline { return }
        scheduledDeadline = deadline
        loop.schedule(self, at: deadline)
    }

    /// (A deadline already come) The connection armed a timer since the time was last reported (a
    /// Close read or sent, the sending side shut down), and such a timer counts from the next report;
    /// or a timer is due. Either way a wake-up in the next turn would only report the time: it is
    /// reported now, as that wake-up would (``timerFired()``), without the loop's timer push and pop,
    /// the pass through `timerFired` and the flush after it (a server's connection that opens and
    /// closes spent about 460 instructions fewer, callgrind). What the report did beyond starting
    /// timers (an event, output, a change of directive, as when a timer ran out) gets the flush it
    /// needs. Returns the deadline to wake by; one still come (a zero timeout) wakes the loop in the
    /// next turn, as before.
    private func reportTimeNow(_ due: Connection.Instant) -> Connection.Instant? {
        switch peek({ $0.stage }) {
        case .handshaking, .open: break
        case .resolving, .connecting, .finished: return due
        }
        let output = peek { $0.bufferedAmount }
        let directive = peek { $0.socketDirective }
        peek { $0.timerFired(at: loop.now) }
        let acted = act()
        if acted || peek({ $0.bufferedAmount }) != output || peek({ $0.socketDirective }) != directive { markDirty() }
        let deadline = peek { $0.nextDeadline }
        if let deadline, deadline <= loop.now { return due }
        return deadline
    }

    /// A deadline of the loop's timers for this socket came (it may have moved since).
    func timerFired() {
        guard !peek({ $0.isFinished }) else { return }
        scheduledDeadline = nil
        if let (at, wait) = receiveDeadline, at <= loop.now, case .batches(let batches) = consumer {
            receiveDeadline = nil
            batches.end(wait, with: .timedOut)
        }
        peek { $0.timerFired(at: loop.now) }
        act()
        markDirty()
    }

    // MARK: The end

    /// Closes the descriptor and ends the session: the last event, the waiters, the server's count.
    /// A client whose handshake was redirected starts over with the next hop instead.
    func closeSocket() {
        // Watched no more from here; closed once no other thread can ask the kernel about it, which
        // the ending's publication below says under the same lock (one acquisition, not two).
        let closing = detachDescriptor()
        let wasOpen = peek { $0.handshake != nil }
        switch peek({ $0.finish() }) {
        case .redirected:
            close(closing)
            startResolving()
        case .ended(let ending):
            let state = peek { $0.pipeline.connection.state }
            publishedState = state
            let traffic = Traffic(bytesReceived: peek { $0.bytesReceived }, bytesSent: peek { $0.bytesSent },
                                  duration: startedAt.map { loop.now.sinceOrigin - $0.sinceOrigin })
            let observers = shared.withLock { shared in
                // No other thread asks the kernel about this descriptor number once it is closed.
                shared.connected = nil
                shared.traffic = traffic
                shared.ending = ending
                // Read from the session here, straight into its place: a local, then its capture,
                // copied the optional error twice through its value witnesses.
                shared.transportFailure = peek { $0.pipeline.failure }
                shared.state = state
                // Ended, it is in no topic, and a subscription is refused (`subscribe` checks the ending).
                shared.topics.removeAll()
                defer { shared.endObservers = [] }
                return shared.endObservers
            }
            closing?.close()
            leaveTopicTable()
            // Sends other threads queued are dropped now; their pings are answered.
            sendOutboxFirst()
            publishBufferedAmount()
            act()
            if case .batches(let batches) = consumer { batches.finish(ending.messagesError) }
            consumer = .finished
            server?.ended(wasOpen: wasOpen, cleanly: ending.closedCleanly)
            for observer in observers { observer(ending) }
        }
    }

    /// (On the loop) Closes the socket now, whatever it was doing (a drain's deadline passed): the
    /// connection ends as lost (1006).
    func abortNow() {
        guard !peek({ $0.isFinished }) else { return }
        closeSocket()
    }

    /// Stops watching and closes the current descriptor, if any.
    func dropDescriptor() {
        close(detachDescriptor())
    }

    /// Stops watching the current descriptor, if any, and hands it over, still open: the caller
    /// closes it (``close(_:)``, or with the ending's publication).
    private func detachDescriptor() -> Socket? {
        guard let socket else { return nil }
        loop.unregister(self, descriptor: socket.descriptor)
        self.socket = nil
        readable = false
        writable = false
        peerHungUp = false
        interest = []
        scheduledDeadline = nil
        return socket
    }

    /// Closes a detached descriptor, once no other thread can ask the kernel about it.
    private func close(_ socket: Socket?) {
        guard let socket else { return }
        // No other thread asks the kernel about this descriptor number once it is closed.
        shared.withLock { $0.connected = nil }
        socket.close()
    }
}
