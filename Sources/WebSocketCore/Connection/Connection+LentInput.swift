// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Input the caller lends mutably for the duration of one call: frames are parsed where they lie, masked
// payloads unmasked in place, and whole messages lent to the caller from its own buffer. Only bytes no
// frame could use before the call returns (an incomplete frame's) are copied into the connection.

/// A whole message read in place: where its frame lies in the caller's buffer.
struct InPlaceFrame {
    /// The whole buffer the caller lent.
    let buffer: UnsafeMutableRawBufferPointer
    /// The index of the frame's first header byte in `buffer`.
    let frameStart: Int
    /// The payload's indices in `buffer`, unmasked.
    let payload: Range<Int>

    /// The payload.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[payload]) }
}

extension Connection {
    #if hasFeature(Embedded)
    /// As in full Swift (see the documentation there), with the error type of `body`: Embedded Swift
    /// has only typed throws.
    public mutating func receive<E: Error>(lending bytes: UnsafeMutableRawBufferPointer,
                                           _ body: (Connection.EventView) throws(E) -> Void) throws(E) {
        try receiveInPlace(bytes, pull: { (connection) throws(E) in try connection.lendNextEvent(body) },
                           lent: { (_, kind, frame) throws(E) in try body(kind == .text ? .text(frame.bytes) : .binary(frame.bytes)) })
    }
    #else
    /// Buffers nothing when it can: parses `bytes`, received from the peer, where they lie, and hands
    /// every event they make to `body` before returning, like ``nextEventView(_:)`` pulled until it
    /// returns `false`. A server's masked payloads are unmasked in place in `bytes` (which is why they
    /// are lent mutably), and whole messages are lent to `body` from `bytes` itself: no copy into the
    /// connection and no copy out of it. `bytes` is yours again when the call returns; its content is
    /// then unspecified.
    ///
    /// Bytes the call cannot parse before it returns are copied into the connection and parsed later,
    /// like ``receive(_:)-([UInt8])``'s: the start of a frame that continues in the next read, and
    /// anything after a handshake request that awaits your decision (pull events with
    /// ``nextEvent()`` once you have answered it). The opening handshake's head is read where it
    /// lies too: of a head cut by the end of `bytes`, the parser keeps what it needs (its current
    /// line, the fields read so far), not the bytes whole. A frame begun in earlier input is
    /// completed by copying the bytes it still needs, and the frames after it are read in place
    /// again. Bytes received after the peer's Close frame, or after the connection closed, are
    /// dropped as ``receive(_:)-([UInt8])`` drops them.
    ///
    /// ```swift
    /// // A SwiftNIO handler: `buffer` is the ByteBuffer the channel read.
    /// buffer.withUnsafeMutableReadableBytes { bytes in
    ///     connection.receive(lending: bytes) { view in
    ///         if case .binary(let payload) = view { store(payload) }
    ///     }
    /// }
    /// ```
    ///
    /// `body` receives events, not the connection: to answer a message with its own bytes, use
    /// ``receiveAndAnswer(lending:_:)``.
    public mutating func receive(lending bytes: UnsafeMutableRawBufferPointer,
                                 _ body: (Connection.EventView) throws -> Void) rethrows {
        // Not generic here, as for nextEventView: a caller in another module would run it unspecialized.
        try receiveInPlace(bytes, pull: { connection in try connection.lendNextEvent(body) },
                           lent: { _, kind, frame in try body(kind == .text ? .text(frame.bytes) : .binary(frame.bytes)) })
    }
    #endif

    /// ``receive(lending:_:)``, with every lent message answered as ``answerNextEvent(_:)`` answers it:
    /// an echo, or a part of the message, framed straight from `bytes` into the output.
    ///
    /// ```swift
    /// try connection.receiveAndAnswer(lending: bytes) { _ in .echo }
    /// socket.write(connection.takeOutput())
    /// ```
    ///
    /// - Throws: what ``answerNextEvent(_:)`` throws. The events before the one whose reply failed were
    ///   handed to `body`; the rest are kept (copied into the connection when they lie in `bytes`),
    ///   for ``nextEvent()`` or the next call.
    public mutating func receiveAndAnswer(lending bytes: UnsafeMutableRawBufferPointer,
                                          _ body: (Connection.EventView) -> Connection.LentReply) throws(Connection.UsageError) {
        try receiveInPlace(bytes, pull: { (connection) throws(Connection.UsageError) in try connection.answerNextEvent(body) },
                           lent: { (connection, kind, frame) throws(Connection.UsageError) in
            // Framed from the caller's bytes: a whole message is validated text already.
            let bytes = frame.bytes
            let reply = body(kind == .text ? .text(bytes) : .binary(bytes))
            try connection.sendReply(reply, to: kind, from: bytes, at: 0..<bytes.count)
        })
    }

    /// The loop of both: the inbox first (events queued, a frame begun earlier, a frame copied in
    /// below), then `bytes`, whole messages in place while they come, anything else copied into the
    /// inbox one frame at a time (or all the rest, when no whole frame is there), so that the general
    /// reader decides it exactly as it decides input received by copy.
    @inline(__always)
    mutating func receiveInPlace<E: Error>(_ bytes: UnsafeMutableRawBufferPointer,
                                                   pull: (inout Connection) throws(E) -> Bool,
                                                   lent: (inout Connection, Connection.MessageKind, InPlaceFrame) throws(E) -> Void)
        throws(E)
    {
        // Input that is no longer read (after the peer's Close, or the end) is dropped, as receive(_:)
        // drops it. A frame begun in earlier input is completed in the inbox with the bytes it still
        // needs, and the frames after it are read in place again (inboxPortion(of:)).
        var offset = acceptsInput ? 0 : bytes.count
        do throws(E) {
            try readInPlace(bytes, from: &offset, pull: pull, lent: lent)
        } catch {
            // The events not handed out yet are kept: what lies in `bytes` is copied in.
            if offset < bytes.count, acceptsInput { receive(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
            throw error
        }
    }

    /// The loop of ``receiveInPlace(_:pull:lent:)``; `offset` is how far `bytes` has been read.
    @inline(__always)
    private mutating func readInPlace<E: Error>(_ bytes: UnsafeMutableRawBufferPointer, from offset: inout Int,
                                                pull: (inout Connection) throws(E) -> Bool,
                                                lent: (inout Connection, Connection.MessageKind, InPlaceFrame) throws(E) -> Void)
        throws(E)
    {
        while true {
            if !isIdleReader { while try pull(&self) {} }
            guard offset < bytes.count, acceptsInput else { return }
            switch readWholeMessage(bytes, at: &offset) {
            case .message(let kind, let frame):
                try lent(&self, kind, frame)
            case .failed, .control:
                continue   // the events are queued: the next pull hands them out
            case .none:
                // A head is read where it lies too; anything else the frame reader leaves is copied.
                if !readHeadInPlace(UnsafeRawBufferPointer(bytes), at: &offset) { copyInboxPortion(of: bytes, at: &offset) }
            }
        }
    }

    /// Whether a pull would find nothing: no event queued, nothing in the inbox, and a frame reader
    /// waiting for a header. The steady state between whole messages read in place, checked here
    /// for less than the pull would cost to find out. Inlinable: an adapter asks it after the last
    /// message of each read and again in its steady-state check, where a call cost about 20
    /// instructions each time (callgrind, 100 connections echoing).
    @inlinable
    var isIdleReader: Bool {
        guard holdsNothingUnread, case .header = frame else { return false }
        return isReadingFrames
    }

    /// No event queued, no unread input, and the input not ended: what both idle tests
    /// (``isIdleReader``, ``isIdleOutsideFrames``) ask first, whatever the phase.
    @inlinable
    var holdsNothingUnread: Bool {
        eventsStart == events.count && inboxStart == inbox.count && !inputEnded
    }

    /// Whether the connection has parsed everything it was given and holds no event: pulling
    /// (``nextEvent()``, ``nextEventView(_:)``) would find nothing until more input comes. `false`
    /// whenever it may find something (also, conservatively, before the connection opens and once
    /// the peer's Close frame has arrived; after our own Close frame it still reads the peer's
    /// frames, and says so): then pull. An adapter that pulls after every call checks it first, as
    /// it costs less than a pull that finds nothing.
    @inlinable
    public var isAwaitingInput: Bool { isIdleReader }

    /// Whether a pull would find nothing in a phase that reads an HTTP head, or nothing at all (the
    /// opening handshake, the wait for a server's decision, the end): no event queued, no unread
    /// input, the input not ended. Such a phase changes only with input, a decision or the time,
    /// and each of those queues its events, so a pull then steps the head's reader over no bytes
    /// and finds nothing. `false` in the phases that read frames, where ``isAwaitingInput`` speaks.
    /// An adapter that pulls after every call checks both (`package`: the transport's session;
    /// ``isAwaitingInput``'s public answer stays as it is documented).
    @inlinable
    package var isIdleOutsideFrames: Bool {
        holdsNothingUnread && !isReadingFrames
    }

    /// Whether the phase reads frames (rather than an HTTP head, or nothing): decided with the rest
    /// of the phase's summary (``PhaseSummary/readsFrames``).
    @inlinable
    var isReadingFrames: Bool { phaseSummary.readsFrames }

    /// What ``readWholeMessage(_:at:)`` found.
    enum InPlaceMessage {
        /// A whole message, valid, unmasked where it lies.
        case message(Connection.MessageKind, InPlaceFrame)
        /// A whole text message that is not valid UTF-8: the connection failed.
        case failed
        /// A whole control frame, read where it lay (``readControlFrame(_:headerSize:_:at:)``): what
        /// it made is queued.
        case control
        /// Anything else, for the inbox.
        case none
    }

    /// The whole message that starts at `offset` of `bytes`, unmasked in place (the same decision as
    /// the inbox's whole-message path, ``wholeMessageLength(_:)``, and the same check of its text);
    /// `.none`, with `offset` unchanged, when the frame there is anything else or is not all there.
    mutating func readWholeMessage(_ bytes: UnsafeMutableRawBufferPointer, at offset: inout Int) -> InPlaceMessage {
        guard isReadingFrames, case .header = frame, inboxStart == inbox.count else { return .none }
        return readWholeMessageAtHeader(bytes, at: &offset)
    }

    /// ``readWholeMessage(_:at:)`` once its checks hold (frames read, a header next, the inbox
    /// empty: an idle reader's state). Inlined into the short pull, which has made those checks
    /// already: a call and three tests less per message.
    ///
    /// With `binaryTarget`, a binary message is unmasked as it is copied into that array (left
    /// holding exactly its payload), and its bytes in `bytes` are left as they came.
    ///
    /// Without `readingClose`, a Close frame is left where it is (`.none`): the short pulls leave it
    /// to the general pull, which an adapter may make with the time (``nextEventArmingFromLastReport(readingInPlace:from:)``),
    /// so that the timers the Close starts need no report of their own. Tested in the control
    /// frames' branch alone: a data message pays nothing for it.
    @inline(__always)
    mutating func readWholeMessageAtHeader(_ bytes: UnsafeMutableRawBufferPointer, at offset: inout Int,
                                           binaryTarget: UnsafeMutablePointer<[UInt8]>? = nil,
                                           readingClose: Bool = true) -> InPlaceMessage {
        let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])
        guard case .header(let header, let size) = FrameHeader.parse(UnsafeRawBufferPointer(rest)) else { return .none }
        guard let length = wholeMessageLength(header) else {
            guard header.opcodeValue & 0x8 != 0, readingClose || header.opcodeValue != 0x8 else { return .none }
            return readControlFrame(header, headerSize: size, bytes, at: &offset) ? .control : .none
        }
        guard rest.count - size >= length else { return .none }
        let frame = InPlaceFrame(buffer: bytes, frameStart: offset, payload: (offset + size)..<(offset + size + length))
        offset += size + length
        let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[frame.payload])
        let kind: Connection.MessageKind = header.opcodeValue == 2 ? .binary : .text
        if kind == .binary, let binaryTarget {
            // One pass over the payload, where unmasking in place and then copying made two.
            let key = header.maskingKey
            binaryTarget.pointee.overwriteAllBytes(count: length) { target in
                if let key {
                    key.applyInlined(from: UnsafeRawBufferPointer(payload), to: target, offset: 0)
                } else {
                    target.copyMemory(from: UnsafeRawBufferPointer(payload))
                }
            }
            return .message(kind, frame)
        }
        if let key = header.maskingKey { key.apply(to: payload, offset: 0) }
        // RFC 6455 §8.1: invalid UTF-8 fails the connection.
        if kind == .text, !Self.isWholeText(UnsafeRawBufferPointer(payload)) {
            _ = fail(Connection.ProtocolViolation(.invalidUTF8))
            return .failed
        }
        return .message(kind, frame)
    }

    /// The whole control frame that starts at `offset` of `bytes` (its header parsed: `headerSize`
    /// bytes), read where it lies: admitted as the inbox path admits it (``admit(_:)``), unmasked in
    /// place, and acted on as the inbox path acts on it once complete (the automatic pong, the
    /// pong's waiters, the closing handshake), what it makes queued. Through the inbox, a Close
    /// frame cost a connection a copy into the inbox, another into the control buffer (allocated for
    /// it) and the general reader's steps. `false`, with `offset` unchanged, when the frame is not all
    /// there or is refused: the inbox path then takes it, and fails the connection as it always has.
    private mutating func readControlFrame(_ header: FrameHeader, headerSize: Int, _ bytes: UnsafeMutableRawBufferPointer,
                                           at offset: inout Int) -> Bool {
        let start = offset + headerSize   // within `bytes`: the header was parsed from them
        // Compared as UInt64 before any conversion; once admitted, the length is at most 125.
        guard header.payloadLength <= UInt64(bytes.count - start),
              case .success(let control) = admit(header), control.opcode.isControl else { return false }
        // From here on the frame is consumed: nothing below returns `false`.
        let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + control.remaining)])
        offset = start + control.remaining
        if let key = control.maskingKey { key.apply(to: payload, offset: 0) }
        let step: Step
        switch control.opcode {
        case .ping: step = receivedPing(Array(payload))
        case .pong: step = receivedPong(Array(payload))
        default: step = receivedClose(Self.parseClosePayload(UnsafeRawBufferPointer(payload)))   // .close: the guard let only control opcodes through
        }
        if case .event(let event) = step { enqueue(event) }
        return true
    }

    /// Copies into the inbox what cannot be read in place at `offset` of `bytes` (``inboxPortion(of:)``),
    /// and moves `offset` past it.
    @inline(__always)
    mutating func copyInboxPortion(of bytes: UnsafeMutableRawBufferPointer, at offset: inout Int) {
        let count = inboxPortion(of: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        receive(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
        offset += count
    }

    /// How much of `rest` to copy into the inbox: the rest of the frame being read (or of a header
    /// begun in earlier input), or the frame `rest` starts with when that frame is all there (the
    /// frames after it may be read in place again); otherwise everything.
    ///
    /// `mutating` though it changes nothing: called from a mutating method, a non-mutating one was
    /// passed a copy of the whole connection (a retain of every reference it holds, about 900
    /// instructions), not the connection itself.
    mutating func inboxPortion(of rest: UnsafeRawBufferPointer) -> Int {
        guard isReadingFrames else { return rest.count }
        switch frame {
        case .payload(let inProgress):
            return min(inProgress.remaining, rest.count)
        case .header:
            let pending = inbox.count - inboxStart
            if pending > 0 {
                // A header begun in earlier input: the bytes it still needs (then its payload's, as
                // `.payload` above, once it is whole).
                let start = inboxStart
                let parsed = inbox.withUnsafeBytes { FrameHeader.parse(UnsafeRawBufferPointer(rebasing: $0[start...])) }
                guard case .needMore(let total) = parsed else { return rest.count }
                return min(max(1, total - pending), rest.count)
            }
            guard case .header(let header, let size) = FrameHeader.parse(rest),
                  header.payloadLength <= UInt64(rest.count - size) else { return rest.count }
            return size + Int(header.payloadLength)  // fits: at most rest.count
        }
    }
}
