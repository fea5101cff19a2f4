#if os(Linux)
import Glibc
import CWebSocketSystem
import WebSocketTransport

// Theory of operation
//
// An `EventLoop` is one thread that owns a set of sockets outright: it waits in `epoll_wait`, reads
// and writes them, runs their `ConnectionPipeline`s and calls their handlers, with no lock and no
// hop between threads on the way. The process has one loop per CPU it may run on (`shared`); every
// server spreads its connections over them (one `SO_REUSEPORT` listener per loop), and a connection
// stays on the loop that accepted it for its whole life.
//
// One turn of the loop:
//
// 1. Wait for readiness (no longer than the earliest timer; not at all when work is left over).
// 2. For each event: a listener accepts; a connection reads until `EAGAIN` (or a short read, which
//    means the same for a stream socket), feeds the pipeline, and delivers what it parsed; the
//    tasks the delivery resumed run; then the connection writes its answers (handlers' and tasks'
//    sends), in one `send`, before the next connection is read.
// 3. Work from elsewhere: closures queued by other threads (``execute(_:)``) and Swift tasks whose
//    executor this loop is (``TaskExecutor``), in the order they came. A task that waits for
//    messages is resumed once per batch, here, and its sends go straight into its pipeline.
// 4. Due timers: the connections' deadlines (handshake, close, keepalive, linger, stalled writes).
// 5. Every connection still dirty (sends from other threads, timers) writes everything it has, in
//    as few `send` calls as the kernel allows (queued frames lie contiguous in the connection's
//    output buffer), and obeys its pipeline's socket directive.
//
// Registrations are edge-triggered and made once per socket: the loop never calls `epoll_ctl` to
// change interest. Each connection remembers whether its socket is still readable or writable.
// An event carries a token (slot and generation, never a pointer): an event for a connection that
// has gone finds a newer generation in its slot and is dropped.

/// One thread running sockets: see the theory of operation above.
///
/// `@unchecked Sendable`: everything but `remote`, `threadID` and the constants is touched only on
/// the loop's own thread; other threads reach the loop only through ``execute(_:)`` and
/// ``enqueue(_:)``, which go through `remote` under its lock.
final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// The loops of the process, one per CPU it may run on, started on first use, or why they could
    /// not be (no descriptor or thread left).
    static let shared: Result<[EventLoop], Errno> = {
        var loops: [EventLoop] = []
        for index in 0..<defaultCount {
            do throws(Errno) {
                loops.append(try EventLoop(index: index))
            } catch {
                return loops.isEmpty ? .failure(error) : .success(loops)
            }
        }
        return .success(loops)
    }()

    /// The CPUs the process may run on (its affinity mask), at least 1 and at most 64.
    static var defaultCount: Int {
        min(64, max(1, Int(cwebsocket_available_cpus())))
    }

    /// Special tokens: the wake descriptor, and listeners counting down from below it.
    enum Token {
        static let wake = UInt64.max
        static func listener(_ index: Int) -> UInt64 { UInt64.max - 1 - UInt64(index) }
        /// Connection tokens are below this (31-bit generations, 32-bit slots).
        static let firstSpecial = UInt64(1) << 63
    }

    /// Work from other threads, in the order it came.
    enum Work {
        case job(UnownedJob)
        case command(@Sendable () -> Void)
    }

    private struct Remote {
        var work: [Work] = []
        /// Whether the wake descriptor has been signalled since the loop last took the work.
        var signalled = false
    }

    let index: Int
    private let epoll: Epoll
    private let wake: WakeFD
    private let remote = Locked(Remote())
    private nonisolated(unsafe) var threadID = pthread_t()
    let system: SystemCalls

    // The loop's own state, on its thread only. What is touched per message is
    // `@exclusivity(unchecked)`, for the reason and under the rule given at `EventLoopWebSocket`.
    /// Connections by slot, with each slot's generation.
    @exclusivity(unchecked) private var sockets: [EventLoopWebSocket?] = []
    @exclusivity(unchecked) private var generations: [UInt32] = []
    private var freeSlots: [Int] = []
    /// Each server's live connections on this loop (a server's broadcast and stop walk only its
    /// own), unordered; each socket knows its index (`EventLoopWebSocket.indexInServer`).
    private var byServer: [(server: ServerCore, sockets: [EventLoopWebSocket])] = []
    /// Live connections, and the most since the heap was last trimmed.
    private var liveCount = 0
    private var peakSinceTrim = 0
    private var listeners: [Listener?] = []
    @exclusivity(unchecked) private var local: [Work] = []
    @exclusivity(unchecked) private var dirty: [EventLoopWebSocket] = []
    @exclusivity(unchecked) private var again: [EventLoopWebSocket] = []
    @exclusivity(unchecked) private var timers = DeadlineHeap()
    /// The one read buffer of every connection of the loop: a connection keeps only what it has not
    /// parsed yet, in its own (small) input buffer.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The time of this turn, read once after waking.
    @exclusivity(unchecked) private(set) var now: Connection.Instant

    static let readBufferSize = 64 << 10

    private init(index: Int, system: SystemCalls = .live) throws(Errno) {
        self.index = index
        self.system = system
        epoll = try Epoll()
        wake = try WakeFD()
        try epoll.add(wake.descriptor, interest: .wake, token: Token.wake)
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        now = system.monotonicNow()
        let started = Locked(false)
        try spawnDetachedThread { [self] in
            threadID = pthread_self()
            started.withLock { $0 = true }
            started.broadcast()
            run()
        }
        _ = started.wait(until: { $0 }, deadline: nil, now: system.monotonicNow)
    }

    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { pthread_equal(pthread_self(), threadID) != 0 }

    // MARK: Work from anywhere

    /// Runs `command` on the loop: soon, in this turn, when called on the loop; otherwise after the
    /// loop wakes. Commands and tasks run in the order they were queued.
    func execute(_ command: @escaping @Sendable () -> Void) {
        submit(.command(command))
    }

    /// `TaskExecutor`: a task that prefers this loop runs its jobs here.
    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    private func submit(_ work: Work) {
        if inLoop {
            local.append(work)
            return
        }
        let mustSignal = remote.withLock { remote in
            remote.work.append(work)
            defer { remote.signalled = true }
            return !remote.signalled
        }
        if mustSignal { wake.signal() }
    }

    // MARK: Connections

    /// Makes `socket` the loop's, watching its descriptor.
    func register(_ socket: EventLoopWebSocket, descriptor: Int32) throws(Errno) {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = sockets.count
            sockets.append(nil)
            generations.append(0)
        }
        let token = UInt64(generations[slot]) << 32 | UInt64(slot)
        do throws(Errno) {
            try epoll.add(descriptor, interest: .connection, token: token)
        } catch {
            freeSlots.append(slot)
            throw error
        }
        sockets[slot] = socket
        socket.token = token
        let group = byServer.firstIndex { $0.server === socket.server } ?? {
            byServer.append((socket.server, []))
            return byServer.count - 1
        }()
        socket.indexInServer = byServer[group].sockets.count
        byServer[group].sockets.append(socket)
        liveCount += 1
        peakSinceTrim = max(peakSinceTrim, liveCount)
    }

    /// Forgets `socket`: call before closing its descriptor.
    func unregister(_ socket: EventLoopWebSocket, descriptor: Int32) {
        let slot = Int(socket.token & 0xffff_ffff)
        guard slot < sockets.count, sockets[slot] === socket else { return }
        epoll.remove(descriptor)
        sockets[slot] = nil
        if let group = byServer.firstIndex(where: { $0.server === socket.server }) {
            // Swap-remove: the last socket takes the leaving one's place.
            let index = socket.indexInServer
            let last = byServer[group].sockets.removeLast()
            if last !== socket {
                byServer[group].sockets[index] = last
                last.indexInServer = index
            }
            if byServer[group].sockets.isEmpty { byServer.remove(at: group) }
        }
        generations[slot] = (generations[slot] &+ 1) & 0x7fff_ffff
        freeSlots.append(slot)
        liveCount -= 1
        trimIfMostlyFreed()
    }

    /// Gives freed memory back to the system once the loop has lost most of its connections: glibc
    /// keeps what `free` returns in its arenas, so a server that held 10,000 connections would
    /// otherwise keep their memory for good. Rare (at most once per halving), and cheap next to the
    /// closes that led to it.
    private func trimIfMostlyFreed() {
        guard peakSinceTrim >= 256 ? liveCount <= peakSinceTrim / 2 : (liveCount == 0 && peakSinceTrim > 0) else { return }
        peakSinceTrim = liveCount
        _ = malloc_trim(0)
    }

    /// The live connection with `token`, if any.
    private func socket(for token: UInt64) -> EventLoopWebSocket? {
        let slot = Int(token & 0xffff_ffff)
        guard slot < sockets.count, UInt64(generations[slot]) == token >> 32 else { return nil }
        return sockets[slot]
    }

    /// Every live connection of `server` on this loop.
    func sockets(of server: ServerCore) -> [EventLoopWebSocket] {
        byServer.first { $0.server === server }?.sockets ?? []
    }

    /// `socket` has output or a state change to act on, at the end of this turn.
    func markDirty(_ socket: EventLoopWebSocket) {
        dirty.append(socket)
    }

    /// `socket` stopped reading to let the others have a turn: it reads again next turn.
    func readAgain(_ socket: EventLoopWebSocket) {
        again.append(socket)
    }

    /// Calls `socket.timerFired()` at `deadline` or soon after (or not, if the socket has gone).
    func schedule(_ socket: EventLoopWebSocket, at deadline: Connection.Instant) {
        timers.push(deadline, token: socket.token)
    }

    // MARK: Listeners

    /// A listening socket of a server, watched by this loop.
    private struct Listener {
        var socket: Socket
        var server: ServerCore
        /// Whether connections may be waiting (edge-triggered: until `accept` says `EAGAIN`).
        var readable = true
        /// Accepting is paused (the server's limit, or no descriptor left).
        var paused = false
    }

    /// Starts accepting on `socket` for `server`. `shared` for a socket other loops watch too.
    func addListener(_ socket: Socket, server: ServerCore, shared: Bool) throws(Errno) {
        let index = listeners.firstIndex { $0 == nil } ?? listeners.count
        if index == listeners.count { listeners.append(nil) }
        try epoll.add(socket.descriptor, interest: .listener(exclusive: shared), token: Token.listener(index))
        listeners[index] = Listener(socket: socket, server: server)
        accept(index)
    }

    /// Stops accepting for `server`: its listeners leave this loop (each is closed when the last loop
    /// lets go of it).
    func removeListeners(of server: ServerCore) {
        for index in listeners.indices where listeners[index]?.server === server {
            if let listener = listeners[index] { epoll.remove(listener.socket.descriptor) }
            listeners[index] = nil
        }
    }

    /// Accepting may go on for `server` (it had paused at its limit).
    func resumeAccepting(for server: ServerCore) {
        for index in listeners.indices where listeners[index]?.server === server && listeners[index]?.paused == true {
            listeners[index]?.paused = false
            accept(index)
        }
    }

    /// Accepts what is waiting on listener `index`, a batch at a time.
    private func accept(_ index: Int) {
        guard var listener = listeners[index], !listener.paused else { return }
        var accepted = 0
        while listener.readable {
            guard accepted < 64 else {
                // Let the connections have a turn; go on in the next one.
                listeners[index] = listener
                execute { [self] in accept(index) }
                return
            }
            guard listener.server.mayAccept(on: self) else {
                listener.paused = true
                break
            }
            do throws(Errno) {
                guard let socket = try listener.socket.accept() else {
                    listener.readable = false
                    break
                }
                accepted += 1
                listener.server.serve(socket, on: self)
            } catch {
                // Out of descriptors or memory: the connection waits in the backlog; try again in
                // a moment rather than spinning on a listener that stays readable.
                listener.paused = true
                timers.push(now + .milliseconds(100), token: Token.listener(index))
                break
            }
        }
        listeners[index] = listener
    }

    // MARK: The loop

    private func run() {
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 256)
        while true {
            let timeout: Int32
            if !local.isEmpty || !dirty.isEmpty || !again.isEmpty {
                timeout = 0
            } else if let earliest = timers.earliest {
                timeout = Poller.milliseconds(until: earliest, now: system.monotonicNow())
            } else {
                timeout = -1
            }
            let count = epoll.wait(into: events, timeoutMilliseconds: timeout)
            now = system.monotonicNow()
            var woken = false
            for event in events[..<count] {
                handle(event.data.u64, Epoll.Readiness(events: event.events), woken: &woken)
            }
            if woken { wake.drain() }
            let readers = again
            again = []
            for socket in readers { socket.readAgain() }
            runWork()
            fireTimers()
            runWork()
            flushDirty()
        }
    }

    private func handle(_ token: UInt64, _ readiness: Epoll.Readiness, woken: inout Bool) {
        if token == Token.wake {
            woken = true
        } else if token >= Token.firstSpecial {
            let index = Int(UInt64.max - 1 - token)
            guard index < listeners.count, listeners[index] != nil else { return }
            listeners[index]?.readable = true
            accept(index)
        } else if let socket = socket(for: token) {
            socket.handle(readiness)
            // The tasks the delivery resumed (the async face) answer now, and the answers go out
            // before the loop reads the next connection: a peer waiting for this one's reply does
            // not wait for the rest of the turn. Sends made elsewhere go out at the turn's end.
            runLocalWork()
            if socket.isDirty { socket.flush() }
        }
    }

    /// Runs the work the loop queued itself (tasks resumed on it), a few rounds at most.
    private func runLocalWork() {
        for _ in 0..<4 where !local.isEmpty {
            let work = local
            local = []
            for item in work { run(item) }
        }
    }

    /// Runs the work queued from other threads and by the loop itself, until none is left (a few
    /// rounds at most per turn, so that a task that keeps yielding cannot starve the sockets).
    private func runWork() {
        for _ in 0..<8 {
            let fromElsewhere = remote.withLock { remote in
                remote.signalled = false
                defer { remote.work = [] }
                return remote.work
            }
            let fromHere = local
            local = []
            guard !fromElsewhere.isEmpty || !fromHere.isEmpty else { return }
            for work in fromElsewhere { run(work) }
            for work in fromHere { run(work) }
        }
    }

    private func run(_ work: Work) {
        switch work {
        case .job(let job): job.runSynchronously(on: asUnownedTaskExecutor())
        case .command(let command): command()
        }
    }

    private func fireTimers() {
        while let token = timers.popDue(now: now) {
            if token >= Token.firstSpecial {
                let index = Int(UInt64.max - 1 - token)
                guard index < listeners.count, listeners[index]?.paused == true else { continue }
                listeners[index]?.paused = false
                accept(index)
            } else if let socket = socket(for: token) {
                socket.timerFired()
            }
        }
    }

    private func flushDirty() {
        // A flush can make more sockets dirty (a handler's send to another socket): they wait for
        // the next turn, which then does not wait.
        // A socket flushed since it was listed (right after its reads) is skipped: flushing it
        // again found nothing to do, at the cost of a second pass per message.
        let sockets = dirty
        dirty = []
        for socket in sockets where socket.isDirty { socket.flush() }
    }
}
#endif
