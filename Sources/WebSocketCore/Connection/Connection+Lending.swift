// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Lending payloads: whole messages handed to the caller as pointers into the inbox or the message
// buffer for the duration of a call, so that steady-state reading allocates nothing.

extension Connection {
    /// An event whose message payload is lent for the duration of a call, not copied: see
    /// ``Connection/nextEventView(_:)``.
    public enum EventView {
        /// A whole text message: its bytes, already validated as UTF-8.
        case text(UnsafeRawBufferPointer)
        /// A whole binary message.
        case binary(UnsafeRawBufferPointer)
        /// Any other event, as ``Connection/nextEvent()`` returns it.
        case other(Connection.Event)
    }
}

/// Where a lent payload lies.
enum LentPayload {
    case inbox(Range<Int>)
    case messageBuffer
    /// The first bytes of `lendScratch`.
    case scratch(Int)
}

extension Connection {
    #if hasFeature(Embedded)
    /// As in full Swift (see the documentation there), with the error type of `body`: Embedded Swift
    /// has only typed throws.
    public mutating func nextEventView<E: Error>(_ body: (Connection.EventView) throws(E) -> Void) throws(E) -> Bool {
        try lendNextEvent(body)
    }
    #else
    /// Pulls the next event like ``nextEvent()``, but lends whole messages' payloads to `body` instead
    /// of copying them into a `String` or an array: no allocation per message in steady state. The
    /// pointer is valid only during `body`. Returns `false` (without calling `body`) when more input is
    /// needed.
    ///
    /// Messages arrive as ``Connection/EventView/text(_:)`` and ``Connection/EventView/binary(_:)``; everything else,
    /// including fragments in ``Connection/Delivery/fragments`` mode, as ``Connection/EventView/other(_:)``.
    ///
    /// ```swift
    /// while try connection.nextEventView({ view in
    ///     if case .binary(let bytes) = view { try file.write(bytes) }
    /// }) {}
    /// ```
    public mutating func nextEventView(_ body: (Connection.EventView) throws -> Void) rethrows -> Bool {
        // Not generic here: a caller in another module would run an unspecialized generic (the
        // runtime's metadata lookups cost more than the rest of the call).
        try lendNextEvent(body)
    }
    #endif

    /// ``nextEventView(_:)``, with the error type of `body` (Embedded Swift has only typed throws).
    @inline(__always)
    mutating func lendNextEvent<E: Error>(_ body: (Connection.EventView) throws(E) -> Void) throws(E) -> Bool {
        try pullLending(other: { (event) throws(E) in try body(.other(event)) }, lent: { (connection, kind, payload) throws(E) in
            try connection.withLentBytes(payload) { (bytes) throws(E) in try body(kind == .text ? .text(bytes) : .binary(bytes)) }
        })
    }

    /// The loop of ``nextEventView(_:)`` and ``answerNextEvent(_:)``: pulls the next event, hands a
    /// whole message to `lent` where it lies (released after it returns) and anything else to `other`.
    /// Returns `false` when more input is needed.
    @inline(__always)
    mutating func pullLending<E: Error>(other: (Connection.Event) throws(E) -> Void,
                                        lent: (inout Connection, Connection.MessageKind, LentPayload) throws(E) -> Void)
        throws(E) -> Bool
    {
        lendsPayloads = true
        defer { lendsPayloads = false }
        while true {
            if let event = dequeueEvent() {
                try other(event)
                return true
            }
            switch step() {
            case .event(let event):
                try other(event)
                return true
            case .lent(let kind, let payload):
                defer { releaseLent(payload) }
                try lent(&self, kind, payload)
                return true
            case .progress:
                continue
            case .needInput:
                guard let event = dequeueEvent() else { return false }
                try other(event)
                return true
            }
        }
    }

    /// Calls `body` with the bytes of a lent payload.
    @inline(__always)
    func withLentBytes<R, E: Error>(_ payload: LentPayload, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        // The arrays' `withUnsafeBytes` rethrow untyped errors, which Embedded Swift does not have:
        // the closure's outcome crosses them as a `Result` instead.
        let outcome: Result<R, E>
        switch payload {
        case .inbox(let range):
            outcome = inbox.withUnsafeBytes { raw in
                Result { () throws(E) -> R in
                    try body(UnsafeRawBufferPointer(start: raw.baseAddress.map { $0 + range.lowerBound }, count: range.count))
                }
            }
        case .messageBuffer:
            outcome = messageBuffer.withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        case .scratch(let count):
            outcome = lendScratch.withUnsafeBytes { raw in
                Result { () throws(E) -> R in try body(UnsafeRawBufferPointer(start: raw.baseAddress, count: count)) }
            }
        }
        return try outcome.get()
    }

    /// A lent message as an owned event.
    func ownedEvent(_ kind: Connection.MessageKind, _ payload: LentPayload) -> Connection.Event {
        let bytes: [UInt8]
        switch payload {
        case .inbox(let range): bytes = Array(inbox[range])
        case .messageBuffer: bytes = messageBuffer
        case .scratch(let count): bytes = Array(lendScratch[0..<count])
        }
        return kind == .text ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(bytes)
    }

    /// After lending: small buffers are kept for the next message (no allocation per message); large
    /// ones are released, so that one big message does not pin its memory for the life of the
    /// connection.
    mutating func releaseLent(_ payload: LentPayload) {
        switch payload {
        case .inbox:
            break
        case .messageBuffer:
            if messageBuffer.capacity <= Self.eagerReservation {
                messageBuffer.removeAll(keepingCapacity: true)
            } else {
                messageBuffer = []
            }
        case .scratch:
            if lendScratch.capacity > Self.eagerReservation { lendScratch = [] }
        }
    }
}
