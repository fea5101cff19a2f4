// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Input read in place, pulled one event at a time: the same reading as receive(lending:), with the
// caller's code running between events rather than inside the call. A lent message lies in the
// caller's buffer, not in the connection, so the caller may send on the connection (an echo, an
// answer) while it holds the view, and the answer goes out before a later frame is read.

extension Connection {
    /// Pulls the next event of `bytes`, received from the peer and read in place: call it with the
    /// same `bytes` and `offset` (start at 0) until it returns `nil`, then `bytes` is yours again.
    ///
    /// Like ``receive(lending:_:)``, whole messages are unmasked where they lie and lent as
    /// ``Connection/EventView/text(_:)`` or ``Connection/EventView/binary(_:)`` pointing into
    /// `bytes`; everything else (control frames, fragments, compressed messages, a frame the read
    /// cut) is copied into the connection and comes as ``Connection/EventView/other(_:)``, one event
    /// at a time, messages owned as ``nextEvent()`` returns them. The opening handshake's head (a
    /// server's request, a client's response) is parsed where it lies, not copied: of a head cut by
    /// the end of `bytes`, the parser keeps what it needs (its current line, the fields read so
    /// far), not the bytes whole. A view stays valid until you change `bytes`: between two calls the
    /// connection may be used freely (send, close, answer a handshake request), and what you send in
    /// answer to one event goes out before anything after it is read, as with ``nextEvent()``.
    ///
    /// `offset` is how far `bytes` has been read; `nil` means all of it has been (or was dropped, as
    /// ``receive(_:)-([UInt8])`` drops input after the peer's Close or the end) and no event is queued.
    ///
    /// ```swift
    /// var offset = 0
    /// while let view = connection.nextEvent(readingInPlace: buffer, from: &offset) {
    ///     if case .binary(let payload) = view { try connection.send(binary: payload) }  // an echo
    /// }
    /// ```
    public mutating func nextEvent(readingInPlace bytes: UnsafeMutableRawBufferPointer, from offset: inout Int) -> Connection.EventView? {
        while true {
            if !isIdleReader, let event = nextEvent() { return .other(event) }
            guard offset < bytes.count else { return nil }
            guard acceptsInput else {
                offset = bytes.count
                return nil
            }
            switch readWholeMessage(bytes, at: &offset) {
            case .message(let kind, let frame):
                return kind == .text ? .text(frame.bytes) : .binary(frame.bytes)
            case .failed, .control:
                continue   // the events are queued: the next pull hands them out
            case .none:
                // A head is read where it lies too; anything else the frame reader leaves is copied.
                if !readHeadInPlace(UnsafeRawBufferPointer(bytes), at: &offset) { copyInboxPortion(of: bytes, at: &offset) }
            }
        }
    }

    /// ``nextEvent(readingInPlace:from:)`` for an adapter that reported the time after reading
    /// `bytes` and pulls them within the same instant (an event loop, in the turn that read them):
    /// a timer that what this pull reads starts (the linger after a peer's Close, the close timer,
    /// the keepalive after a pong) arms from the last time reported instead of waiting for the
    /// next report, which that adapter would make at once and with the same instant. The timer then
    /// needs no report of its own: a server connection's closing handshake spent about 1,100
    /// instructions on that report (the timers' transition, and the adapter's pass around it).
    /// Only for the time of this call: timers started by anything else (a send, `close()`, an answer
    /// to a request) wait for the next report, as they always do.
    package mutating func nextEventArmingFromLastReport(readingInPlace bytes: UnsafeMutableRawBufferPointer,
                                                        from offset: inout Int) -> Connection.EventView? {
        armingTime = lastReportedTime
        defer { armingTime = nil }
        return nextEvent(readingInPlace: bytes, from: &offset)
    }

    /// The steady case of ``nextEvent(readingInPlace:from:)``, for an adapter that pulls message
    /// after message: the whole message at `offset`, unmasked where it lies and lent, when the
    /// connection holds no event and reads frames. `nil` when that pull would give anything else:
    /// with nothing read (a frame cut, fragmented or compressed, a closing connection), or with what
    /// was read queued as events (a control frame, a text that is not UTF-8); call it then, from the
    /// same `offset`. Same reading as that pull, with one check and one result fewer per message.
    public mutating func nextWholeMessage(readingInPlace bytes: UnsafeMutableRawBufferPointer,
                                          from offset: inout Int) -> (kind: Connection.MessageKind, payload: UnsafeRawBufferPointer)? {
        // An idle reader reads frames, holds no event and has not seen the end: it accepts input.
        guard isIdleReader, offset < bytes.count,
              case .message(let kind, let frame) = readWholeMessageAtHeader(bytes, at: &offset, readingClose: false) else { return nil }
        return (kind, frame.bytes)
    }

    /// ``nextWholeMessage(readingInPlace:from:)`` for a caller that hands binary messages on as
    /// arrays: a binary message is unmasked as it is copied into `binary`, which is left holding
    /// exactly its payload (its storage reused: pass the same array again once its last message is
    /// handed on, and a message of the same size costs no allocation), and its bytes in `bytes` stay
    /// as they came; a text message is unmasked in place and lent, as by that pull. Returns the kind
    /// and, for a text message, its payload (empty for a binary one). One pass over a binary
    /// payload, where unmasking in place and then copying make two.
    ///
    /// ```swift
    /// var message: [UInt8] = []
    /// var offset = 0
    /// while let (kind, text) = connection.nextWholeMessage(readingInPlace: buffer, from: &offset, binaryInto: &message) {
    ///     if kind == .binary { handle(message) } else { handle(String(decoding: text, as: UTF8.self)) }
    /// }
    /// ```
    public mutating func nextWholeMessage(readingInPlace bytes: UnsafeMutableRawBufferPointer, from offset: inout Int,
                                           binaryInto binary: inout [UInt8]) -> (kind: Connection.MessageKind, text: UnsafeRawBufferPointer)? {
        guard isIdleReader, offset < bytes.count else { return nil }
        let found = withUnsafeMutablePointer(to: &binary) { readWholeMessageAtHeader(bytes, at: &offset, binaryTarget: $0, readingClose: false) }
        guard case .message(let kind, let frame) = found else { return nil }
        return (kind, kind == .text ? frame.bytes : UnsafeRawBufferPointer(start: nil, count: 0))
    }
}
