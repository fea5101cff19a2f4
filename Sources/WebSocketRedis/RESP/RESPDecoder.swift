// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An incremental, bounded decoder of RESP2 and RESP3, the protocol of a Redis server's replies and
/// pushes: fed bytes as they arrive, it gives the values they hold one at a time.
///
/// ```swift
/// var decoder = RESPDecoder()
/// decoder.feed(bytesReadFromTheSocket)
/// while let value = try decoder.next() {     // nil: the rest of a value is still to come
///     handle(value)
/// }
/// ```
///
/// Every size a server announces is checked against ``Limits`` as soon as its line is complete,
/// before the decoder waits for (and so holds) the bytes it announces: a bulk string's length, an
/// aggregate's element count, the nesting depth, and the bytes of one whole value. A line (a simple
/// string, an error, a number, a length) must end within ``Limits/maxLineLength`` bytes. Aggregates
/// are read with an explicit stack, never by recursion, so no nesting a server sends can exhaust the
/// thread's stack. The same values come out however the bytes are split, and no byte sequence traps.
///
/// CRLF is required exactly: a CR without an LF, or an LF alone, fails (the specification terminates
/// every part with `\r\n`). Attributes (`|`) are read and skipped: the value they annotate comes out
/// alone. RESP3's streamed strings and aggregates (`$?`, `*?`: lengths not known in advance) are not
/// supported: they fail as ``RESPError/Code/invalidLength``. After an error the decoder fails again on
/// every call (a stream that went wrong once has no boundary to resume at), and holds nothing.
///
/// Specification: <https://github.com/redis/redis-specifications/blob/master/protocol/RESP3.md>
public struct RESPDecoder: Sendable {
    /// What a server may make the decoder hold.
    public struct Limits: Sendable, Hashable {
        /// The longest bulk string, bulk error or verbatim string, in bytes. Default 16 MiB + 64 KiB:
        /// what the backplane relays is a WebSocket message, whose default limit
        /// (`Limits.maxMessageSize`) is 16 MiB, in an envelope of its own; Redis's own limit
        /// (`proto-max-bulk-len`) is 512 MB, more than one connection should hold for a peer.
        public var maxBulkLength: Int
        /// The most elements of one array, set or push, or entries of one map or attribute. Default
        /// 1,048,576, Redis's own `proto-max-multibulk-len`: the count costs nothing until its elements
        /// arrive (the decoder reserves no memory for it), and ``maxValueBytes`` bounds what they hold.
        public var maxElementCount: Int
        /// How deeply aggregates may nest: the top-level aggregate is 1. Default 32: Redis's replies
        /// nest a few levels (a map of arrays of maps), and a peer cannot make the decoder keep more
        /// than this many partial aggregates.
        public var maxDepth: Int
        /// The longest line: a simple string, error, integer, double, big number, or length, without
        /// its CRLF. Default 64 KiB: Redis's error messages and status lines are short, and a line is
        /// held whole until its CRLF arrives.
        public var maxLineLength: Int
        /// The most bytes of one top-level value, with its elements and any attributes before it.
        /// Default 64 MiB: a few maximal bulk strings, while an aggregate of many small elements (each
        /// at least 3 bytes on the wire, and a few dozen in memory) stays bounded.
        public var maxValueBytes: Int

        /// Limits, by default those above. Values below 1 count as 1 (0 for ``maxBulkLength``).
        public init(maxBulkLength: Int = (16 << 20) + (64 << 10), maxElementCount: Int = 1 << 20, maxDepth: Int = 32,
                    maxLineLength: Int = 64 << 10, maxValueBytes: Int = 64 << 20) {
            self.maxBulkLength = max(0, maxBulkLength)
            self.maxElementCount = max(1, maxElementCount)
            self.maxDepth = max(1, maxDepth)
            self.maxLineLength = max(1, maxLineLength)
            self.maxValueBytes = max(1, maxValueBytes)
        }
    }

    enum Kind: Sendable {
        case array, map, set, push, attribute
    }

    /// An aggregate being read: what it still needs, and what it has.
    struct Frame: Sendable {
        var kind: Kind
        var remaining: Int
        var elements: [RESPValue]
    }

    /// What one line (and, for a bulk type, its bytes) amounts to.
    enum Item {
        case value(RESPValue)
        case aggregate(Kind, count: Int)
    }

    /// The limits this decoder enforces.
    public let limits: Limits
    /// Bytes fed and not yet consumed start at `readIndex`.
    var buffer: [UInt8] = []
    var readIndex = 0
    /// Where the search for the current line's CR resumes: the bytes between the line's start and it
    /// hold neither CR nor LF, so that bytes fed one at a time are looked at once each.
    var scanIndex = 0
    /// The stream offset of `buffer[0]`, for errors.
    var streamOffset = 0
    var stack: [Frame] = []
    /// Bytes consumed for the top-level value being read.
    var valueBytes = 0
    var failure: RESPError?
    /// Bytes looked at in search of a line's end (for tests: bytes fed one at a time must cost no more
    /// than fed at once).
    var scannedByteCount = 0

    /// A decoder with the given limits. Limits set through the properties are brought into range here
    /// as ``Limits/init(maxBulkLength:maxElementCount:maxDepth:maxLineLength:maxValueBytes:)`` does,
    /// and none counts above `Int.max / 4`, so that no sum of an announced size and a header can
    /// overflow however large a limit is chosen.
    public init(limits: Limits = Limits()) {
        let ceiling = Int.max / 4
        self.limits = Limits(maxBulkLength: min(limits.maxBulkLength, ceiling),
                             maxElementCount: min(limits.maxElementCount, ceiling), maxDepth: limits.maxDepth,
                             maxLineLength: min(limits.maxLineLength, ceiling), maxValueBytes: min(limits.maxValueBytes, ceiling))
    }

    /// Bytes fed and not yet part of a value given out, or of the aggregates being read (for tests
    /// and fuzzers: after `next()` returns `nil`, less than one line or one bulk string).
    @_spi(Testing) public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Bytes consumed for the value being read, aggregates and attributes included (for tests and
    /// fuzzers: never above ``Limits/maxValueBytes``).
    @_spi(Testing) public var pendingValueBytes: Int { valueBytes }

    /// How many aggregates are open (for tests and fuzzers: never above ``Limits/maxDepth``).
    @_spi(Testing) public var depth: Int { stack.count }

    /// Whether bytes of an incomplete value are held: at the end of a stream, a value cut short.
    public var hasPartialValue: Bool { failure == nil && (readIndex < buffer.count || !stack.isEmpty) }

    /// Adds the next bytes of the stream. Nothing is decoded until ``next()``.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds the next bytes of the stream, as the `UnsafeRawBufferPointer` variant does.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ feed(UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { feed($0) }
        }
    }

    /// The next complete value, or `nil` when the bytes fed so far end inside one (feed more).
    ///
    /// - Throws: ``RESPError`` when the bytes are not RESP or exceed a limit; every later call throws
    ///   the same error.
    public mutating func next() throws(RESPError) -> RESPValue? {
        if let failure { throw failure }
        do throws(RESPError) {
            return try step()
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            scanIndex = 0
            stack = []
            throw error
        }
    }

    /// Drops consumed bytes once they are at least half the buffer, so that the copy they cost is paid
    /// for by as many bytes consumed.
    private mutating func compact() {
        guard readIndex > 0, readIndex * 2 >= buffer.count else { return }
        buffer.removeSubrange(0..<readIndex)
        streamOffset += readIndex
        scanIndex -= readIndex
        readIndex = 0
    }

    private mutating func step() throws(RESPError) -> RESPValue? {
        values: while true {
            guard let item = try readItem() else { return nil }
            var value: RESPValue
            switch item {
            case .value(let scalar):
                value = scalar
            case .aggregate(let kind, let count):
                if count > 0 {
                    let remaining = kind == .map || kind == .attribute ? 2 * count : count
                    var elements: [RESPValue] = []
                    // The count is the peer's word: reserve a little, and let the elements grow it.
                    elements.reserveCapacity(min(remaining, 16))
                    stack.append(Frame(kind: kind, remaining: remaining, elements: elements))
                    continue values
                }
                if kind == .attribute { continue values }
                value = Self.aggregate(kind, [])
            }
            while !stack.isEmpty {
                let top = stack.count - 1
                stack[top].elements.append(value)
                stack[top].remaining -= 1
                if stack[top].remaining > 0 { continue values }
                let frame = stack.removeLast()
                // RESP3: an attribute annotates the value after it and is not an element of its own.
                if frame.kind == .attribute { continue values }
                value = Self.aggregate(frame.kind, frame.elements)
            }
            valueBytes = 0
            return value
        }
    }

    private static func aggregate(_ kind: Kind, _ elements: [RESPValue]) -> RESPValue {
        switch kind {
        case .array: return .array(elements)
        case .set: return .set(elements)
        case .push: return .push(elements)
        case .map, .attribute:
            var entries: [RESPValue.MapEntry] = []
            entries.reserveCapacity(elements.count / 2)
            var index = 0
            while index + 1 < elements.count {
                entries.append(RESPValue.MapEntry(key: elements[index], value: elements[index + 1]))
                index += 2
            }
            return .map(entries)
        }
    }
}
