// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CWebSocketSystem
import Dispatch
import WebSocketTransport

/// What the loops share about one server: its settings, its user's decision and face, its
/// listeners and its counts. The loops that accept for it keep it (and so the server) alive until
/// ``WebSocketServer/stop()``, whatever references to the ``WebSocketServer`` remain.
///
/// `@unchecked Sendable`: constants, and `counts` behind its lock.
final class ServerCore: @unchecked Sendable {
    /// Where a server's connections go once open.
    enum Face {
        /// Every connection's events, to one handler on its loop (boxed once for all of them).
        case loopHandler(EventHandlerBox)
        /// Every connection's events, to one lending handler on its loop (boxed once for all of them).
        case lendingHandler(LendingHandlerBox)
        /// Every connection's events, to one handler on this queue.
        case queueHandler(DispatchQueue, WebSocket.EventHandler)
        /// Open connections wait in ``WebSocketServer/connections``.
        case async(ConnectionQueue)

        /// Every connection's events, to one handler on its loop.
        static func loopHandler(_ handler: @escaping WebSocket.EventHandler) -> Face { .loopHandler(EventHandlerBox(handler)) }
        /// Every connection's events, to one lending handler on its loop.
        static func lendingHandler(_ handler: @escaping WebSocket.LendingHandler) -> Face {
            .lendingHandler(LendingHandlerBox(handler))
        }
    }

    let configuration: Connection.Configuration
    let options: TransportOptions
    /// ``options`` once, shared by every socket of the server.
    let sharedOptions: OutOfLine<TransportOptions>
    /// The user's decision on each request; `nil`: accept without a subprotocol (on the loop, with
    /// no hop to a handler face's queue).
    let decide: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)?
    let face: Face
    let isUnixSocket: Bool
    let loops: [EventLoop]
    let system: SystemCalls
    let settings: SocketSession.Settings
    /// Each loop's counters, in the order of ``loops``: written by that loop alone.
    let meters: [ServerMeter.Storage]
    /// Each loop's subscribers by topic, in the order of ``loops``: each touched only on its loop.
    let topicTables: [TopicTable]
    /// The topics with subscribers on any loop, and the backplane told of them.
    let topicPresence: TopicPresence
    /// Published messages on their way to the loops from other threads, bounded.
    let publishBacklog: PublishBacklog

    /// What the lock guards. Whether the server stopped, and the connections accepted and those
    /// open, are pinned words beside it (``stoppedWord``, ``liveWord``, ``openWord``).
    private struct Counts {
        /// Set by a stop that closes every connection: those that open later are closed with it.
        var closing: Connection.CloseFrame? = nil
        /// Where the next connection goes, when one loop accepts for all.
        var nextLoop = 0
        /// Open connections that ended, by how: the closing handshake completed, or not.
        var endedCleanly = 0
        var endedUncleanly = 0
        /// ``WebSocketServer/abortDrain()`` was called: a drain stops waiting.
        var drainAborted = false
    }
    private let counts = Locked(Counts(), pinnedWords: 4)
    /// Whether the server stopped, and whether `counts.closing` is set, for reading without the lock:
    /// each 1 once so (stored under the lock, by ``stop(closing:)``, the only writer of either). Every
    /// accept asks the first, every request's decision the second; through the lock, they cost
    /// about 250 instructions per connection. A stop that lands just after an answer finds what it
    /// found before, between the lock's release and the accept or the decision: one connection more
    /// let in, or one request more decided, which the stop's closing then closes.
    private let stoppedWord: UnsafeMutablePointer<Int>
    private let drainingWord: UnsafeMutablePointer<Int>
    /// Connections accepted and not yet closed, and those past their opening handshake and not yet
    /// closed: changed atomically, by an accept or an opening without the lock (each took it, about
    /// 110 instructions of every connection), by an end under it. An end that leaves no connection
    /// decides so under the lock, where ``waitUntilIdle(deadline:orDrainAborted:)`` checks before it
    /// waits: that wait misses no end. The other counts of an end (``endings``) change under the lock
    /// with it, so a reader under the lock sees an end whole; an accept can come beside it, as it
    /// could before between two acquisitions.
    private let liveWord: UnsafeMutablePointer<Int>
    private let openWord: UnsafeMutablePointer<Int>

    init(configuration: Connection.Configuration, options: TransportOptions, isUnixSocket: Bool, loops: [EventLoop],
         decide: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)?, face: Face,
         system: SystemCalls) {
        self.configuration = configuration
        self.options = options
        self.isUnixSocket = isUnixSocket
        self.loops = loops
        self.decide = decide
        self.face = face
        self.system = system
        stoppedWord = counts.pinnedWords
        drainingWord = counts.pinnedWords + 1
        liveWord = counts.pinnedWords + 2
        openWord = counts.pinnedWords + 3
        let holds = switch face {
        case .loopHandler, .lendingHandler: false
        case .queueHandler, .async: true
        }
        settings = SocketSession.Settings(options: options, configuration: configuration, consumerHolds: holds)
        sharedOptions = OutOfLine(options)
        meters = loops.map { _ in ServerMeter.Storage() }
        publishBacklog = PublishBacklog(limit: options.maxPublishBacklog)
        let presence = TopicPresence()
        topicPresence = presence
        topicTables = loops.map { _ in TopicTable(presence: presence) }
    }

    /// The topic table of `loop`, one of the server's.
    func topicTable(on loop: EventLoop) -> TopicTable {
        guard let index = loops.firstIndex(where: { $0 === loop }) else { preconditionFailure("not one of the server's loops") }
        return topicTables[index]
    }

    /// The counters of every loop, summed.
    var metrics: ServerMetrics { ServerMeter.sum(meters.map(\.meter)) }

    // MARK: Accepting (on a loop)

    func mayAccept(on loop: EventLoop) -> Bool {
        guard !isStopped else { return false }
        switch face {
        case .loopHandler, .lendingHandler, .queueHandler: return true
        case .async(let queue): return queue.mayAccept(on: loop)
        }
    }

    /// `loop` accepted `socket`: it is served there, or, when one loop accepts for all, on the next
    /// loop in turn.
    func accepted(_ socket: Socket, by loop: EventLoop) {
        if case .async(let queue) = face { queue.accepted() }
        _ = cwebsocket_atomic_add_long(liveWord, 1)
        socket.applyConnectedOptions(options, isUnixSocket: isUnixSocket)
        guard !EventLoops.kernelBalancesListeners || isUnixSocket, loops.count > 1 else {
            serve(socket, on: loop)
            return
        }
        let target = counts.withLock { counts in
            defer { counts.nextLoop = (counts.nextLoop + 1) % loops.count }
            return loops[counts.nextLoop % loops.count]
        }
        if target === loop {
            serve(socket, on: loop)
        } else {
            target.execute { [self] in serve(socket, on: target) }
        }
    }

    /// Starts serving `socket` on `loop`.
    private func serve(_ socket: Socket, on loop: EventLoop) {
        let webSocket: WebSocket
        do {
            // Only a TLS layer can fail to be made, and the server checked that it can be.
            // The time is the connection's first report: its handshake timer starts armed.
            let pipeline = try ConnectionPipeline.server(configuration: configuration, transport: options, at: loop.now)
            // Each value moved on, not copied: a copy of the session retains every reference it holds.
            var session = SocketSession(accepted: consume pipeline, settings: settings, limits: options.lifetimeLimits,
                                        lifetimeSample: options.lifetimeLimits.randomSample)
            session.meter = meters[loops.firstIndex { $0 === loop } ?? 0].meter
            session.meter?.countAccepted()
            if options.proxyProtocol != nil { session.expectProxyHeader(from: socket.peerAddress, options: options) }
            webSocket = WebSocket(loop: loop, server: self, socket: socket, session: consume session,
                                  consumer: .pending, options: sharedOptions, system: system)
            try loop.register(webSocket, descriptor: socket.descriptor, interest: .readable)
        } catch {
            socket.close()
            ended(wasOpen: false, cleanly: false)
            return
        }
        webSocket.interest = .readable
        webSocket.startedAt = loop.now
        // A new socket can take bytes; its request is reported by the backend when it comes.
        webSocket.writable = true
        // The session's own limits start here (the connection's timer started armed); the end of the
        // turn arms the loop's timer for the handshake.
        webSocket.peek { $0.advanceTime(to: loop.now) }
        webSocket.markDirty()
    }

    // MARK: A connection's life (on its loop)

    /// A connection opened: the face that takes its events. An async-face connection waits in
    /// ``WebSocketServer/connections``; once the server stopped closing its connections, it is
    /// closed with the same code.
    func opened(_ socket: WebSocket) -> Consumer {
        let consumer: Consumer
        var taken = true
        switch face {
        case .loopHandler(let handler):
            consumer = .loopHandler(handler)
        case .lendingHandler(let handler):
            consumer = .lendingHandler(handler)
        case .queueHandler(let queue, let handler):
            consumer = .queueHandler(queue, handler)
        case .async(let queue):
            consumer = socket.attachBatches()
            taken = queue.push(socket)
        }
        _ = cwebsocket_atomic_add_long(openWord, 1)
        // The close code is read under the lock only once a drain began (`stop` stores it before
        // the word, under the lock); a stop that comes later closes this socket with the others.
        let closing = cwebsocket_atomic_load_long(drainingWord) == 0 ? nil : counts.withLock { $0.closing }
        if let closing {
            socket.startClosing(closing)
        } else if !taken {
            // Nobody will take it (the server stopped without a code).
            socket.startClosing(Connection.CloseFrame(code: .goingAway, reason: "server stopped"))
        }
        return consumer
    }

    /// A connection's socket closed.
    func ended(wasOpen: Bool, cleanly: Bool) {
        if !wasOpen, case .async(let queue) = face { queue.released() }
        let idle = counts.withLock { counts in
            if wasOpen {
                _ = cwebsocket_atomic_add_long(openWord, -1)
                if cleanly { counts.endedCleanly += 1 } else { counts.endedUncleanly += 1 }
            }
            return cwebsocket_atomic_add_long(liveWord, -1) == 0
        }
        // The only wait on the counts (`waitUntilIdle`) waits for no connection left (or a drain's
        // abort, which wakes it itself): the other ends wake nobody.
        if idle { counts.broadcast() }
    }

    /// Open connections ended so far, cleanly and not; connections accepted and not yet ended.
    var endings: (cleanly: Int, uncleanly: Int, live: Int) {
        counts.withLock { ($0.endedCleanly, $0.endedUncleanly, cwebsocket_atomic_load_long(liveWord)) }
    }

    /// Whether the server stopped with a close code: opening handshakes that come now are answered
    /// 503, with `Retry-After`, rather than opened only to be closed.
    var isDraining: Bool { cwebsocket_atomic_load_long(drainingWord) != 0 }

    // MARK: The server's side

    /// Runs `body` on each of the server's loops, for each of its sockets there.
    func forEachSocket(_ body: @escaping @Sendable (WebSocket) -> Void) {
        for loop in loops {
            loop.execute { [self] in
                for socket in loop.sockets(of: self) { body(socket) }
            }
        }
    }

    var isStopped: Bool { cwebsocket_atomic_load_long(stoppedWord) != 0 }

    /// Stops accepting; with `closing`, connections that open from now on are closed with it.
    /// Returns whether this call stopped the server.
    func stop(closing: Connection.CloseFrame?) -> Bool {
        let first = counts.withLock { counts in
            if let closing {
                counts.closing = closing
                cwebsocket_atomic_store_long(drainingWord, 1)
            }
            // The word alone says whether the server stopped (a Bool beside it said it twice).
            defer { cwebsocket_atomic_store_long(stoppedWord, 1) }
            return cwebsocket_atomic_load_long(stoppedWord) == 0
        }
        if first, case .async(let queue) = face { queue.finish() }
        return first
    }

    /// Connections past their opening handshake and not yet closed.
    var openConnections: Int { cwebsocket_atomic_load_long(openWord) }

    /// Waits until no connection is left, or `deadline`; for a drain, also until it is aborted.
    func waitUntilIdle(deadline: Connection.Instant?, orDrainAborted: Bool = false) -> Bool {
        counts.wait(until: { [liveWord] in cwebsocket_atomic_load_long(liveWord) == 0 || (orDrainAborted && $0.drainAborted) },
                    deadline: deadline, now: system.monotonicNow)
            && (!orDrainAborted || openConnectionsOrOpening == 0)
    }

    /// Connections accepted and not yet ended.
    private var openConnectionsOrOpening: Int { cwebsocket_atomic_load_long(liveWord) }

    /// Makes a drain under way (or the next one) stop waiting.
    func abortDrain() {
        counts.withLock { $0.drainAborted = true }
        counts.broadcast()
    }
}
