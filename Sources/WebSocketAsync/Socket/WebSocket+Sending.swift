// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CWebSocketSystem
import WebSocketTransport

extension WebSocket {
    // MARK: Sending (every face)

    /// Queues a text message.
    ///
    /// On the socket's loop it is in the output buffer when this returns, written with everything
    /// else sent in answer to the same read. From another thread it is checked, then carried out on
    /// the loop (see "Sending" above).
    ///
    /// - Throws: ``WebSocketTransport/WebSocketError/bufferFull(bufferedAmount:)`` when ``bufferedAmount``
    ///   has reached ``highWaterMark`` (or async sends wait for room): nothing was queued; send again
    ///   after ``WebSocketTransport/WebSocketEvent/drained(bufferedAmount:)``. ``WebSocketTransport/WebSocketError/connection(_:)``
    ///   when the connection refuses it (not open yet, its Close sent, closed); the transport's
    ///   failure once one ended the connection.
    ///
    /// RFC 6455 §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public func send(text: String) throws(WebSocketError) {
        try route(.message(.text(text)))
    }

    /// Queues a binary message; see ``send(text:)``.
    @inlinable @inline(__always)  // specialized and inlined where called: no witness tables, one call into the socket
    public func send(binary: some Collection<UInt8>) throws(WebSocketError) {
        // Contiguous bytes (an array, a lent view) are sent as they lie; anything else is gathered
        // into an array first.
        if let result = binary.withContiguousStorageIfAvailable({ bytes in
            Result { () throws(WebSocketError) in try send(binaryBytes: UnsafeRawBufferPointer(bytes)) }
        }) {
            return try result.get()
        }
        let result = Array(binary).withUnsafeBytes { bytes in
            Result { () throws(WebSocketError) in try send(binaryBytes: bytes) }
        }
        try result.get()
    }

    /// ``send(binary:)`` of contiguous bytes.
    @usableFromInline
    func send(binaryBytes bytes: UnsafeRawBufferPointer) throws(WebSocketError) {
        if loop.inLoop {
            try sendMessageOnLoop { (session: inout SocketSession) throws(WebSocketError) in try session.send(binaryMessage: bytes) }
        } else {
            try submit(.message(.binary(Array(bytes))))
        }
    }

    /// Queues a message (whole, a fragment, a ping, a pong, or a Close frame that starts the closing
    /// handshake); see ``send(text:)``. From a handler, this echoes what arrived; in an async context
    /// the awaiting ``send(_:)`` is chosen, which waits for room instead of refusing.
    ///
    /// - Throws: as ``send(text:)``.
    public func send(_ message: WebSocketMessage) throws(WebSocketError) {
        try route(.message(message))
    }

    /// Queues one fragment of a message you stream yourself: the first call starts a message of
    /// `kind`, the one with `isFinal` ends it; pings and pongs may go between fragments. See
    /// ``send(text:)``.
    ///
    /// - Throws: as ``send(text:)``, and ``WebSocketCore/Connection/UsageError/invalidUTF8`` when text
    ///   fragments stop being valid UTF-8.
    ///
    /// RFC 6455 §5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-5.4>
    public func sendFragment(_ bytes: some Collection<UInt8>, kind: Connection.MessageKind, isFinal: Bool) throws(WebSocketError) {
        if loop.inLoop {
            try sendOnLoop(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.sendFragment(bytes, kind: kind, isFinal: isFinal)
            }
        } else {
            try submit(.message(.fragment(Connection.Fragment(kind: kind, bytes: Array(bytes), isFirst: false, isFinal: isFinal))))
        }
    }

    /// Sends a ping (at most 125 bytes) and returns at once; its pong arrives as a message when
    /// ``WebSocketTransport/TransportOptions/receivesControlFrames`` is on. To wait for the pong, use
    /// ``ping(_:timeout:)`` or ``ping(_:timeout:onPong:)``. See ``send(text:)``.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public func sendPing(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try route(.message(.ping(Array(payload))))
    }

    /// Sends an unsolicited pong (at most 125 bytes), or answers a ping yourself when automatic pongs
    /// are off. See ``send(text:)``.
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public func sendPong(_ payload: some Collection<UInt8> = [UInt8]()) throws(WebSocketError) {
        try route(.message(.pong(Array(payload))))
    }

    /// Starts the closing handshake and returns at once. The socket is closed when the handshake is
    /// over (a server half-closes and waits for the client; a client waits for the server to close
    /// TCP, RFC 6455 §7.1.1) or after ``WebSocketCore/Connection/Timeouts/close``, and then
    /// ``WebSocketTransport/WebSocketEvent/closed(_:)`` is reported. The async ``close(code:reason:)``
    /// also waits for the end and returns its status.
    ///
    /// - Parameters:
    ///   - code: a code that may be sent (RFC 6455 §7.4); default 1000.
    ///   - reason: at most 123 bytes of UTF-8.
    /// - Throws: ``WebSocketTransport/WebSocketError/connection(_:)``: ``WebSocketCore/Connection/UsageError/notOpen``
    ///   before the handshake completes (use ``cancel()``), ``WebSocketCore/Connection/UsageError/closeAlreadySent``,
    ///   an invalid code or reason.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    public func sendClose(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(WebSocketError) {
        try route(.message(.close(Connection.CloseFrame(code: code, reason: reason))))
    }

    /// Queues a message framed once for many connections (``WebSocketCore/Connection/PreparedMessage``):
    /// the connection's output adopts the prepared bytes when it is empty, with no copy. See
    /// ``send(text:)``; ``WebSocketServer/broadcast(_:)`` sends one to every open connection.
    ///
    /// - Throws: as ``send(text:)``, and ``WebSocketTransport/WebSocketError/connection(_:)`` with
    ///   ``WebSocketCore/Connection/UsageError/preparedFrameTooLarge(_:)`` for frames larger than the connection's
    ///   ``WebSocketCore/Connection/Configuration/fragmentationSize`` (prepare with the same size).
    public func send(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        try route(.prepared(prepared))
    }

    /// `item` put into the connection at once on the loop, checked and queued for it elsewhere.
    /// Inlined, with ``sendNow(_:)``, into the public calls: a handler's echo through `send(_:)`
    /// crossed three frames, and built and consumed the item, before the session's send.
    @inline(__always)
    private func route(_ item: OutgoingMessage) throws(WebSocketError) {
        if loop.inLoop { try sendNow(item) } else { try submit(item) }
    }

    // MARK: On the loop

    /// (On the loop) One call into the connection that queues output, with the time reported first
    /// unless it sends data while open (a control frame may start a timer, which counts from the
    /// time last reported, and so may the end of a message once the peer's Close came; data while
    /// open starts none, and reporting a new time costs a pass through the connection's timers).
    @inline(__always)
    func sendOnLoop(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void) throws(WebSocketError) {
        sendOutboxFirst()
        if isData { reportTimeUnlessOpen() } else { session.advanceTime(to: loop.now) }
        try session.perform(isData: isData, body)
        markDirty()
    }

    /// ``sendOnLoop(isData:_:)`` of a whole message, through the session's own sending call
    /// (`send(binaryMessage:)`, `send(textMessage:)`): the connection is called from the session's
    /// module, where its checks inline, not through a closure from this one.
    @inline(__always)
    func sendMessageOnLoop(_ send: (inout SocketSession) throws(WebSocketError) -> Void) throws(WebSocketError) {
        sendOutboxFirst()
        reportTimeUnlessOpen()
        try send(&session)
        markDirty()
    }

    /// (On the loop) Reports the time before data is sent, unless the connection is open: see
    /// ``sendOnLoop(isData:_:)``.
    @inline(__always)
    func reportTimeUnlessOpen() {
        if !peek({ $0.pipeline.connection.isOpen }) { session.advanceTime(to: loop.now) }
    }

    /// (On the loop) Puts `item` into the connection, after the sends other threads queued before.
    /// A whole text or binary message takes the path of ``send(text:)`` and ``send(binary:)``: the
    /// echo of what arrived, which the handler's and the async face's `send(_:)` make, costs no more.
    @inline(__always)
    func sendNow(_ item: OutgoingMessage) throws(WebSocketError) {
        switch item {
        case .message(.text(let text)):
            try sendMessageOnLoop { (session: inout SocketSession) throws(WebSocketError) in try session.send(textMessage: text) }
        case .message(.binary(let bytes)):
            try send(binary: bytes)
        default:
            sendOutboxFirst()
            try put(item)
        }
    }

    /// (On the loop) Starts the closing handshake as `close` does: after the sends other threads
    /// queued before, and behind the messages waiting for room (RFC 6455 §5.5.1). For the server's
    /// own closes (a stop with a code), which have no one to report a refusal to.
    func startClosing(_ frame: Connection.CloseFrame) {
        sendOutboxFirst()
        session.advanceTime(to: loop.now)
        try? session.close(code: frame.code, reason: frame.reason, completion: nil)
        markDirty()
    }

    /// (On the loop) Sends made on other threads before this one (their calls returned) go first,
    /// as the order of the calls says, even when the loop has not carried them out yet.
    @inline(__always)
    func sendOutboxFirst() {
        if cwebsocket_atomic_load_long(outboxWaiting) != 0 { sendOutbox() }
    }

    /// (On the loop) Puts `item` into the connection, the time reported first as in `sendOnLoop`.
    private func put(_ item: OutgoingMessage) throws(WebSocketError) {
        if !item.isData || !peek({ $0.pipeline.connection.isOpen }) { session.advanceTime(to: loop.now) }
        if case .message(let message) = item, startsClosing(message) {
            // Queued now, or (refused for room) behind the data that waits: closing either way.
            shared.withLock { $0.closeStartedHere = true }
        }
        try session.send(item)
        markDirty()
    }

    // MARK: From other threads

    /// Checks `item` against the state and buffered amount the loop published (what the connection
    /// would refuse in that state, and what it refuses in any state: a bad close code, a control
    /// payload over 125 bytes), and queues it for the loop; the first item of a burst asks the loop
    /// to carry the queue out.
    private func submit(_ item: OutgoingMessage) throws(WebSocketError) {
        let buffered = cwebsocket_atomic_load_long(publishedBufferedAmount)
        let isData = item.isData
        let mustSchedule = try shared.withLock { (shared) throws(WebSocketError) -> Bool in
            if let failure = shared.transportFailure { throw failure }
            // Data while open, the common case, is never refused for the state.
            if case .open = shared.state, isData {
            } else if let refusal = shared.state.refusal(of: item) {
                throw .connection(refusal)
            }
            // What waits for room counts too: otherwise sends from here would join it without bound
            // while the buffer sits between the two marks.
            let queued = buffered + shared.waitingBytes + shared.outboxBytes
            if isData, queued >= highWaterMark {
                shared.drainWanted = true
                throw .bufferFull(bufferedAmount: queued)
            }
            shared.outboxBytes += item.byteCount
            return shared.queue(.send(item), outboxWaiting: outboxWaiting)
        }
        if mustSchedule { loop.submit(.visit(self)) }
    }

    /// Queues an awaited ping from another thread behind the sends made before it, and before those
    /// made after it (a command of its own could be overtaken by sends joining a visit already
    /// asked for).
    func submitPing(_ payload: [UInt8]?, timeout: Duration?, onPong: @escaping @Sendable (Result<Duration, WebSocketError>) -> Void) {
        let mustSchedule = shared.withLock { $0.queue(.ping(payload, timeout, onPong), outboxWaiting: outboxWaiting) }
        if mustSchedule { loop.submit(.visit(self)) }
    }

    /// (On the loop) Carries out what other threads left for the loop: the sends queued (see
    /// `sendOutbox`), and what the queue's handlers took.
    func visit() {
        sendOutbox()
        act()
        markDirty()
    }

    /// (On the loop) Puts the sends queued by other threads into the connection, in order, and takes
    /// note of what the queue's handlers took. A send the connection refuses for room waits for it,
    /// as an async send would; one it refuses otherwise (it closed meanwhile) is dropped. Delivers
    /// nothing: a handler may be running.
    func sendOutbox() {
        let (drainWanted, tookBytes, tookMessages) = shared.withLock { shared in
            swap(&shared.outbox, &outboxTaken)
            defer {
                shared.outboxBytes = 0
                shared.visitScheduled = false
                shared.drainWanted = false
                shared.tookBytes = 0
                shared.tookMessages = 0
                cwebsocket_atomic_store_long(outboxWaiting, 0)
            }
            return (shared.drainWanted, shared.tookBytes, shared.tookMessages)
        }
        defer { outboxTaken.removeAll(keepingCapacityUpTo: Self.keptCapacity) }
        let isFinished = peek { $0.isFinished }
        if !isFinished {
            if tookMessages > 0 { consumerTook(tookBytes, messages: tookMessages) }
            if drainWanted { peek { $0.expectDrain() } }
        }
        for request in outboxTaken {
            switch request {
            case .send(let item):
                // Once ended, sends are dropped, as documented.
                guard !isFinished else { continue }
                do throws(WebSocketError) {
                    try put(item)
                } catch .bufferFull {
                    _ = peek { $0.sendOrWait(item) { _ in } }
                } catch {
                    // Closed meanwhile: dropped, as documented.
                }
            case .ping(let payload, let timeout, let onPong):
                // Answered even once ended (with how it ended).
                queuePing(payload, timeout: timeout, onPong: onPong)
            }
        }
    }
}

/// What another thread asked of a socket's loop, in the order of the calls.
enum OffLoopRequest {
    case send(OutgoingMessage)
    /// An awaited ping with its callback (``WebSocket/ping(_:timeout:onPong:)``).
    case ping([UInt8]?, Duration?, @Sendable (Result<Duration, WebSocketError>) -> Void)
}

extension WebSocket.Shared {
    /// Adds `request` to the outbox; whether the loop must be asked to visit.
    mutating func queue(_ request: OffLoopRequest, outboxWaiting: UnsafeMutablePointer<Int>) -> Bool {
        outbox.append(request)
        cwebsocket_atomic_store_long(outboxWaiting, 1)
        defer { visitScheduled = true }
        return !visitScheduled
    }
}
