// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CWebSocketSystem
import Dispatch
import WebSocketTransport

// Theory of operation
//
// An `EventLoop` is one thread that owns a set of sockets outright: it waits for readiness, reads
// and writes its sockets, runs their sessions and calls their handlers, with no lock and no hop
// between threads on the way. The process has one loop per CPU it may run on (`EventLoops.shared`);
// servers spread their connections over them, clients take them in turn, and a socket stays on its
// loop for its whole life.
//
// One turn of the loop:
//
// 1. Wait for readiness (no longer than the earliest timer; not at all when work is left over).
// 2. For each ready descriptor: a listener accepts; a socket reads until `EAGAIN` (or a short read,
//    which means the same for a stream socket), feeds its session and acts on what it parsed; the
//    tasks that delivery resumed run; then the socket writes its answers, in one gathered send,
//    before the next socket is read.
// 3. Work from elsewhere: closures queued by other threads (``execute(_:)``) and Swift tasks whose
//    executor this loop is, in the order they came.
// 4. Due timers: the sockets' deadlines (handshake, close, keepalive, linger, stalled writes,
//    awaited pings, connect attempts).
// 5. Every socket still dirty (sends from elsewhere, timers) writes what it has and obeys its
//    session's directive.
//
// Readiness comes from a backend: see `Readiness` for its edge-like contract and its tokens.

/// One thread running sockets: see the theory of operation above.
///
/// `@unchecked Sendable`: everything but `remote`, `remoteQueued`, `thread` and the constants is
/// touched only on the loop's own thread; other threads reach the loop only through ``execute(_:)``
/// and the executor's `enqueue`, which go through `remote` under its lock (and set `remoteQueued`,
/// an atomic word, there).
final class EventLoop: @unchecked Sendable {
    /// Special tokens: listeners count down from the top.
    enum Token {
        static func listener(_ index: Int) -> UInt64 { UInt64.max - 1 - UInt64(index) }
        /// Socket tokens are below this (31-bit generations, 32-bit slots).
        static let firstSpecial = UInt64(1) << 63
    }

    /// Work from other threads, in the order it came.
    enum Work {
        case job(UnownedJob)
        case command(@Sendable () -> Void)
        /// A socket has what other threads left for it (sends, what its queue's handlers took):
        /// a case of its own, since a closure would be allocated for every visit.
        case visit(WebSocket)
    }

    private struct Remote {
        var work: [Work] = []
        /// Whether the loop has been woken since it last took the work.
        var signalled = false
    }

    let index: Int
    let readiness: any Readiness
    private let remote = Locked(Remote())
    /// 1 from when work is queued in `remote` to when the loop is about to take it, read and written
    /// atomically: a turn with nothing queued from elsewhere (nearly all of them) takes no lock to
    /// find that out. Twice a turn, the lock had cost about 110 instructions each time. The loop clears
    /// it before taking the lock, so that work queued in between sets it again and is taken now or
    /// next time; work whose flag the loop has not seen yet woke it (``submit(_:)``), or was queued
    /// behind work that did and is taken with it.
    private let remoteQueued: UnsafeMutablePointer<Int>
    private let thread: UnsafeMutablePointer<pthread_t>
    let system: SystemCalls
    /// The clock of `system`, held here as well: read several times a turn, a closure read out of the
    /// calls' shared table is retained and released around each call.
    private let clock: @Sendable () -> Connection.Instant

    // The loop's own state, on its thread only. What is touched per message or per connection is
    // `@exclusivity(unchecked)`, for the reason and under the rule given at `WebSocket`: the checks
    // of the registry's state (free slots, the servers' lists, the counts) made about 530 of an
    // accepted connection's user-space instructions.
    /// Sockets by slot, with each slot's generation.
    @exclusivity(unchecked) private var sockets: [WebSocket?] = []
    @exclusivity(unchecked) private var generations: [UInt32] = []
    /// See ``schedule(_:at:)``.
    @exclusivity(unchecked) private var staleTimersMark = EventLoop.minimumStaleTimersMark
    /// Wake-ups asked for a deadline already come (a socket's timer due at once): each costs the
    /// loop a turn that only reports the time. Sockets report it themselves instead
    /// (``WebSocket/scheduleTimer()``); counted for the tests that hold them to it.
    @exclusivity(unchecked) private(set) var immediateWakeUps = 0
    @exclusivity(unchecked) private var freeSlots: [Int] = []
    /// Each server's live sockets on this loop (a server's broadcast and stop walk only its own),
    /// unordered; each socket knows its index (`WebSocket.indexInServer`).
    @exclusivity(unchecked) private var byServer: [(server: ServerCore, sockets: [WebSocket])] = []
    /// Live sockets, and the most since the heap was last trimmed.
    @exclusivity(unchecked) private var liveCount = 0
    @exclusivity(unchecked) private var peakSinceTrim = 0
    /// When the heap was last trimmed, and whether a trim waits for ``trimInterval`` to pass since.
    @exclusivity(unchecked) private var lastTrim: Connection.Instant? = nil
    @exclusivity(unchecked) private(set) var trimOwed = false
    /// Trims so far (for tests).
    private(set) var trimCount = 0
    /// The least time between two trims (``trimIfMostlyFreed()``).
    static let trimInterval = Duration.seconds(1)
    @exclusivity(unchecked) private var listeners: [Listener?] = []
    @exclusivity(unchecked) private var local: [Work] = []
    @exclusivity(unchecked) private var dirty: [WebSocket] = []
    /// The socket whose readiness the loop is acting on: ``handle(_:_:)`` flushes it right after,
    /// so while it is handled a ``WebSocket/markDirty()`` of its own only sets its flag. Listed
    /// as well, it cost a retain, a release and a place in `dirty` per echoed message.
    @exclusivity(unchecked) private(set) var handling: ObjectIdentifier?
    /// Sockets unregistered this turn, released at its end: the loop may still be calling them.
    @exclusivity(unchecked) private var retiring: [WebSocket] = []
    /// The sockets being flushed, and the work being run: swapped with `dirty` and `local` each
    /// turn, so that neither array is allocated again once it has grown.
    @exclusivity(unchecked) private var flushing: [WebSocket] = []
    @exclusivity(unchecked) private var running: [Work] = []
    /// The work taken from `remote`, swapped with it under the lock for the same reason.
    @exclusivity(unchecked) private var incoming: [Work] = []
    @exclusivity(unchecked) private var again: [WebSocket] = []
    @exclusivity(unchecked) private(set) var timers = DeadlineHeap()
    /// (Queue face) The sockets whose mailbox drain starts this turn, by queue: handed to each queue
    /// in one block at the end of the readiness round and of the turn.
    @exclusivity(unchecked) private var drainsToStart: [(queue: DispatchQueue, sockets: [(WebSocket, WebSocket.EventHandler)])] = []
    /// The one read buffer of every socket of the loop: a connection keeps only what it has not
    /// parsed yet, in its own (small) input buffer.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The array of the last binary message a handler was given, kept with its bytes: the next
    /// binary message for a handler is written over them instead of into a new allocation
    /// (``WebSocket``'s in-place read). Kept only up to ``spareMessageCapacity`` bytes. Optional, so
    /// that taking it out leaves `nil` rather than an empty array: putting it back then releases
    /// nothing (releasing the empty array's storage was a runtime call per message).
    @exclusivity(unchecked) var spareMessageBytes: [UInt8]? = nil
    static let spareMessageCapacity = 64 << 10
    /// The time of this turn, read once after waking.
    @exclusivity(unchecked) private(set) var now: Connection.Instant

    static let readBufferSize = 64 << 10

    init(index: Int, backend: ReadinessBackend, system: SystemCalls = .live) throws(Errno) {
        self.index = index
        self.system = system
        clock = system.monotonicNow
        readiness = try backend.make()
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        remoteQueued = .allocate(capacity: 1)
        remoteQueued.initialize(to: 0)
        now = clock()
        thread = .allocate(capacity: 1)
        thread.initialize(to: pthread_self())
        let started = Locked(false)
        try spawnDetachedThread { [self] in
            thread.pointee = pthread_self()
            started.withLock { $0 = true }
            started.broadcast()
            run()
        }
        _ = started.wait(until: { $0 }, deadline: nil, now: system.monotonicNow)
    }

    /// Whether the caller runs on this loop's thread. Compared with `==`: `pthread_t` is an integer
    /// (glibc) or a pointer (Darwin, musl), and `pthread_equal` compares it just so, in a call every
    /// send from a handler made.
    var inLoop: Bool { pthread_self() == thread.pointee }

    // MARK: Work from anywhere

    /// Runs `command` on the loop: in this turn when called on the loop; otherwise after the loop
    /// wakes. Commands and tasks run in the order they were queued.
    func execute(_ command: @escaping @Sendable () -> Void) {
        submit(.command(command))
    }

    func submit(_ work: Work) {
        if inLoop {
            local.append(work)
            return
        }
        let mustWake = remote.withLock { remote in
            remote.work.append(work)
            cwebsocket_atomic_store_long(remoteQueued, 1)
            defer { remote.signalled = true }
            return !remote.signalled
        }
        if mustWake { readiness.wake() }
    }

    // MARK: Sockets

    /// Makes `socket` the loop's, watching `descriptor` (a socket connecting again registers its new
    /// descriptor under a new token).
    func register(_ socket: WebSocket, descriptor: Int32, interest: Interest) throws(Errno) {
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
            try readiness.register(descriptor, token: token, interest: interest)
        } catch {
            freeSlots.append(slot)
            throw error
        }
        sockets[slot] = socket
        socket.token = token
        if let server = socket.server {
            let group = byServer.firstIndex { $0.server === server } ?? {
                byServer.append((server, []))
                return byServer.count - 1
            }()
            socket.indexInServer = byServer[group].sockets.count
            byServer[group].sockets.append(socket)
        }
        liveCount += 1
        peakSinceTrim = max(peakSinceTrim, liveCount)
    }

    /// Forgets `socket`'s registration: call right before closing its descriptor (epoll is not told:
    /// the close takes the descriptor out of its set).
    func unregister(_ socket: WebSocket, descriptor: Int32) {
        let slot = Int(socket.token & 0xffff_ffff)
        guard slot < sockets.count, sockets[slot] === socket else { return }
        readiness.deregister(descriptor, closing: true)
        // Kept alive to the turn's end: `handle` calls the socket it is handling unretained.
        retiring.append(socket)
        sockets[slot] = nil
        if let server = socket.server, let group = byServer.firstIndex(where: { $0.server === server }) {
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
    /// otherwise keep their memory for good. Rare: at most once per halving (from 256 connections;
    /// below, when none is left), and at most once per ``trimInterval``. A loop whose few
    /// connections come and go (a handshake benchmark, 8 at a time) trimmed each time its count
    /// reached zero, and faulted the same pages in again: a `madvise` for every five connections,
    /// and the kernel's zeroing of each page. A trim the interval holds back is done when it has
    /// passed (``trimIfOwed()``), so that an idle server still gives its memory back.
    private func trimIfMostlyFreed() {
        guard peakSinceTrim >= 256 ? liveCount <= peakSinceTrim / 2 : (liveCount == 0 && peakSinceTrim > 0) else { return }
        peakSinceTrim = liveCount
        if let lastTrim, now < lastTrim + Self.trimInterval {
            trimOwed = true
            return
        }
        trim()
    }

    private func trim() {
        lastTrim = now
        trimOwed = false
        trimCount += 1
        releaseFreedMemory()
    }

    /// When a trim held back is due, if one is.
    private var owedTrimDue: Connection.Instant? {
        guard trimOwed, let lastTrim else { return nil }
        return lastTrim + Self.trimInterval
    }

    /// A trim held back by the interval, once it has passed.
    private func trimIfOwed() {
        guard trimOwed, let lastTrim, now >= lastTrim + Self.trimInterval else { return }
        trim()
    }

    /// The live socket with `token`, unretained: valid until the turn ends, even if it is
    /// unregistered meanwhile (``unregister(_:descriptor:)`` keeps it in `retiring` until then).
    private func unretainedSocket(for token: UInt64) -> Unmanaged<WebSocket>? {
        let slot = Int(token & 0xffff_ffff)
        guard slot < sockets.count, UInt64(generations[slot]) == token >> 32, let socket = sockets[slot] else { return nil }
        return Unmanaged.passUnretained(socket)
    }

    /// The live socket with `token`, if any.
    private func socket(for token: UInt64) -> WebSocket? {
        unretainedSocket(for: token)?.takeUnretainedValue()
    }

    /// Every live socket of `server` on this loop.
    func sockets(of server: ServerCore) -> [WebSocket] {
        byServer.first { $0.server === server }?.sockets ?? []
    }

    /// `socket` has output or a state change to act on, at the end of this turn.
    func markDirty(_ socket: WebSocket) {
        dirty.append(socket)
    }

    /// `socket` stopped reading to let the others have a turn: it reads again next turn.
    func readAgain(_ socket: WebSocket) {
        again.append(socket)
    }

    /// (Queue face) Starts `socket`'s mailbox drain on `queue` with the others of this turn.
    func startDrain(of socket: WebSocket, on queue: DispatchQueue, _ handler: @escaping WebSocket.EventHandler) {
        if let index = drainsToStart.firstIndex(where: { $0.queue === queue }) {
            drainsToStart[index].sockets.append((socket, handler))
        } else {
            drainsToStart.append((queue, [(socket, handler)]))
        }
    }

    /// Hands the drains started so far to their queues.
    private func dispatchDrains() {
        guard !drainsToStart.isEmpty else { return }
        for (queue, sockets) in drainsToStart {
            queue.async { WebSocket.drain(sockets, on: queue) }
        }
        drainsToStart.removeAll(keepingCapacity: true)
    }

    /// Calls `socket.timerFired()` at `deadline` or soon after (or not, if the socket has gone).
    func schedule(_ socket: WebSocket, at deadline: Connection.Instant) {
        if deadline <= now { immediateWakeUps &+= 1 }
        timers.push(deadline, token: socket.token)
        // Closed sockets' entries are dropped once they outnumber the live sockets' by far: each
        // pass is linear, and comes only after as many pushes again, so it costs O(1) per push.
        if timers.count > staleTimersMark {
            timers.removeStale { token in token >= Token.firstSpecial || self.socket(for: token) != nil }
            staleTimersMark = max(Self.minimumStaleTimersMark, 4 * timers.count)
        }
    }

    /// Timer entries beyond which ``schedule(_:at:)`` drops those of closed sockets.
    static let minimumStaleTimersMark = 1024

    // MARK: Listeners

    /// A listening socket of a server, watched by this loop.
    private struct Listener {
        var socket: Socket
        var server: ServerCore
        /// Whether connections may be waiting (until `accept` says `EAGAIN`).
        var readable = false
        /// Accepting is paused (the server's limit, or no descriptor left).
        var paused = false
    }

    /// Starts accepting on `socket` for `server`.
    func addListener(_ socket: Socket, server: ServerCore) throws(Errno) {
        let index = listeners.firstIndex { $0 == nil } ?? listeners.count
        if index == listeners.count { listeners.append(nil) }
        try readiness.register(socket.descriptor, token: Token.listener(index), interest: .readable)
        listeners[index] = Listener(socket: socket, server: server, readable: true)
        accept(index)
    }

    /// Stops accepting for `server`: its listeners leave this loop.
    func removeListeners(of server: ServerCore) {
        for index in listeners.indices where listeners[index]?.server === server {
            if let listener = listeners[index] { readiness.deregister(listener.socket.descriptor, closing: false) }
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

    /// Listener `token` may have connections waiting: the backend said so, or (`unpausing`, a no-op
    /// unless it is paused) its pause after an accept failure is over.
    private func listenerReady(_ token: UInt64, unpausing: Bool) {
        let index = Int(UInt64.max - 1 - token)
        guard index < listeners.count, listeners[index] != nil, !unpausing || listeners[index]?.paused == true else { return }
        if unpausing { listeners[index]?.paused = false }
        listeners[index]?.readable = true
        accept(index)
    }

    /// Accepts what is waiting on listener `index`, a batch at a time.
    private func accept(_ index: Int) {
        guard var listener = listeners[index], !listener.paused else { return }
        defer {
            listeners[index] = listener
            // Wait for more only while nothing is known to be waiting and accepting is not paused.
            readiness.update(listener.socket.descriptor, interest: listener.readable || listener.paused ? [] : .readable)
        }
        var accepted = 0
        while listener.readable {
            guard accepted < 64 else {
                // Let the connections have a turn; go on in the next one.
                execute { [self] in accept(index) }
                return
            }
            guard listener.server.mayAccept(on: self) else {
                listener.paused = true
                return
            }
            do throws(Errno) {
                guard let socket = try listener.socket.accept() else {
                    listener.readable = false
                    return
                }
                accepted += 1
                listener.server.accepted(socket, by: self)
            } catch {
                switch AcceptFailure(error) {
                case .skip:
                    continue
                case .pause:
                    listener.paused = true
                    timers.push(now + AcceptFailure.pauseLength, token: Token.listener(index))
                    return
                case .stop:
                    // Watched no more; the server's other listeners and connections go on.
                    listener.readable = false
                    listener.paused = true
                    return
                }
            }
        }
    }

    // MARK: The loop

    private func run() {
        while true {
            let timeout: Int32
            if !local.isEmpty || !dirty.isEmpty || !again.isEmpty {
                timeout = 0
            } else if let earliest = trimOwed ? Connection.earlier(timers.earliest, owedTrimDue) : timers.earliest {
                timeout = Poller.milliseconds(until: earliest, now: clock())
            } else {
                timeout = -1
            }
            var stamped = false
            readiness.wait(timeoutMilliseconds: timeout) { token, events in
                if !stamped {
                    now = clock()
                    stamped = true
                }
                handle(token, events)
            }
            dispatchDrains()
            now = clock()
            let readers = again
            again = []
            for socket in readers { socket.readAgain() }
            runWork()
            fireTimers()
            runWork()
            flushDirty()
            dispatchDrains()
            if !retiring.isEmpty { retiring.removeAll(keepingCapacity: true) }
            if trimOwed { trimIfOwed() }
        }
    }

    // Inlined into the wait's callback, with the socket's own handling and its read: once per
    // echoed message, the two calls cost about 30 instructions.
    @inline(__always)
    private func handle(_ token: UInt64, _ events: ReadinessEvents) {
        if token >= Token.firstSpecial {
            listenerReady(token, unpausing: false)
        } else if let unretained = unretainedSocket(for: token) {
            // Unretained (a retain and a release per readiness otherwise): the socket outlives the
            // turn even if its handler closes it.
            unretained._withUnsafeGuaranteedRef { socket in
                handling = ObjectIdentifier(socket)
                socket.handle(events)
                // The tasks the delivery resumed (the async face) answer now, and the answers go
                // out before the loop reads the next socket: a peer waiting for this one's reply
                // does not wait for the rest of the turn. Sends made elsewhere go out at the
                // turn's end.
                // Checked here, not in a call: after every readiness, and almost always empty.
                if !local.isEmpty { runLocalWork() }
                handling = nil
                if socket.isDirty { socket.flush() }
            }
        }
    }

    /// Runs the work the loop queued itself (tasks resumed on it), a few rounds at most. The caller
    /// checks first that there is some.
    private func runLocalWork() {
        for _ in 0..<4 where !local.isEmpty {
            now = clock()  // as in runWork
            swap(&local, &running)
            for item in running { run(item) }
            running.emptyKeepingCapacity()
        }
    }

    /// Runs the work queued from other threads and by the loop itself, until none is left (a few
    /// rounds at most per turn, so that a task that keeps yielding cannot starve the sockets).
    private func runWork() {
        // The usual turn: nothing queued, here or from elsewhere (two swaps of arrays and the
        // checks after them cost about 50 instructions, twice a turn).
        guard !local.isEmpty || cwebsocket_atomic_load_long(remoteQueued) != 0 else { return }
        for _ in 0..<8 {
            if cwebsocket_atomic_load_long(remoteQueued) != 0 {
                cwebsocket_atomic_store_long(remoteQueued, 0)
                remote.withLock { remote in
                    remote.signalled = false
                    swap(&remote.work, &incoming)
                }
            }
            swap(&local, &running)
            guard !incoming.isEmpty || !running.isEmpty else { return }
            // The turn's time is read again: this work may have been queued after the turn began
            // (a ping's timeout counted from an earlier time would end too soon).
            now = clock()
            for work in incoming { run(work) }
            for work in running { run(work) }
            incoming.emptyKeepingCapacity()
            running.emptyKeepingCapacity()
        }
    }

    private func run(_ work: Work) {
        switch work {
        case .job(let job): runJob(job)
        case .command(let command): command()
        case .visit(let socket): socket.visit()
        }
    }

    private func fireTimers() {
        while let token = timers.popDue(now: now) {
            if token >= Token.firstSpecial {
                listenerReady(token, unpausing: true)
            } else if let socket = socket(for: token) {
                socket.timerFired()
            }
        }
    }

    private func flushDirty() {
        // A flush can make more sockets dirty (a handler's send to another socket): they wait for
        // the next turn, which then does not wait.
        // A socket flushed since it was listed (right after its reads) is skipped.
        swap(&dirty, &flushing)
        // Indexed, not iterated: see EpollReadiness.wait.
        var index = 0
        while index < flushing.count {
            let socket = flushing[index]
            index += 1
            if socket.isDirty { socket.flush() }
        }
        flushing.emptyKeepingCapacity()
    }
}

// MARK: Tasks

extension EventLoop {
    /// Runs a task's job here, as its executor. Jobs come only from the executor's `enqueue`, which
    /// exists where task executors do.
    fileprivate func runJob(_ job: UnownedJob) {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// The loop as the executor of tasks that prefer it (`Task(executorPreference:)`): their jobs run in
/// its turns, beside its sockets' I/O, so that a task that reads and sends takes no hop between
/// threads.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension EventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }
}

/// Gives the heap's freed memory back to the system (glibc's `malloc_trim`); elsewhere the
/// allocator does it by itself.
private func releaseFreedMemory() {
    #if os(Linux)
    _ = malloc_trim(0)
    #endif
}
