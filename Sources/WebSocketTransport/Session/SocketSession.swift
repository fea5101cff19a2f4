// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Theory of operation
//
// A `SocketSession` is everything an adapter decides about one socket, as a value: the
// `ConnectionPipeline` (the connection and its transport layers), where the socket is in its life,
// what the consumer is handed, how much it holds, what waits for room or for a pong, and how the
// socket ended. Both adapters (the blocking one, under its locks; the non-blocking one, on its event
// loop) drive a session and carry out what it says; neither makes these decisions itself.
//
// 1. Inputs are facts: bytes read, the end of the input, a failed read or write, how much a write
//    round took, the time, a timer that fired, a send, a handshake decision, the consumer taking
//    what it was handed, the socket closed (`finish()`).
// 2. Outputs are pulled, like the connection's events: `nextAction()` until `nil` (an event for the
//    consumer, a request for the server's decision, a waiter to resume), then the socket's output
//    through `pipeline`, then `socketDirective` (stay open, shut down the sending side, close),
//    `wantsInput` (read or not) and `nextDeadline` (when to report the time next).
// 3. Actions are taken one at a time and acted on before the next is pulled, so that an answer to
//    a message (a handler's echo) goes out before a later frame fails the connection.
// 4. The session never calls out: completions are handed back as actions, so an adapter runs them
//    outside its locks and exclusive accesses.
//
// Phases:
//
//   resolving ──► connecting ──► handshaking ──► open ──► finished
//   (client: the adapter resolves and connects)  │ (a server's accepted socket starts in handshaking)
//        └──────────────┴──────────────┴─────────┴──► finished (cancel, failure, end)
//
// A finished client session whose handshake was redirected starts again in `resolving`, with the
// next hop's pipeline (`finish()` returns `.redirected`).

import WebSocketCore

/// One socket's session: see the theory of operation above.
package struct SocketSession: Sendable {
    /// Where the socket is in its life.
    package enum Phase: Sendable {
        /// (Client) The adapter resolves ``ClientPlan/SocketTarget`` (``target``).
        case resolving
        /// (Client) TCP connect attempts, one address after another.
        case connecting(ConnectAttempts)
        /// The socket is connected: the transport layers' handshakes and the opening handshake run.
        case handshaking
        /// The opening handshake succeeded.
        case open
        /// The socket is closed; how it ended.
        case finished(Ending)
    }

    /// What the session needs of the adapter's options, copied once.
    package struct Settings: Sendable {
        /// Sends are refused once this much output is buffered (the core's ``Connection/Limits/maxBufferedOutput``).
        package var highWaterMark: Int
        /// ``TransportOptions/lowWaterMark``.
        package var lowWaterMark: Int
        /// ``TransportOptions/maxUndeliveredBytes``, at least 1.
        package var maxHeldBytes: Int
        /// ``TransportOptions/maxUndeliveredMessages``, at least 1.
        package var maxHeldMessages: Int
        /// ``TransportOptions/writeTimeout``.
        package var writeTimeout: Duration?
        /// ``TransportOptions/connectTimeout``.
        package var connectTimeout: Duration?
        /// ``TransportOptions/receivesControlFrames``.
        package var receivesControlFrames: Bool
        /// Whether the consumer holds what it is handed until it reports taking it
        /// (``SocketSession/consumerTook(_:messages:)``): a handler on another queue, an async reader. A handler
        /// called in place holds nothing once it returns.
        package var consumerHolds: Bool

        package init(options: TransportOptions, configuration: Connection.Configuration, consumerHolds: Bool) {
            highWaterMark = max(0, configuration.limits.maxBufferedOutput)
            lowWaterMark = max(0, options.lowWaterMark)
            maxHeldBytes = max(1, options.maxUndeliveredBytes)
            maxHeldMessages = max(1, options.maxUndeliveredMessages)
            writeTimeout = options.writeTimeout
            connectTimeout = options.connectTimeout
            receivesControlFrames = options.receivesControlFrames
            self.consumerHolds = consumerHolds
        }
    }

    /// The connection and its transport layers. Adapters move bytes through it; sends go through
    /// the session (``send(_:)``).
    package var pipeline: ConnectionPipeline
    package internal(set) var phase: Phase {
        didSet { stage = Stage(phase) }
    }
    /// Where the socket is, without the phase's payload: cheap to read on every turn.
    package internal(set) var stage: Stage
    package var settings: Settings
    /// (Client) Where the socket connects (the endpoint or its proxy), for ``Phase/resolving``.
    package internal(set) var target: ClientPlan.SocketTarget? {
        get { rare?.value.target }
        set { updateRare { $0.target = newValue } }
    }
    /// Payload bytes handed to the consumer and not yet taken.
    package internal(set) var heldBytes = 0
    /// Messages handed to the consumer and not yet taken.
    package internal(set) var heldMessages = 0
    /// The socket's input ended (end of stream, or a read failed).
    package internal(set) var inputEnded = false
    /// What the opening handshake agreed, once open.
    package internal(set) var handshake: Connection.HandshakeResult?
    /// (A server) Where the connection is with its PROXY protocol header.
    package internal(set) var proxyHeader = ProxyHeaderState.notExpected
    /// (A server) The PROXY protocol header the connection began with, once read.
    package internal(set) var proxied: ProxyProtocolHeader?
    /// Output waits for the peer since this instant (the last write that made progress, or the first
    /// that could not).
    var writeStalledSince: Connection.Instant?
    /// A send was refused, or the buffer reached the high-water mark: report the drain.
    var awaitingDrain = false
    var handshakeFailure: Connection.HandshakeFailure? {
        get { rare?.value.handshakeFailure }
        set { updateRare { $0.handshakeFailure = newValue } }
    }
    /// The connection's state may have changed since ``takeStateChange()`` last said so: an event
    /// that changes it was pulled, or a close was queued.
    var stateMayHaveChanged = false
    /// (Server) A request was handed out for a decision (``SessionAction/decide(_:)``) and not
    /// answered yet (``respond(to:)``).
    var awaitingDecision = false
    /// Bytes read from the socket (``read(from:into:at:)``) and written to it (``wroteRound(_:at:)``).
    package internal(set) var bytesReceived = 0
    package internal(set) var bytesSent = 0
    /// (Server) The counters of the server's loop this socket is served on, whose storage the
    /// adapter keeps alive; `nil`: nothing counted.
    package var meter: ServerMeter?
    /// (A server) The adapter closed the connection for not keeping up (a topic's subscriber at its
    /// limit): counted with the write timeouts as dropped for backpressure.
    package var closedForBackpressure = false
    /// (Server) The decision's answer was counted (a refusal, a plain request): the end does not
    /// count the connection as refused again.
    var answerCounted = false
    /// (Before it opened) Why the connection was given up: the connect failure (resolution, every
    /// address, the connect timeout, a redirect that may not be followed) or ``WebSocketError/cancelled``.
    /// Set once: what comes after the first reason changes nothing.
    var abandonment: WebSocketError?
    /// (Client) The redirects followed so far, and the request and endpoint of the current hop.
    var redirects: RedirectChain? {
        get { rare?.value.redirects }
        set { updateRare { $0.redirects = newValue } }
    }
    var hop: (request: Connection.ClientOptions, endpoint: WebSocketEndpoint)? {
        get { rare?.value.hop }
        set { updateRare { $0.hop = newValue } }
    }
    /// (Client) The options each hop's pipeline is made with.
    var clientTransport: TransportOptions? {
        get { rare?.value.clientTransport }
        set { updateRare { $0.clientTransport = newValue } }
    }
    /// What a client's session needs to connect and follow redirects, and a failed handshake: about
    /// 800 bytes that a server's open connection never uses, kept out of line (8 bytes inline) so
    /// that each of its sessions is that much smaller.
    private var rare: OutOfLine<RareState>? = nil
    /// Actions made by the session itself (resumptions, the drain, the last event), before the
    /// connection's events.
    var actions: [SessionAction] = []
    var actionsStart = 0
    /// The last event (``finish()``'s ``WebSocketEvent/closed(_:)`` or ``WebSocketEvent/failed(_:)``,
    /// made from the phase's ending) is owed, and comes before anything queued after it: kept out
    /// of `actions` when nothing was queued there. Queued, it allocated the array's storage at the
    /// end of nearly every server connection (about 350 instructions with its free).
    ///
    /// Invariant: `true` only while the phase is `.finished` and `actions` holds nothing unread;
    /// ``queue(_:)``, which every resumption goes through, queues the event first, so the order holds.
    var endingOwed = false
    /// Async sends waiting for room, in order.
    var pendingSends: [PendingSend] = []
    var nextPendingSendID: UInt64 = 0
    /// Pings whose pongs are awaited, with who waits.
    var pingWaiters: [PingWaiter] = []
    /// (A server) Its lifetime and idle limits, and the time last reported.
    var limits = LimitTimers.off
    /// Who waits for the end.
    var closeWaiters: [SessionCompletion<Connection.CloseStatus>] = []
    /// (Client) Who waits for the opening.
    var openWaiters: [SessionCompletion<Void>] = []

    /// The state ``rare`` holds.
    struct RareState {
        var target: ClientPlan.SocketTarget?
        var handshakeFailure: Connection.HandshakeFailure?
        var redirects: RedirectChain?
        var hop: (request: Connection.ClientOptions, endpoint: WebSocketEndpoint)?
        var clientTransport: TransportOptions?
    }

    /// Changes the out-of-line state, making it on first use.
    private mutating func updateRare(_ change: (inout RareState) -> Void) {
        var state = rare?.value ?? RareState()
        change(&state)
        if rare == nil { rare = OutOfLine(state) } else { rare?.value = state }
    }

    /// A server connection's session over `pipeline`, its socket accepted: the opening handshake
    /// runs. Report the time before anything else, so that the handshake timer starts now.
    ///
    /// With `limits` (``TransportOptions/lifetimeLimits``), the connection's lifetime is drawn from
    /// `lifetimeSample`, a random number the server draws (uniform over `UInt64`), so that the session
    /// itself stays deterministic.
    package init(accepted pipeline: consuming ConnectionPipeline, settings: Settings, limits: LifetimeLimits = LifetimeLimits(),
                 lifetimeSample: UInt64 = 0) {
        self.pipeline = consume pipeline
        self.settings = settings
        self.limits = LimitTimers(limits, sample: lifetimeSample)
        phase = .handshaking
        stage = .handshaking
    }

    // MARK: Reading what is known

    /// Where the socket is, without the phase's payload.
    package enum Stage: Sendable, Hashable {
        case resolving, connecting, handshaking, open, finished

        init(_ phase: Phase) {
            switch phase {
            case .resolving: self = .resolving
            case .connecting: self = .connecting
            case .handshaking: self = .handshaking
            case .open: self = .open
            case .finished: self = .finished
            }
        }
    }

    /// Whether the session has finished: the socket is closed and the last event made.
    package var isFinished: Bool { stage == .finished }

    /// How the socket ended, once finished.
    package var ending: Ending? {
        if case .finished(let ending) = phase { return ending }
        return nil
    }

    /// The bytes queued for the peer and not yet written: the connection's and the layers'.
    package var bufferedAmount: Int {
        mutating get { pipeline.pendingOutputCount }
    }

    /// The payload bytes of the messages waiting for room (not in ``bufferedAmount`` yet). A check
    /// made away from the session (another thread's send) counts them too, so that however many
    /// wait, such sends are refused at the high-water mark instead of joining them.
    package var waitingBytes: Int {
        var amount = 0
        for send in pendingSends { amount += send.message.byteCount }
        return amount
    }

    // MARK: Input

    /// What ``read(from:into:at:)`` did.
    package enum SocketRead: Equatable {
        /// Nothing was read: the session wants no input now (``wantsInput``).
        case unwanted
        /// `count` bytes (at least one) are in the buffer, for the adapter to read in place
        /// (``nextMessage(readingInPlace:from:)``, ``nextAction(readingInPlace:from:)``).
        case inPlace(count: Int)
        /// `count` bytes (at least one) were read and taken (``received(_:)``).
        case taken(count: Int)
        /// The socket had nothing (`EAGAIN`).
        case nothing
        /// The peer closed its side: the session took the end of the stream.
        case endOfStream
        /// The read failed: the transport failed (``readFailed(_:)``).
        case failed
    }

    /// Reads what `socket` (non-blocking) has into `buffer`, if the session wants input
    /// (``wantsInput``), and acts on it: bytes are counted (``didRead(_:)``) and, unless the
    /// session reads them in place (``readsInPlace``), taken (``received(_:)``); the end of the
    /// stream is taken; a failure fails the transport. After bytes or the end, the time is reported
    /// at `now`, before anything is pulled. One call per read: the five it replaces, from the
    /// adapter's module, cost about 80 instructions per echoed message.
    ///
    /// `peerHungUp`: the readiness backend said the peer ended its side (its FIN, or a reset). While
    /// the socket drains (``ConnectionPipeline/SocketDirective/drain(deadline:)``: the closing
    /// handshake is over, the sending side shut down, and whatever arrives is discarded until the
    /// end of the stream), the end has come, after every byte the peer sent: it is taken without
    /// the read that would only find it. That read was the last system call of every server
    /// connection whose client closes after the closing handshake, one of about eleven.
    package mutating func read(from socket: Socket, into buffer: UnsafeMutableRawBufferPointer,
                               at now: Connection.Instant, peerHungUp: Bool = false) -> SocketRead {
        guard wantsInput else { return .unwanted }
        if peerHungUp, case .drain = socketDirective {
            receivedEndOfStream()
            advanceTime(to: now)
            return .endOfStream
        }
        let outcome: Socket.ReadOutcome
        do throws(Errno) {
            outcome = try socket.read(into: buffer)
        } catch {
            readFailed(error)
            return .failed
        }
        switch outcome {
        case .bytes(let count):
            didRead(count)
            if readsInPlace {
                advanceTime(to: now)
                return .inPlace(count: count)
            }
            if readsHeadWhereItLies {
                // The time first, as for bytes taken: their pull comes after the report.
                limits.inputUnstamped = true
                advanceTime(to: now)
                pipeline.receive(readingHeadFrom: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                return .taken(count: count)
            }
            received(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            advanceTime(to: now)
            return .taken(count: count)
        case .nothing:
            return .nothing
        case .endOfStream:
            receivedEndOfStream()
            advanceTime(to: now)
            return .endOfStream
        }
    }

    /// ``read(from:into:at:)`` read `count` bytes from the socket (whether they go to
    /// ``received(_:)`` or are read in place): counted for ``bytesReceived`` and the server's meter.
    @inline(__always)
    private mutating func didRead(_ count: Int) {
        bytesReceived &+= count
        meter?.countBytesReceived(count)
    }

    /// Takes bytes read from the socket.
    package mutating func received(_ bytes: UnsafeRawBufferPointer) {
        if awaitsProxyHeader {
            receivedBeforeProxyHeader(bytes)
            return
        }
        limits.inputUnstamped = true
        pipeline.receive(bytes)
    }

    /// The socket's input ended (a read returned 0).
    package mutating func receivedEndOfStream() {
        inputEnded = true
        pipeline.receiveEOF()
    }

    /// A read failed: the transport failed, and the connection is aborted (1006).
    package mutating func readFailed(_ error: Errno) {
        inputEnded = true
        pipeline.fail(.transport(error))
    }

    /// A write failed: the transport failed, and the connection is aborted (1006).
    package mutating func writeFailed(_ error: Errno) {
        pipeline.fail(.transport(error))
    }

    /// A round of writes ended: `wrote` bytes went out, and what is left waits for room. A peer that
    /// accepts no byte for ``TransportOptions/writeTimeout`` ends the connection (``timerFired(at:)``);
    /// one that reads, however slowly, never does.
    @inline(__always)
    package mutating func wroteRound(_ wrote: Int, at now: Connection.Instant) {
        if wrote > 0 {
            bytesSent &+= wrote
            meter?.countBytesSent(wrote)
        }
        if pipeline.socketOutputCount == 0 {
            writeStalledSince = nil
        } else if wrote > 0 || writeStalledSince == nil {
            writeStalledSince = now
        }
    }

    /// What a round of writes (``writeOutput(to:at:socketIsWritable:)``) left.
    package struct WriteRound {
        /// The socket took less than it was offered: it is full, wait until it is writable.
        package var isFull: Bool
        /// The session is steady after the round (it has nothing for the adapter, which only
        /// waits for the next read; see `isSteady(plainAndWritten:)`): checked in the same call,
        /// where the write already knows most of what it asks (a call more per echoed message,
        /// and its checks, cost about 60 instructions).
        package var isSteady: Bool
        /// When ``isSteady``, the session's ``nextDeadline`` (`nil` otherwise, or when none):
        /// what the adapter asks next in the steady state.
        package var steadyDeadline: Connection.Instant?

        @inline(__always)
        package init(isFull: Bool, isSteady: Bool, deadline: @autoclosure () -> Connection.Instant?) {
            self.isFull = isFull
            self.isSteady = isSteady
            steadyDeadline = isSteady ? deadline() : nil
        }
    }

    /// Writes the output to `socket` (non-blocking) in rounds, each a gathered send of at most
    /// ``Socket/maxPieces`` pieces: the layers move output down before each round and after it, and
    /// rounds go on while output is left and each took all it was offered. Then the rounds are
    /// reported at `now` (``wroteRound(_:at:)``); a failed send fails the transport
    /// (``writeFailed(_:)``). With `socketIsWritable` false nothing is written, but the layers move
    /// output down and the stall is reported all the same.
    ///
    /// The usual output of a plain socket (the connection's own frames, nothing queued apart) goes
    /// out in one send of one piece, without assembling a gathered write.
    package mutating func writeOutput(to socket: Socket, at now: Connection.Instant, socketIsWritable: Bool) -> WriteRound {
        let layered = pipeline.hasLayers
        if !layered, socketIsWritable, pipeline.connection.pendingOutputIsContiguous {
            // One piece, one send: whether it took all or not, nothing is left to write this round.
            var wrote = 0
            var isFull = false
            var failed = false
            if pipeline.socketOutputCount > 0 {
                do throws(Errno) {
                    try pipeline.connection.withPendingOutput { (bytes: UnsafeRawBufferPointer) throws(Errno) -> Int in
                        wrote = try socket.writeSome(bytes)
                        if wrote < bytes.count { isFull = true }
                        return wrote
                    }
                } catch {
                    writeFailed(error)
                    failed = true
                }
            }
            wroteRound(wrote, at: now)
            // Neither full nor failed: the one piece, all there was, went out.
            let steady = !isFull && !failed && isSteady(plainAndWritten: true)
            return WriteRound(isFull: isFull, isSteady: steady, deadline: nextDeadline)
        }
        if layered { pipeline.update() }
        var wrote = 0
        var isFull = !socketIsWritable
        while !isFull, pipeline.socketOutputCount > 0 {
            do throws(Errno) {
                try pipeline.withSocketOutputPieces(upTo: Socket.maxPieces) {
                    (pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Errno) -> Int in
                    let written = try socket.writeSome(pieces: pieces)
                    var offered = 0
                    var index = 0
                    while index < pieces.count {
                        offered += pieces[index].count
                        index += 1
                    }
                    if written < offered { isFull = true }
                    wrote += written
                    return written
                }
            } catch {
                writeFailed(error)
                break
            }
            if layered { pipeline.update() }
        }
        wroteRound(wrote, at: now)
        let full = isFull && socketIsWritable
        let steady = !full && isSteady(plainAndWritten: false)
        return WriteRound(isFull: full, isSteady: steady, deadline: nextDeadline)
    }

    /// Whether the session has nothing for the adapter: open over a plain socket, its output all
    /// written, the connection idle and staying open, no action queued, no send waiting for room, no
    /// drain owed, no change of state to publish, nothing held by the consumer, no decision or pong
    /// awaited. The adapter's only step left is then to wait for the next read (and keep its
    /// timer): the steady state of a connection exchanging messages, checked in one call.
    ///
    /// `plainAndWritten`: the caller knows the socket is plain and all the output went out (its one
    /// piece written whole), two tests fewer (about 10 instructions per echoed message).
    @inline(__always)
    private mutating func isSteady(plainAndWritten: Bool) -> Bool {
        guard stage == .open, actionsStart == actions.count, pendingSends.isEmpty, !awaitingDrain,
              !stateMayHaveChanged, !inputEnded, !awaitingDecision, heldBytes == 0, heldMessages == 0,
              pingWaiters.isEmpty, !pipeline.hasFailed else { return false }
        if !plainAndWritten, pipeline.hasLayers || pipeline.connection.pendingOutputCount != 0 { return false }
        return pipeline.connection.transportDirective == .keepOpen && pipeline.connection.isAwaitingInput
    }

    /// Reports the time to the connection's timers. Call it before pulling actions after an input,
    /// and before a send, so that what they arm starts now.
    @inline(__always)
    package mutating func advanceTime(to now: Connection.Instant) {
        // Reported again and again within one turn of a loop (after a read, before each send), and
        // each time it counts: a timer an input started waits for the next report, even at the same
        // instant. With nothing due, the connection only stores the time.
        limits.report(now)
        pipeline.advanceTime(to: now)
    }

    /// The earliest instant at which ``timerFired(at:)`` has something to do.
    package var nextDeadline: Connection.Instant? {
        @inline(__always) mutating get {
            switch stage {
            case .resolving, .finished:
                return nil
            case .connecting:
                if case .connecting(let attempts) = phase { return attempts.deadline }
                return nil
            case .handshaking, .open:
                var deadline = pipeline.nextDeadline
                if let limit = limits.deadline, deadline.map({ limit < $0 }) ?? true { deadline = limit }
                guard let since = writeStalledSince, let timeout = settings.writeTimeout else { return deadline }
                let stall = since + timeout
                guard let deadline else { return stall }
                return stall < deadline ? stall : deadline
            }
        }
    }

    /// A deadline came: the connect timeout, a stalled write, the connection's timers, a server's
    /// lifetime and idle limits.
    package mutating func timerFired(at now: Connection.Instant) {
        switch phase {
        case .resolving, .finished:
            return
        case .connecting(let attempts):
            if let deadline = attempts.deadline, now >= deadline, abandonment == nil {
                abandonment = .timedOut(.connect)
            }
        case .handshaking, .open:
            if let since = writeStalledSince, let timeout = settings.writeTimeout, now >= since + timeout {
                pipeline.fail(.timedOut(.write))
            }
            advanceTime(to: now)
            enforceLimits(at: now)
        }
    }

    /// The consumer took `messages` messages with `bytes` of payload it was handed (a handler on
    /// another queue returned, an async reader took messages): reading may resume.
    package mutating func consumerTook(_ bytes: Int, messages: Int = 1) {
        heldBytes = max(0, heldBytes - bytes)
        heldMessages = max(0, heldMessages - messages)
    }

    // MARK: What the socket does

    /// Whether the socket should be read now: not before it is connected, nor while a server's
    /// decision on the request is pending (the connection would only buffer what comes), nor while
    /// the consumer holds ``TransportOptions/maxUndeliveredBytes`` or
    /// ``TransportOptions/maxUndeliveredMessages`` (TCP then slows the peer down).
    /// Once the connection is closed, what still arrives is read and discarded until the end.
    package var wantsInput: Bool {
        @inline(__always) mutating get {
            guard !inputEnded else { return false }
            switch stage {
            case .resolving, .connecting, .finished:
                return false
            case .handshaking, .open:
                if pipeline.hasFailed { return false }
                if pipeline.connection.transportDirective != .keepOpen { return true }
                if awaitingDecision { return false }
                return heldBytes < settings.maxHeldBytes && heldMessages < settings.maxHeldMessages
            }
        }
    }

    /// What the socket does next. While connecting it is ``ConnectionPipeline/SocketDirective/open``
    /// until the attempts fail, time out or are cancelled; then, as once connected, the pipeline's
    /// directive (RFC 6455 §7.1.1): stay open, shut down the sending side and drain, or close.
    package var socketDirective: ConnectionPipeline.SocketDirective {
        mutating get {
            switch stage {
            case .resolving, .connecting:
                return abandonment != nil ? .close : .open
            case .handshaking, .open:
                return pipeline.socketDirective
            case .finished:
                return .close
            }
        }
    }

    /// Whether the connection's state may have changed since the last call (for an adapter that
    /// publishes it to other threads, without computing it after every message).
    package mutating func takeStateChange() -> Bool {
        defer { stateMayHaveChanged = false }
        return stateMayHaveChanged
    }

    /// The adapter shut down the socket's sending side (after ``ConnectionPipeline/SocketDirective/shutDownWrite``).
    package mutating func didShutDownWrite() {
        pipeline.didShutDownWrite()
    }
}
