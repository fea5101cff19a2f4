// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

// Theory of operation
//
// A `ConnectionDriver` moves bytes and time between one blocking socket and one `SocketSession`
// (the `Connection`, the transport layers under it, and what the adapters decide about the socket);
// it makes no protocol or transport decision: what to deliver, what to write, when to half-close,
// drain and close is the session's. Three locks, always taken in this order, share the work
// between threads:
//
// 1. `reader` is the read role, held for a whole `receive`, handshake or close: one thread at a time
//    reads the socket, feeds the session, pulls its actions and runs its timers (`pump`). It owns
//    the read buffer (`ReadState`).
// 2. `writer` is the write role: whoever holds it takes the session's output for the socket and
//    writes all of it (`flush`), so that frames queued by several threads reach the wire in queue
//    order.
// 3. `shared` guards the session itself and what is known about the socket. It is held only for
//    non-blocking work, never across a system call that waits. Waiters (an awaited ping) wait on
//    its condition; the reader broadcasts it when it has resumed any.
//
// The descriptor is closed only by a thread holding both roles (`closeSocket`), and every other use of
// it happens under one of them, so no thread can use a descriptor number after it was closed and
// reused. A thread that changes what the reader waits for (a new deadline, a close to carry out) wakes
// it through `wake`, a self-pipe polled with the socket.
//
// Transport failures (a reset, a write that times out) are not thrown at the reader: they go to the
// session, which aborts the connection, so that they surface as `.closed` with 1006 and
// `failure: .aborted`; the pipeline's `failure` keeps the cause.

/// Runs one connection over one blocking socket, for ``BlockingWebSocket`` and the server's handshake.
final class ConnectionDriver: Sendable {
    let socket: Socket
    let options: TransportOptions
    let wake: WakeSignal
    /// The read role and its buffer.
    let reader: Locked<ReadState>
    /// The write role; its value counts the write rounds. (Not `Locked<Void>`: ThreadSanitizer took
    /// the empty value's access, at the address of the lock's own pointer, for a race with reading
    /// that pointer to lock.)
    let writer = Locked(0)
    let shared: Locked<Shared>

    /// What the read role owns: the buffer reads go into, and whether to read before waiting.
    struct ReadState: Sendable {
        var buffer: [UInt8]
        /// The last read filled the buffer, so more input has probably arrived already: the next
        /// read is tried before any wait. After a read that did not fill it (the socket had nothing
        /// more at that moment), or nothing read yet, the next wait polls first: a read then would
        /// most likely find nothing (`EAGAIN`) and cost a system call for it, as it would every time
        /// a request has just been sent and its answer is awaited.
        var readsFirst = false
        /// The socket and the wake-up pipe, kept so that a wait allocates nothing.
        var pollSet: [pollfd] = []
        /// Messages read while a thread waited for a pong, for the next receive.
        var kept: [WebSocketMessage] = []
    }

    struct Shared: Sendable {
        var session: SocketSession
        /// The descriptor is closed.
        var isSocketClosed = false
    }

    var system: SystemCalls { socket.system }

    init(socket: Socket, session: SocketSession, options: TransportOptions) throws(Errno) {
        self.socket = socket
        self.options = options
        wake = try WakeSignal(system: socket.system)
        reader = Locked(ReadState(buffer: [UInt8](repeating: 0, count: options.effectiveReadBufferSize)))
        var session = session
        // Timers count from here (RFC 6455 §4.1 handshake timeout included).
        session.advanceTime(to: socket.system.monotonicNow())
        session.pipeline.update()
        shared = Locked(Shared(session: session))
    }

    // MARK: Calls from any thread

    /// Applies a call to the session (a send, a close, a handshake decision), then wakes the reader
    /// if what it waits for changed.
    func perform<Result>(_ body: (inout SocketSession) throws(WebSocketError) -> Result) throws(WebSocketError) -> Result {
        let outcome = shared.withLock { state -> Swift.Result<(Result, Bool), WebSocketError> in
            let deadline = state.session.nextDeadline
            let directive = state.session.pipeline.connection.transportDirective
            state.session.advanceTime(to: system.monotonicNow())
            do throws(WebSocketError) {
                let value = try body(&state.session)
                // Timers the call armed (the close timer) wait for the next report: they start now.
                state.session.advanceTime(to: system.monotonicNow())
                state.session.pipeline.update()
                let changed = state.session.nextDeadline != deadline
                    || state.session.pipeline.connection.transportDirective != directive
                return .success((value, changed))
            } catch {
                return .failure(error)
            }
        }
        let (value, changed) = try outcome.get()
        if changed { wake.signal() }
        return value
    }

    /// Writes all pending output for the socket (write role), waiting for room at most
    /// ``TransportOptions/writeTimeout`` at a time. A failure goes to the session, which ends the
    /// connection, and is thrown.
    func flush() throws(WebSocketError) {
        try writer.withLock { (rounds: inout Int) throws(WebSocketError) in
            rounds &+= 1
            while true {
                let next = shared.withLock { state -> Swift.Result<[UInt8], WebSocketError> in
                    state.session.pipeline.update()
                    // Nothing is written after our FIN, nor to a closed descriptor (its number may
                    // have been reused); the connection queues nothing then, this only makes sure.
                    if state.session.pipeline.isWriteShutDown || state.isSocketClosed {
                        return state.session.pipeline.socketOutputCount > 0 ? .failure(.transport(.brokenPipe)) : .success([])
                    }
                    return .success(state.session.pipeline.takeSocketOutput())
                }
                let bytes = try next.get()
                if bytes.isEmpty { return }
                let outcome: Socket.WriteOutcome
                do throws(Errno) {
                    outcome = try bytes.withUnsafeBytes { raw in
                        Swift.Result { () throws(Errno) in try socket.write(raw, idleTimeout: options.writeTimeout) }
                    }.get()
                } catch {
                    fail { $0.writeFailed(error) }
                    throw .transport(error)
                }
                if case .timedOut = outcome {
                    fail { $0.pipeline.fail(.timedOut(.write)) }
                    throw .timedOut(.write)
                }
            }
        }
    }

    /// Hands a transport failure to the session (the connection is aborted: 1006 with
    /// ``Connection/CloseStatus/Failure/aborted``), shuts the socket down and wakes the reader. Call with
    /// the read or the write role held (the socket is used).
    private func fail(_ record: (inout SocketSession) -> Void) {
        shared.withLock { record(&$0.session) }
        socket.shutdown(SocketConstants.shutdownBoth)
        wake.signal()
    }

    // MARK: The read role

    /// What ``pump(_:until:)`` stopped for.
    enum PumpOutcome {
        /// A message (or a control frame, when asked for) arrived.
        case message(WebSocketMessage)
        /// The opening handshake succeeded.
        case opened(Connection.HandshakeResult)
        /// (Server) A valid opening handshake request awaits the decision: answer it with
        /// ``perform(_:)`` and ``SocketSession/respond(to:)``.
        case decide(Connection.HandshakeRequest)
        /// Waiters were resumed (an awaited ping's outcome): a caller waiting for one checks again.
        case resumed
        /// The socket is closed: nothing more will happen.
        case socketClosed
        /// `limit` passed first.
        case limitReached
    }

    /// Runs the session until it has something for the caller, the socket is closed, or `limit`
    /// passes: pulls actions, writes automatic replies, obeys the session's directive (half-close,
    /// drain, close), and otherwise reads; only when nothing has arrived does it wait (poll) for
    /// bytes, a wake-up, or the next deadline, whichever comes first. `limit` and the timers'
    /// deadlines are checked after every read as after every wait, so input that never stops coming
    /// cannot hold `receive` past its timeout. Call with the read role held; `reader` is its state.
    func pump(_ reader: inout ReadState, until limit: Connection.Instant?) -> PumpOutcome {
        while true {
            var resumptions: [Resumption] = []
            let (outcome, closing) = shared.withLock { state in
                var outcome: PumpOutcome? = nil
                while outcome == nil, let action = state.session.nextAction() {
                    switch action {
                    case .deliver(.message(let message)): outcome = .message(message)
                    case .deliver(.open(let result)): outcome = .opened(result)
                    case .deliver: break
                    case .decide(let request): outcome = .decide(request)
                    case .resume(let resumption): resumptions.append(resumption)
                    }
                }
                return (outcome, state.isSocketClosed || state.session.socketDirective == .close)
            }
            let resumed = !resumptions.isEmpty
            if resumed {
                for resumption in resumptions { resumption.run() }
                shared.broadcast()
            }
            // Replies queued while pulling (pongs, the Close reply, an HTTP error), before the
            // directive is read again: a half-close waits for them to be written. Not when the
            // socket is to close now: then it takes what it can without waiting. A failure goes to
            // the session and comes back as the connection's end.
            if !closing { try? flush() }
            if let outcome { return outcome }
            if resumed { return .resumed }
            let (directive, isClosed, deadline) = shared.withLock { state in
                (state.session.socketDirective, state.isSocketClosed, state.session.nextDeadline)
            }
            if isClosed { return .socketClosed }
            switch directive {
            case .open, .drain:
                break
            case .shutDownWrite:
                writer.withLock { _ in
                    socket.shutdown(SocketConstants.shutdownWrite)
                    shared.withLock { $0.session.didShutDownWrite() }
                }
                continue
            case .close:
                closeSocket()
                continue
            }
            let now = system.monotonicNow()
            if let limit, now >= limit { return .limitReached }
            readOrWait(&reader, until: earliest(deadline, limit))
            let later = system.monotonicNow()
            shared.withLock { $0.session.timerFired(at: later) }
        }
    }

    /// The earlier of two optional deadlines, without building an array on every turn of the pump.
    private func earliest(_ a: Connection.Instant?, _ b: Connection.Instant?) -> Connection.Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// Feeds the session what one read gives. When the last read filled the buffer
    /// (``ReadState/readsFirst``), it reads first and waits only if the socket turns out to have
    /// nothing (`EAGAIN`): input that has already arrived (a burst of frames, a message larger than
    /// the buffer) then costs one system call per read, not two. Otherwise it waits first, in `poll`,
    /// for bytes or a wake-up until `deadline`, then reads.
    ///
    /// A wake-up that comes while bytes keep arriving stays in the self-pipe until the next poll;
    /// `pump` looks at the session again after every read anyway, so nothing it signals is missed.
    private func readOrWait(_ reader: inout ReadState, until deadline: Connection.Instant?) {
        do throws(Errno) {
            if reader.readsFirst, try readOnce(&reader) { return }
            if reader.pollSet.isEmpty {
                reader.pollSet = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                                  pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            } else {
                reader.pollSet[0].revents = 0
                reader.pollSet[1].revents = 0
            }
            guard try Poller.poll(&reader.pollSet, deadline: deadline, system: system) > 0 else { return }
            if reader.pollSet[1].revents != 0 { wake.drain() }
            guard reader.pollSet[0].revents != 0 else { return }
            _ = try readOnce(&reader)
        } catch {
            fail { $0.readFailed(error) }
        }
    }

    /// One read without waiting: bytes or the end of the stream go to the session, and
    /// ``ReadState/readsFirst`` records whether the buffer was filled. Returns `false` when there was
    /// nothing to read (`EAGAIN`).
    private func readOnce(_ reader: inout ReadState) throws(Errno) -> Bool {
        let outcome = try reader.buffer.withUnsafeMutableBytes { raw in
            Swift.Result { () throws(Errno) in try socket.read(into: raw) }
        }.get()
        switch outcome {
        case .bytes(let count):
            reader.readsFirst = count == reader.buffer.count
            reader.buffer.withUnsafeBytes { raw in
                shared.withLock { $0.session.received(UnsafeRawBufferPointer(rebasing: raw[..<count])) }
            }
            return true
        case .endOfStream:
            // Every later read returns the end at once, as would a poll.
            reader.readsFirst = true
            shared.withLock { $0.session.receivedEndOfStream() }
            return true
        case .nothing:
            reader.readsFirst = false
            return false
        }
    }

    /// Closes the socket, once, after writing what it takes without waiting (a Close reply to a peer
    /// that shut down only its sending side), and ends the session: its last actions (the
    /// resumptions of waiters) come from the next pump. Call with the read role held.
    func closeSocket() {
        writer.withLock { _ in
            let bytes = shared.withLock { state -> [UInt8] in
                guard !state.isSocketClosed, !state.session.pipeline.isWriteShutDown else { return [] }
                state.session.pipeline.update()
                return state.session.pipeline.takeSocketOutput()
            }
            if !bytes.isEmpty { _ = bytes.withUnsafeBytes { try? socket.writeSome($0) } }
            socket.close()
            shared.withLock { state in
                state.isSocketClosed = true
                _ = state.session.finish()
            }
        }
        shared.broadcast()
    }

    // MARK: State

    /// The connection's state.
    var state: Connection.State { shared.withLock { $0.session.pipeline.connection.state } }

    /// How the connection ended, once the socket is closed.
    var ending: Ending? { shared.withLock { $0.session.ending } }

    /// The transport failure that ended the connection, if one did.
    var transportFailure: WebSocketError? { shared.withLock { $0.session.pipeline.failure } }
}
