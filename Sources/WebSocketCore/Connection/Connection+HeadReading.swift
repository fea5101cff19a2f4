// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The opening handshake's head parser, held only while a head is being read.
    ///
    /// Why boxed: a connection lives on long after its head is read, and a parser inline (216 bytes)
    /// was carried by every open connection of a server for nothing. Boxed, an open connection holds
    /// one empty case, and a connection reading its head one reference to a parser on the heap.
    ///
    /// Invariants: `.reading` only in the phases that read a head (a client awaiting its response, a
    /// server awaiting its request), and only until that head is read; `.idle` otherwise. A phase that
    /// reads a head and finds `.idle` starts a fresh parser (see
    /// ``Connection/consumeHead(lent:consumed:)``), so nothing is made before the first byte of a
    /// head arrives. The box is written only while this connection holds the only reference to it
    /// (a copy of the connection shares it until one of the two reads on, which copies it first),
    /// so connections stay values.
    enum HeadReading: Sendable {
        case idle
        case reading(HeadParserBox)

        /// Bytes held for the head so far (0 when idle).
        var retainedByteCount: Int {
            guard case .reading(let box) = self else { return 0 }
            return box.parser.retainedByteCount
        }

        /// The box, taken out: `self` is left idle, so the caller's reference is the enum's only one.
        mutating func take() -> HeadParserBox? {
            guard case .reading(let box) = self else { return nil }
            self = .idle
            return box
        }
    }

    /// A head parser on the heap, changed in place. An indirect case's box, the parser copied out of
    /// it and back on every read, made a handshake cost 730 to 800 instructions more than the parser
    /// inline; this one costs 200 to 250 (its allocation), and only a head cut across reads takes
    /// one (``Connection/consumeHead(lent:consumed:)`` reads a head's first bytes with a parser on
    /// the stack).
    ///
    /// `@unchecked Sendable`: it is written only through a unique reference
    /// (``Connection/consumeHead(lent:consumed:)``), so no two connections, or threads, ever share a
    /// box that changes. Its one access at a time is plain
    /// (`@exclusivity(unchecked)`): checked at run time, the accesses cost about 330
    /// instructions per handshake (the access set is thread-local), and no access here overlaps another.
    ///
    /// The box also holds the fields the handshake reads, which the parser hands over line by line
    /// as it checks them (``HandshakeFields``): in the box they cost no allocation of their own, and
    /// the parser stays as small as it was.
    final class HeadParserBox: @unchecked Sendable {
        @exclusivity(unchecked) var parser: HTTPHeadParser
        @exclusivity(unchecked) var fields: HandshakeFields
        init(_ parser: HTTPHeadParser, fields: HandshakeFields = HandshakeFields()) {
            self.parser = parser
            self.fields = fields
        }
    }

    /// The head parser in use, if a head is being read (for tests: its work and memory counters).
    var headParser: HTTPHeadParser? {
        guard case .reading(let box) = headReading else { return nil }
        return box.parser
    }

    /// Feeds the buffered input to the head parser; it consumes up to the end of the head at most.
    /// A head read whole ends the parser (the connection keeps what the head said, not how it was
    /// read); a head still incomplete, or refused, keeps it for the next call. With the outcome, the
    /// fields the handshake reads, gathered as the parser checked them.
    ///
    /// A head's first bytes are read by a parser on the stack, boxed only when the head goes on in
    /// a later read (or was refused: the box repeats the outcome): a head that comes whole in one
    /// read, as nearly every one does, costs no box (its allocation and free, and the fields'
    /// move out of it, about 500 instructions per handshake).
    ///
    /// With `lent`, the parser reads those bytes instead, where they lie (the inbox holds nothing:
    /// ``readHeadInPlace(_:at:)``), and `consumed` says how many it took; the rest of a head cut by
    /// their end is the parser's own by then, as with the inbox.
    mutating func consumeHead(lent: UnsafeRawBufferPointer?, consumed: inout Int) -> (outcome: HTTPHeadParser.Outcome, fields: HandshakeFields) {
        guard var box = headReading.take() else {
            // No byte of the head yet (an adapter asks for events before its first read): nothing
            // to read, and nothing made.
            if lent?.isEmpty ?? (inboxStart == inbox.count) { return (.needMore, HandshakeFields()) }
            var parser = HTTPHeadParser(kind: isClient ? .response : .request, limits: configuration.limits)
            var fields = HandshakeFields()
            let outcome = readHead(with: &parser, fields: &fields, lent: lent, consumed: &consumed)
            switch outcome {
            case .needMore, .failure:
                headReading = .reading(HeadParserBox(parser, fields: fields))
                #if DEBUG
                headParserBoxesMade &+= 1
                #endif
            case .request, .response:
                break
            }
            return (outcome, fields)
        }
        // Shared with a copy of this connection: this one reads on in a copy of its own.
        if !isKnownUniquelyReferenced(&box) {
            box = HeadParserBox(box.parser, fields: box.fields)
            #if DEBUG
            headParserBoxesMade &+= 1
            #endif
        }
        let outcome = readHead(with: &box.parser, fields: &box.fields, lent: lent, consumed: &consumed)
        switch outcome {
        case .needMore, .failure:
            headReading = .reading(box)
            return (outcome, box.fields)
        case .request, .response:
            // The box ends here: its fields are moved out, not copied (a copy retained every
            // string they hold, and the box's end released them again).
            var fields = HandshakeFields()
            swap(&fields, &box.fields)
            return (outcome, fields)
        }
    }

    /// Feeds `lent`, or else the buffered input, to `parser`, which hands the fields it checks to
    /// `fields`; what it took of `lent` goes in `consumed`.
    @inline(__always)
    private mutating func readHead(with parser: inout HTTPHeadParser, fields: inout HandshakeFields,
                                   lent: UnsafeRawBufferPointer?, consumed: inout Int) -> HTTPHeadParser.Outcome {
        if let lent {
            let (taken, outcome) = parser.consume(lent, fieldsTo: &fields)
            consumed = taken
            return outcome
        }
        let (taken, outcome) = inbox.withUnsafeBytes { raw in
            parser.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]), fieldsTo: &fields)
        }
        inboxStart += taken
        return outcome
    }

    /// (In-place reading, at `offset` of `bytes`) Reads the head there, where it lies, when the
    /// phase reads one and the inbox holds nothing before it: the bytes it takes are neither copied
    /// into the inbox nor kept, but what a head cut by their end needs (the parser's current line,
    /// the fields so far). `false`, and nothing read, otherwise. What the head makes (the request
    /// to decide on, the handshake's end, a refusal) is queued as events; what follows it stays at
    /// `offset` for the next read (frames in place, or copied while a decision is awaited).
    ///
    /// Copied first, every server connection's request allocated an inbox that its life then never
    /// needed: about 450 instructions per connection (the copy, and the storage's `malloc` and
    /// `free`).
    ///
    /// The bytes are only read: a head is not unmasked (``receive(readingHeadFrom:)`` lends them
    /// immutably).
    mutating func readHeadInPlace(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Bool {
        // The summary first: a frame cut by the end of a read comes here, and leaves at once.
        guard !isReadingFrames, inboxStart == inbox.count, !inputEnded else { return false }
        switch phase {
        case .serverAwaitingRequest, .clientAwaitingResponse: break
        case .clientReadingRejection, .serverAwaitingDecision, .open, .closingLocally, .closingRemotely, .closed: return false
        }
        var consumed = 0
        let step = stepHandshake(lent: UnsafeRawBufferPointer(rebasing: bytes[offset...]), consumed: &consumed)
        offset += consumed
        // A head's step queues what it makes (``progress(_:)``) and never lends a payload.
        if case .event(let event) = step { enqueue(event) }
        return true
    }

    /// Takes `bytes`, received from the peer, as ``receive(_:)-(UnsafeRawBufferPointer)`` does, but
    /// reads a head at their start where it lies (``readHeadInPlace(_:at:)``) and copies only what
    /// follows it: for an adapter that reports the time after a read and then pulls at once (the
    /// transport's session, whose connections read their head this way). The head is
    /// parsed now rather than at the next pull, which the caller makes before anything else can
    /// tell the difference; `receive(_:)`'s own contract (bytes buffered, parsed when pulled) stays
    /// as documented.
    package mutating func receive(readingHeadFrom bytes: UnsafeRawBufferPointer) {
        guard acceptsInput else { return }
        var offset = 0
        if readHeadInPlace(bytes, at: &offset), offset == bytes.count { return }
        receive(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }
}
