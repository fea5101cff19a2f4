#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

// Theory of operation
//
// A `ConnectionDriver` moves bytes and time between one socket and one `Connection`; it makes no
// protocol decision. Three locks, always taken in this order, share the work between threads:
//
// 1. `reader` is the read role, held for a whole `receive`, handshake or close: one thread at a time
//    reads the socket, feeds the connection, pulls its events and runs its timers (`pump`). It owns
//    the read buffer.
// 2. `writer` is the write role: whoever holds it takes the connection's pending output and writes
//    all of it (`flush`), so that frames queued by several threads reach the wire in queue order.
// 3. `shared` guards the `Connection` itself and what is known about the transport. It is held only
//    for non-blocking work, never across a system call that waits.
//
// The descriptor is closed only by a thread holding both roles (`closeTransport`), and every other
// use of it happens under one of them, so no thread can use a descriptor number after it was closed
// and reused. A thread that changes what the reader waits for (a new deadline, a close to carry out)
// wakes it through `wake`, a self-pipe polled with the socket.
//
// Transport failures (a reset, a write that times out) are not thrown at the reader: they are
// recorded, the connection is aborted (`Connection.abort()`), and they surface as `.closed` with 1006
// and `failure: .aborted`; `transportFailure` keeps the cause.

/// Runs one `Connection` over one socket, for ``BlockingWebSocket`` and the server's handshake.
final class ConnectionDriver: Sendable {
    let socket: Socket
    let options: SocketOptions
    let wake: WakeSignal
    /// The read role and its buffer.
    let reader: Locked<[UInt8]>
    /// The write role, and whether the write side of the socket is shut down (nothing more may be
    /// written once our FIN is out).
    let writer = Locked(WriteSide())

    struct WriteSide: Sendable {
        var isShutDown = false
    }
    let shared: Locked<Shared>

    struct Shared: Sendable {
        var connection: Connection
        /// The status of the `.closed` event, once pulled.
        var closeStatus: CloseStatus? = nil
        /// The first transport failure; it ended the connection.
        var transportFailure: BlockingWebSocketError? = nil
        /// The descriptor is closed (or being closed).
        var isTransportClosed = false
    }

    var system: SystemCalls { socket.system }

    init(socket: Socket, connection: Connection, options: SocketOptions) throws(Errno) {
        self.socket = socket
        self.options = options
        wake = try WakeSignal(system: socket.system)
        reader = Locked([UInt8](repeating: 0, count: max(512, options.readBufferSize)))
        var connection = connection
        // Timers count from here (RFC 6455 §4.1 handshake timeout included).
        connection.advanceTime(to: socket.system.monotonicNow())
        shared = Locked(Shared(connection: connection))
    }

    // MARK: Calls from any thread

    /// Applies a call to the connection (a send, a close, a handshake decision), then wakes the
    /// reader if its deadline changed. Throws the transport failure, if the transport has failed,
    /// unless `evenAfterFailure`, and the connection's refusal as ``BlockingWebSocketError/connection(_:)``.
    func perform<Result>(evenAfterFailure: Bool = false,
                         _ body: (inout Connection) throws(ConnectionError) -> Result) throws(BlockingWebSocketError) -> Result {
        let outcome = shared.withLock { state -> Swift.Result<(Result, Bool), BlockingWebSocketError> in
            if !evenAfterFailure, let failure = state.transportFailure { return .failure(failure) }
            let deadline = state.connection.nextDeadline
            let closesTransport = state.connection.shouldCloseTransport
            do throws(ConnectionError) {
                let value = try body(&state.connection)
                let changed = state.connection.nextDeadline != deadline
                    || state.connection.shouldCloseTransport != closesTransport
                return .success((value, changed))
            } catch {
                return .failure(.connection(error))
            }
        }
        let (value, changed) = try outcome.get()
        if changed { wake.signal() }
        return value
    }

    /// Writes all pending output (write role). A failure is recorded, ends the connection, and is
    /// thrown.
    func flush() throws(BlockingWebSocketError) {
        try writer.withLock { (writeSide) throws(BlockingWebSocketError) in
            while true {
                let next = shared.withLock { state -> Swift.Result<[UInt8], BlockingWebSocketError> in
                    let failure = state.transportFailure ?? (writeSide.isShutDown ? .transport(.brokenPipe) : nil)
                    if let failure {
                        return state.connection.pendingOutputCount > 0 ? .failure(failure) : .success([])
                    }
                    return .success(state.connection.takeOutput())
                }
                let bytes = try next.get()
                if bytes.isEmpty { return }
                let outcome: Socket.WriteOutcome
                do throws(Errno) {
                    outcome = try bytes.withUnsafeBytes { raw in
                        Swift.Result { () throws(Errno) in try socket.write(raw, idleTimeout: options.writeTimeout) }
                    }.get()
                } catch {
                    fail(.transport(error))
                    throw .transport(error)
                }
                if case .timedOut = outcome {
                    fail(.timedOut(.write))
                    throw .timedOut(.write)
                }
            }
        }
    }

    /// Records a transport failure and aborts the connection (it reports 1006 with
    /// ``CloseStatus/Failure/aborted``); pending output is dropped, the socket is shut down and the
    /// reader woken. Call with the read or the write role held (the socket is used).
    func fail(_ failure: BlockingWebSocketError) {
        shared.withLock { state in
            if state.transportFailure == nil { state.transportFailure = failure }
            state.connection.abort()
            _ = state.connection.takeOutput()
        }
        socket.shutdown(SocketConstants.shutdownBoth)
        wake.signal()
    }

    // MARK: The read role

    /// What ``pump(_:until:)`` stopped for.
    enum PumpOutcome {
        /// The connection produced an event.
        case event(Event)
        /// The transport is closed: nothing more will happen.
        case transportClosed
        /// `limit` passed first.
        case limitReached
    }

    /// Runs the connection until it produces an event, the transport is closed, or `limit` passes:
    /// pulls events, writes automatic replies, closes the transport when the connection says so,
    /// and otherwise waits (poll) for bytes, a wake-up, or the connection's next deadline, whichever
    /// comes first. Call with the read role held; `buffer` is its buffer.
    func pump(_ buffer: inout [UInt8], until limit: Instant?) -> PumpOutcome {
        while true {
            let (event, closesTransport, isClosed, deadline) = shared.withLock { state in
                let event = state.connection.nextEvent()
                if case .closed(let status)? = event { state.closeStatus = status }
                return (event, state.connection.shouldCloseTransport, state.isTransportClosed,
                        state.connection.nextDeadline)
            }
            // Replies queued while pulling (pongs, the Close reply, an HTTP error). A failure is
            // recorded by flush and reaches the connection as the end of the stream.
            try? flush()
            if let event { return .event(event) }
            if isClosed { return .transportClosed }
            if closesTransport {
                closeTransport(&buffer)
                return .transportClosed
            }
            let now = system.monotonicNow()
            if let limit, now >= limit { return .limitReached }
            waitForInput(&buffer, until: [deadline, limit].compactMap { $0 }.min())
            let later = system.monotonicNow()
            shared.withLock { $0.connection.advanceTime(to: later) }
        }
    }

    /// Waits for bytes or a wake-up until `deadline`, and feeds what one read gives to the connection.
    private func waitForInput(_ buffer: inout [UInt8], until deadline: Instant?) {
        var fds = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
        do throws(Errno) {
            guard try Poller.poll(&fds, deadline: deadline, system: system) > 0 else { return }
            if fds[1].revents != 0 { wake.drain() }
            guard fds[0].revents != 0 else { return }
            let outcome = try buffer.withUnsafeMutableBytes { raw in
                Swift.Result { () throws(Errno) in try socket.read(into: raw) }
            }.get()
            switch outcome {
            case .bytes(let count):
                buffer.withUnsafeBytes { raw in
                    shared.withLock { $0.connection.receive(UnsafeRawBufferPointer(rebasing: raw[..<count])) }
                }
            case .endOfStream: shared.withLock { $0.connection.receiveEOF() }
            case .nothing: break
            }
        } catch {
            fail(.transport(error))
        }
    }

    /// Closes the transport, once: a half-close (our FIN follows everything written), then reads and
    /// discards until the peer closes too or ``SocketOptions/lingerTimeout`` passes, then `close`.
    /// Call with the read role held.
    func closeTransport(_ buffer: inout [UInt8]) {
        let wasClosed = shared.withLock { state in
            defer { state.isTransportClosed = true }
            return state.isTransportClosed
        }
        guard !wasClosed else { return }
        writer.withLock { writeSide in
            socket.shutdown(SocketConstants.shutdownWrite)
            writeSide.isShutDown = true
        }
        let deadline = system.monotonicNow() + options.lingerTimeout
        draining: while true {
            let outcome = try? buffer.withUnsafeMutableBytes { raw in
                Swift.Result { () throws(Errno) in try socket.read(into: raw, deadline: deadline) }
            }.get()
            switch outcome {
            case .bytes?: continue
            case .endOfStream?, .nothing?, nil: break draining
            }
        }
        writer.withLock { writeSide in
            writeSide.isShutDown = true
            socket.close()
        }
        shared.broadcast()
    }

    // MARK: State

    /// The connection's state.
    var state: State { shared.withLock { $0.connection.state } }

    /// How the connection ended, once its `.closed` event has been pulled.
    var closeStatus: CloseStatus? { shared.withLock { $0.closeStatus } }

    /// The transport failure that ended the connection, if one did.
    var transportFailure: BlockingWebSocketError? { shared.withLock { $0.transportFailure } }
}
