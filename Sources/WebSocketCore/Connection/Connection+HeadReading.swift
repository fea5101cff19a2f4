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
    /// reads a head and finds `.idle` starts a fresh parser (see ``Connection/consumeHead()``), so
    /// nothing is made before the first byte of a head arrives. The box is written only while this
    /// connection holds the only reference to it (a copy of the connection shares it until one of
    /// the two reads on, which copies it first), so connections stay values.
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
    /// one (``Connection/consumeHead()`` reads a head's first bytes with a parser on the stack).
    ///
    /// `@unchecked Sendable`: it is written only through a unique reference (``consumeHead()``), so no
    /// two connections, or threads, ever share a box that changes. Its one access at a time is plain
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
    mutating func consumeHead() -> (outcome: HTTPHeadParser.Outcome, fields: HandshakeFields) {
        guard var box = headReading.take() else {
            // No byte of the head yet (an adapter asks for events before its first read): nothing
            // to read, and nothing made.
            if inboxStart == inbox.count { return (.needMore, HandshakeFields()) }
            var parser = HTTPHeadParser(kind: isClient ? .response : .request, limits: configuration.limits)
            var fields = HandshakeFields()
            let outcome = readHead(with: &parser, fields: &fields)
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
        let outcome = readHead(with: &box.parser, fields: &box.fields)
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

    /// Feeds the buffered input to `parser`, which hands the fields it checks to `fields`.
    @inline(__always)
    private mutating func readHead(with parser: inout HTTPHeadParser, fields: inout HandshakeFields) -> HTTPHeadParser.Outcome {
        let (consumed, outcome) = inbox.withUnsafeBytes { raw in
            parser.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]), fieldsTo: &fields)
        }
        inboxStart += consumed
        return outcome
    }
}
