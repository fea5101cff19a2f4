// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A message on its way into a connection: one to frame, or one framed once for many.
package enum OutgoingMessage: Sendable {
    case message(WebSocketMessage)
    case prepared(Connection.PreparedMessage)

    /// A message, not a control frame: what waits behind async sends for room.
    package var isData: Bool {
        switch self {
        case .message(let message): return message.isData
        case .prepared: return true
        }
    }

    /// Whether it queues behind the sends that wait for room; see ``WebSocketMessage/waitsBehindSends``.
    package var waitsBehindSends: Bool {
        switch self {
        case .message(let message): return message.waitsBehindSends
        case .prepared: return true
        }
    }

    /// The payload bytes it holds.
    package var byteCount: Int {
        switch self {
        case .message(let message): return message.payloadSize
        case .prepared(let prepared): return prepared.payloadCount
        }
    }
}

/// An async send waiting for buffer room.
struct PendingSend: Sendable {
    var id: UInt64
    var message: OutgoingMessage
    var completion: SessionCompletion<Void>
}

extension SocketSession {
    // MARK: Sending

    /// Queues `message` in the connection, or refuses it; nothing else changes when refused.
    ///
    /// - Throws: the transport's failure, once one ended the connection;
    ///   ``WebSocketError/bufferFull(bufferedAmount:)`` at the high-water mark,
    ///   or for a message or a Close while async sends wait for room (neither overtakes them), after which a
    ///   ``WebSocketEvent/drained(bufferedAmount:)`` follows; ``WebSocketError/connection(_:)`` for
    ///   what the connection refuses in its state.
    package mutating func send(_ message: WebSocketMessage) throws(WebSocketError) {
        try perform(isData: message.waitsBehindSends, countsMessage: message.isData) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(message)
        }
        if case .close = message { stateMayHaveChanged = true }
    }

    /// Queues a message framed once for many connections; see ``send(_:)``.
    package mutating func send(_ prepared: Connection.PreparedMessage) throws(WebSocketError) {
        try perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(prepared)
        }
    }

    /// Queues either kind of message; see ``send(_:)``.
    package mutating func send(_ outgoing: OutgoingMessage) throws(WebSocketError) {
        switch outgoing {
        case .message(let message): try send(message)
        case .prepared(let prepared): try send(prepared)
        }
    }

    /// One call into the connection that queues output (`isData`: a message, which waits behind
    /// async sends), with the refusals and the high-water mark of every adapter.
    package mutating func perform(isData: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void)
        throws(WebSocketError)
    {
        try perform(isData: isData, countsMessage: isData, body)
    }

    /// ``perform(isData:_:)`` of a whole binary message, the adapters' echo: the call into the
    /// connection is written here, where `perform` is inlined with it, instead of coming as a closure
    /// from the adapter's module (two closure contexts and their calls per message sent).
    package mutating func send(binaryMessage bytes: UnsafeRawBufferPointer) throws(WebSocketError) {
        try perform(isData: true, countsMessage: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(binary: bytes)
        }
    }

    /// ``send(binaryMessage:)`` for text.
    package mutating func send(textMessage text: String) throws(WebSocketError) {
        try perform(isData: true, countsMessage: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(text: text)
        }
    }

    /// ``perform(isData:_:)``, counting a message sent when `countsMessage` (a Close waits behind
    /// data but is no message). Inlined: a call more per echo showed in its instruction count.
    @inline(__always)
    mutating func perform(isData: Bool, countsMessage: Bool, _ body: (inout Connection) throws(Connection.UsageError) -> Void)
        throws(WebSocketError)
    {
        // A transport failure says more than the connection's refusal once closed; after the end,
        // the connection refuses (not open, or its Close already sent).
        if pipeline.hasFailed, let failure = pipeline.failure { throw failure }
        if isData, !pendingSends.isEmpty {
            awaitingDrain = true
            throw .bufferFull(bufferedAmount: pipeline.pendingOutputCount)
        }
        do throws(Connection.UsageError) {
            try body(&pipeline.connection)
        } catch .outputBufferFull {
            awaitingDrain = true
            throw .bufferFull(bufferedAmount: pipeline.pendingOutputCount)
        } catch {
            throw .connection(error)
        }
        if countsMessage { meter?.countMessageSent() }
        if pipeline.connection.pendingOutputCount >= settings.highWaterMark { awaitingDrain = true }
    }

    /// Queues `message` now if there is room and nothing waits before it, otherwise keeps it (with
    /// `completion`) until the buffer falls to the low-water mark. `completion` is resumed once the
    /// message is queued, or with why it never will be. Returns the wait's identifier when it waits
    /// (for ``cancelPendingSend(_:)``).
    @discardableResult
    package mutating func sendOrWait(_ message: OutgoingMessage, completion: @escaping SessionCompletion<Void>) -> UInt64? {
        if pendingSends.isEmpty || !message.waitsBehindSends {
            do throws(WebSocketError) {
                try send(message)
                resume(completion, .success(()))
                return nil
            } catch .bufferFull {
                // Waits below.
            } catch {
                resume(completion, .failure(error))
                return nil
            }
        }
        awaitingDrain = true
        nextPendingSendID &+= 1
        pendingSends.append(PendingSend(id: nextPendingSendID, message: message, completion: completion))
        return nextPendingSendID
    }

    /// Queues `message` now, or keeps it until there is room; see ``sendOrWait(_:completion:)-(OutgoingMessage,_)``.
    @discardableResult
    package mutating func sendOrWait(_ message: WebSocketMessage, completion: @escaping SessionCompletion<Void>) -> UInt64? {
        sendOrWait(.message(message), completion: completion)
    }

    /// Gives up a send waiting for room (its task was cancelled): it is not sent, and its completion
    /// is resumed with ``WebSocketError/cancelled``. Nothing happens when it was sent already.
    package mutating func cancelPendingSend(_ id: UInt64) {
        guard let index = pendingSends.firstIndex(where: { $0.id == id }) else { return }
        let send = pendingSends.remove(at: index)
        resume(send.completion, .failure(.cancelled))
    }

    /// Whether async sends wait for room.
    package var hasPendingSends: Bool { !pendingSends.isEmpty }

    /// After output was written: once the buffer is back at the low-water mark, queues the waiting
    /// sends in order, then reports the drain (``WebSocketEvent/drained(bufferedAmount:)``).
    package mutating func outputDrained() {
        // A failed transport drained nothing (its output was dropped): the end answers the waiters.
        guard awaitingDrain, !pipeline.hasFailed, pipeline.pendingOutputCount <= settings.lowWaterMark else { return }
        awaitingDrain = false
        while let first = pendingSends.first {
            do throws(WebSocketError) {
                switch first.message {
                case .message(let message):
                    try perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                        try connection.send(message)
                    }
                case .prepared(let prepared):
                    try perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                        try connection.send(prepared)
                    }
                }
                pendingSends.removeFirst()
                resume(first.completion, .success(()))
            } catch .bufferFull {
                return
            } catch {
                pendingSends.removeFirst()
                resume(first.completion, .failure(error))
            }
        }
        if !awaitingDrain { queue(.deliver(.drained(bufferedAmount: pipeline.pendingOutputCount))) }
    }

    /// The drain must be reported even though no send was refused here (one refused elsewhere, by
    /// a check made off the adapter's thread).
    package mutating func expectDrain() {
        awaitingDrain = true
    }

    // MARK: Closing

    /// Starts the closing handshake (unless it has started) and resumes `completion` with how the
    /// connection ended, once the socket is closed. While async sends wait for room, the Close
    /// waits behind them (RFC 6455 §5.5.1: nothing is sent after it).
    ///
    /// - Throws: ``WebSocketError/connection(_:)`` for a code or reason that may not be sent, or
    ///   before the connection opened; nothing is queued then.
    package mutating func close(code: Connection.CloseCode, reason: String,
                                completion: SessionCompletion<Connection.CloseStatus>?) throws(WebSocketError) {
        do throws(Connection.UsageError) {
            // A bad code or reason is refused even when a close is under way already, or over.
            try Connection.CloseFrame(code: code, reason: reason).checkSendable()
        } catch {
            throw .connection(error)
        }
        if case .finished(let ending) = phase {
            if let completion { resume(completion, ending.closeResult) }
            return
        }
        do throws(Connection.UsageError) {
            switch pipeline.connection.state {
            case .closing(initiatedBy: .local), .closed:
                break  // under way already: wait for it
            case .open where !pendingSends.isEmpty:
                // Data handed over before the Close still waits for room: the Close goes after it.
                nextPendingSendID &+= 1
                let close = OutgoingMessage.message(.close(Connection.CloseFrame(code: code, reason: reason)))
                pendingSends.append(PendingSend(id: nextPendingSendID, message: close, completion: { _ in }))
            case .connecting, .open, .closing(initiatedBy: .remote):
                try pipeline.connection.close(code: code, reason: reason)
            }
        } catch {
            throw .connection(error)
        }
        stateMayHaveChanged = true
        if let completion { closeWaiters.append(completion) }
    }
}

extension Connection.State {
    /// What a call to send `message` gets in this state, as the core's permission table says
    /// (docs/architecture.md), with the checks of the message itself that do not depend on the
    /// connection (a control payload over 125 bytes, a close code that may not be sent): for a check
    /// made from the published state alone, away from the thread that owns the connection. `nil`
    /// when the connection would take it (it may still refuse for room).
    package func refusal(of message: WebSocketMessage) -> Connection.UsageError? {
        do throws(Connection.UsageError) {
            switch message {
            case .text, .binary:
                try checkPermission(continuesAfterPeersClose: false)
            case .fragment(let fragment):
                // After the peer's Close the connection waits for the rest of our unfinished message.
                try checkPermission(continuesAfterPeersClose: !fragment.isFirst)
            case .ping(let payload), .pong(let payload):
                try checkPermission(continuesAfterPeersClose: true)
                try Connection.checkControlPayload(count: payload.count)
            case .close(let frame):
                try frame.checkSendable()
                try checkPermission(continuesAfterPeersClose: true)
            }
            return nil
        } catch {
            return error
        }
    }

    /// What a call to send `outgoing` gets in this state; see ``refusal(of:)-(WebSocketMessage)``.
    package func refusal(of outgoing: OutgoingMessage) -> Connection.UsageError? {
        switch outgoing {
        case .message(let message):
            return refusal(of: message)
        case .prepared:
            do throws(Connection.UsageError) {
                try checkPermission(continuesAfterPeersClose: false)
                return nil
            } catch {
                return error
            }
        }
    }

    /// The permission table by state: nothing before the connection opens; nothing after our Close;
    /// after the peer's Close only control frames and our Close (its reply); once closed, nothing.
    private func checkPermission(continuesAfterPeersClose: Bool) throws(Connection.UsageError) {
        switch self {
        case .connecting: throw .notOpen
        case .open: return
        case .closing(initiatedBy: .local): throw .closeAlreadySent
        case .closing(initiatedBy: .remote): if !continuesAfterPeersClose { throw .closeAlreadySent }
        case .closed(let status): throw status.wasClean ? .closeAlreadySent : .notOpen
        }
    }
}
