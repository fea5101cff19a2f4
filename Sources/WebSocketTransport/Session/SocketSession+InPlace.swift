// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// What ``SocketSession/nextAction(readingInPlace:from:)`` pulls: an action, or a whole message lent
/// from the bytes read.
package enum InPlaceAction {
    /// A whole message, unmasked where it lies in the bytes read: valid until the adapter reuses
    /// them. Hand it on as it is (a lent face), or as an owned message with
    /// ``SocketSession/deliver(lent:_:)``.
    case message(Connection.MessageKind, UnsafeRawBufferPointer)
    /// What ``SocketSession/nextAction()`` would return.
    case action(SessionAction)
}

extension SocketSession {
    /// Whether bytes read from the socket may be read in place, with
    /// ``nextAction(readingInPlace:from:)``: no transport layer between the socket and the
    /// connection (a TLS layer's decoded bytes are its own), and the connection open. The opening
    /// handshake is read by copy: read in place, a client's second connection in a row
    /// (`websocket connect --reconnect`, ConnectReconnectTests) once hung about once in eight runs on
    /// the `poll(2)` backend; tried again later, it did not hang in 52 runs, and the cause was never
    /// found. A handshake is read once per connection, so the copy costs nothing on the echo path.
    package var readsInPlace: Bool {
        @inline(__always) get {
            switch stage {
            // (A PROXY header, when one is expected, is settled before the opening handshake can end.)
            case .open: return !pipeline.hasLayers
            case .handshaking, .resolving, .connecting, .finished: return false
            }
        }
    }

    /// Whether the opening handshake's head (a server's request, a client's response) may be read
    /// where it lies in the read buffer (``ConnectionPipeline/receive(readingHeadFrom:)``), only
    /// what follows it copied: no transport layer, and no PROXY header awaited. Read by copy, every
    /// head allocated an inbox that the connection's life then never needed (about 450
    /// instructions per connection). The bytes are then taken, not read in place: the pulls after
    /// them are the general ones, which a handshake needs (the short pull, tried first on bytes
    /// read in place, cost more than the copy saved).
    var readsHeadWhereItLies: Bool {
        stage == .handshaking && !pipeline.hasLayers && !awaitsProxyHeader
    }

    /// ``nextAction()`` for bytes read from the socket and lent mutably, read where they lie
    /// (``WebSocketCore/Connection/nextEvent(readingInPlace:from:)``): call it with the same `bytes`
    /// and `offset` (from 0) until it returns `nil`, acting on each result before pulling the next.
    /// Only while ``readsInPlace``; the time is reported before the first call, as after
    /// ``received(_:)``, and every call is made in that same instant (the loop's turn that read
    /// `bytes`): the timers that what it reads starts arm from that report
    /// (``WebSocketCore/Connection/nextEventArmingFromLastReport(readingInPlace:from:)``).
    ///
    /// Whole messages come as ``InPlaceAction/message(_:_:)``, lent, not yet counted as held by the
    /// consumer; everything else as ``nextAction()`` makes it.
    package mutating func nextAction(readingInPlace bytes: UnsafeMutableRawBufferPointer, from offset: inout Int) -> InPlaceAction? {
        let next = nextInPlace(bytes, from: &offset)
        // Counted here, not where the message is found: a read of `meter` inside the loop over the
        // connection's views made the compiler copy the whole session per message (callgrind,
        // 100 connections echoing 256 B: 3,579 -> 8,484 instructions per echo; 3,707 counted here).
        if case .message? = next, let meter { meter.countMessageReceived() }
        return next
    }

    /// The steady case of ``nextAction(readingInPlace:from:)``: the whole message at `offset`, lent
    /// (``WebSocketCore/Connection/nextWholeMessage(readingInPlace:from:)``), when nothing comes
    /// before it. `nil` when that pull has anything else to give: make it then, from the same
    /// `offset`. With the core's short pull, about 85 instructions less per message than the
    /// general pull (callgrind, echoes read by the event loop).
    package mutating func nextMessage(readingInPlace bytes: UnsafeMutableRawBufferPointer,
                                      from offset: inout Int) -> (kind: Connection.MessageKind, payload: UnsafeRawBufferPointer)? {
        guard shortPullBegins(at: offset),
              let message = pipeline.connection.nextWholeMessage(readingInPlace: bytes, from: &offset) else { return nil }
        if let meter { meter.countMessageReceived() }
        return message
    }

    /// ``nextMessage(readingInPlace:from:)`` for an adapter that hands binary messages out as
    /// arrays: a binary message's payload is unmasked straight into `binary`
    /// (``WebSocketCore/Connection/nextWholeMessage(readingInPlace:from:binaryInto:)``), then handed
    /// out with ``deliver(binary:)``; a text message is lent as by that pull (its payload comes
    /// back, empty for a binary message).
    package mutating func nextMessage(readingInPlace bytes: UnsafeMutableRawBufferPointer, from offset: inout Int,
                                      binaryInto binary: inout [UInt8]) -> (kind: Connection.MessageKind, text: UnsafeRawBufferPointer)? {
        guard shortPullBegins(at: offset),
              let message = pipeline.connection.nextWholeMessage(readingInPlace: bytes, from: &offset, binaryInto: &binary)
        else { return nil }
        if let meter { meter.countMessageReceived() }
        return message
    }

    /// Whether the short pull may read at `offset` (nothing queued before it, bytes read in place,
    /// the pipeline alive), and if so the read's start reported.
    @inline(__always)
    private mutating func shortPullBegins(at offset: Int) -> Bool {
        guard actionsStart == actions.count, readsInPlace, !pipeline.hasFailed else { return false }
        readBegins(at: offset)
        return true
    }

    @inline(__always)
    private mutating func nextInPlace(_ bytes: UnsafeMutableRawBufferPointer, from offset: inout Int) -> InPlaceAction? {
        if actionsStart < actions.count { return .action(takeQueuedAction()) }
        guard readsInPlace, !pipeline.hasFailed else {
            // Nothing more is read (the socket closed while a handler ran, or a transport failure
            // aborted the connection): the rest is dropped, as the pipeline drops it.
            offset = bytes.count
            return takeOwedEnding().map { .action($0) }
        }
        readBegins(at: offset)
        // The time was reported when `bytes` were read, and the adapter pulls them in that same
        // instant: what they start (the linger after a Close) arms from that report.
        while let view = pipeline.connection.nextEventArmingFromLastReport(readingInPlace: bytes, from: &offset) {
            switch view {
            case .text(let payload): return .message(.text, payload)
            case .binary(let payload): return .message(.binary, payload)
            case .other(let event):
                if let action = act(on: event) { return .action(action) }
                if actionsStart < actions.count { return .action(takeQueuedAction()) }
            }
        }
        collectPingOutcomes()
        if actionsStart < actions.count { return .action(takeQueuedAction()) }
        return nil
    }

    /// (A pull at `offset` of bytes read in place) A new read, the time reported just before it,
    /// is input for the idle limit; either pull may be the read's first.
    @inline(__always)
    private mutating func readBegins(at offset: Int) {
        if offset == 0 { limits.received(at: limits.lastReport) }
    }

    /// Whether a pull (``nextAction()``, or ``nextAction(readingInPlace:from:)`` at the end of the
    /// bytes read) would find nothing: no action queued, no awaited ping to settle, and a connection
    /// that has parsed everything and holds no event. An adapter checks it after handing out the
    /// read's last message, instead of making that pull (about 100 instructions per echoed message).
    package var hasNothingToPull: Bool {
        actionsStart == actions.count && pingWaiters.isEmpty
            && (pipeline.connection.isAwaitingInput || pipeline.connection.isIdleOutsideFrames)
    }

    /// A lent binary message as the consumer's event, its bytes copied into `storage`: an adapter
    /// that gets the array back once the consumer is done with it (as it was handed out, bytes and
    /// all) passes it in again, and the next message costs no allocation while the consumer kept no
    /// copy. The array is resized to the message, not emptied first: a message of the last one's
    /// size only overwrites its bytes (emptying an `Array` goes through `replaceSubrange`, about 80
    /// instructions per message).
    package mutating func deliver(lentBinary payload: UnsafeRawBufferPointer, reusing storage: consuming [UInt8]) -> SessionAction {
        var bytes = storage
        bytes.replaceAllBytes(with: payload)
        return deliver(.binary(bytes))
    }

    /// A binary message the adapter already holds as an array (``nextMessage(readingInPlace:from:binaryInto:)``),
    /// as the consumer's event (counted as held when the consumer holds what it is handed).
    package mutating func deliver(binary bytes: consuming [UInt8]) -> SessionAction {
        deliver(.binary(bytes))
    }

    /// A lent message as the consumer's event, copied once into the message (and counted as held
    /// when the consumer holds what it is handed).
    package mutating func deliver(lent kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer) -> SessionAction {
        switch kind {
        case .text: return deliver(.text(String(decoding: payload, as: UTF8.self)))
        case .binary: return deliver(.binary(Array(payload)))
        }
    }
}
