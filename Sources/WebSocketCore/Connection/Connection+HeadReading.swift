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
    /// Invariant: `.reading` only in the phases that read a head (a client awaiting its response, a
    /// server awaiting its request), and only until that head is read; `.idle` otherwise. A phase that
    /// reads a head and finds `.idle` starts a fresh parser (see ``Connection/consumeHead()``), so
    /// nothing is made before the first byte of a head arrives.
    enum HeadReading: Sendable {
        case idle
        indirect case reading(HTTPHeadParser)

        /// Bytes held for the head so far (0 when idle).
        var retainedByteCount: Int {
            guard case .reading(let parser) = self else { return 0 }
            return parser.retainedByteCount
        }
    }

    /// The head parser in use, if a head is being read (for tests: its work and memory counters).
    var headParser: HTTPHeadParser? {
        guard case .reading(let parser) = headReading else { return nil }
        return parser
    }

    /// Feeds the buffered input to the head parser; it consumes up to the end of the head at most.
    /// A head read whole ends the parser (the connection keeps what the head said, not how it was
    /// read); a head still incomplete, or refused, keeps it for the next call.
    mutating func consumeHead() -> HTTPHeadParser.Outcome {
        var parser: HTTPHeadParser
        if case .reading(let held) = headReading {
            parser = held
            // Released first, so that the parser's buffers are its alone and grow in place.
            headReading = .idle
        } else {
            parser = HTTPHeadParser(kind: isClient ? .response : .request, limits: configuration.limits)
        }
        let (consumed, outcome) = inbox.withUnsafeBytes { raw in
            parser.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]))
        }
        inboxStart += consumed
        switch outcome {
        case .needMore, .failure: headReading = .reading(parser)
        case .request, .response: break
        }
        return outcome
    }
}
