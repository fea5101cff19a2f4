// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// What ``answerNextEvent(_:)`` sends back, made of the lent message's own bytes.
    public enum LentReply: Sendable, Hashable {
        /// Nothing.
        case none
        /// The message back as it came: the same kind, every byte.
        case echo
        /// The bytes at `range` of the lent payload (clamped to it), as a binary message.
        case binary(Range<Int>)
        /// The bytes at `range` of the lent payload (clamped to it), as a text message; validated as
        /// UTF-8 unless it is the whole of a text message, which was validated when it arrived.
        case text(Range<Int>)
    }

    /// Pulls the next event as ``nextEventView(_:)`` does, and sends what `body` returns for a lent
    /// message, made of that message's bytes, before they are released: an echo, a forwarded part,
    /// with no copy out of the connection (``nextEventView(_:)``'s closure cannot send on the
    /// connection that lends). For other events (``Connection/EventView/other(_:)``) the reply is
    /// ignored. Returns `false` (without calling `body`) when more input is needed.
    ///
    /// ```swift
    /// while try connection.answerNextEvent({ view in
    ///     if case .other(let event) = view { log(event) }
    ///     return .echo
    /// }) {}
    /// ```
    ///
    /// - Throws: what ``send(binary:compress:)`` throws for the reply (the event was pulled and
    ///   handed to `body` already), and ``Connection/UsageError/invalidUTF8`` for a `.text` range
    ///   that is not valid UTF-8.
    public mutating func answerNextEvent(_ body: (Connection.EventView) -> Connection.LentReply) throws(Connection.UsageError) -> Bool {
        try pullLending(other: { (event: Connection.Event) throws(Connection.UsageError) in _ = body(.other(event)) },
                        lent: { (connection: inout Connection, kind: Connection.MessageKind, payload: LentPayload)
                            throws(Connection.UsageError) in try connection.answerLent(kind, payload, body) })
    }

    /// Hands a lent message to `body` and sends its reply.
    @inline(__always)
    mutating func answerLent(_ kind: Connection.MessageKind, _ payload: LentPayload,
                             _ body: (Connection.EventView) -> Connection.LentReply) throws(Connection.UsageError) {
        let reply = withLentBytes(payload) { (bytes) -> Connection.LentReply in
            body(kind == .text ? .text(bytes) : .binary(bytes))
        }
        try sendReply(reply, to: kind, lentIn: payload)
    }

    /// Sends `reply` from the lent payload. Its storage is read through a local reference to the same
    /// array (framing never touches the input, the message buffer or the
    /// scratch buffer), so the bytes go into the frame without an intermediate copy.
    private mutating func sendReply(_ reply: Connection.LentReply, to kind: Connection.MessageKind,
                                    lentIn payload: LentPayload) throws(Connection.UsageError) {
        let storage: [UInt8]
        let lent: Range<Int>
        switch payload {
        case .inbox(let range):
            storage = inbox
            lent = range
        case .messageBuffer:
            storage = messageBuffer
            lent = 0..<messageBuffer.count
        case .scratch(let count):
            storage = lendScratch
            lent = 0..<count
        }
        let result = storage.withUnsafeBytes { raw in
            Result { () throws(Connection.UsageError) in try sendReply(reply, to: kind, from: raw, at: lent) }
        }
        try result.get()
    }

    /// Sends `reply` from the lent payload at `lent` of `storage` (for bytes the caller lent, all of
    /// them: their storage is the caller's, so no exclusivity is to be kept with the output).
    mutating func sendReply(_ reply: Connection.LentReply, to kind: Connection.MessageKind,
                            from storage: UnsafeRawBufferPointer, at lent: Range<Int>) throws(Connection.UsageError) {
        guard let resolved = Self.resolve(reply, to: kind, lent: lent) else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: storage[resolved.part])
        if resolved.kind == .text, !resolved.validated {
            try sendUTF8Text(bytes, compress: true)
        } else {
            try sendMessage(resolved.kind, bytes, compress: true)
        }
    }

    /// What a reply sends: a message of `kind` made of the bytes at `part` (indices of the storage the
    /// lent payload lies in), `validated` when they are known to be valid UTF-8 already.
    struct ResolvedReply {
        let kind: Connection.MessageKind
        let part: Range<Int>
        let validated: Bool
    }

    /// `reply` to a lent message of `kind` at `lent`, resolved; `nil` for `.none`.
    @inline(__always)
    static func resolve(_ reply: Connection.LentReply, to kind: Connection.MessageKind, lent: Range<Int>) -> ResolvedReply? {
        switch reply {
        case .none:
            return nil
        case .echo:
            // A whole text message was validated when it arrived.
            return ResolvedReply(kind: kind, part: lent, validated: true)
        case .binary(let range):
            return ResolvedReply(kind: .binary, part: part(range, of: lent), validated: true)
        case .text(let range):
            let part = part(range, of: lent)
            return ResolvedReply(kind: .text, part: part, validated: kind == .text && part == lent)
        }
    }

    /// `range`, relative to the lent payload, clamped to it, as indices of the storage it lies in.
    static func part(_ range: Range<Int>, of lent: Range<Int>) -> Range<Int> {
        let count = lent.count
        let lower = min(max(range.lowerBound, 0), count)
        let upper = min(max(range.upperBound, lower), count)
        return (lent.lowerBound + lower)..<(lent.lowerBound + upper)
    }
}
