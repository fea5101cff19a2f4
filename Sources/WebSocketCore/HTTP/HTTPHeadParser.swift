// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An incremental, bounded, linear-time parser for the head of an HTTP/1.1 request or response
/// (RFC 9112 §2-§5): the start line and the header fields, up to the empty line.
///
/// Why incremental and linear: the head arrives in pieces of any size, and a parser that re-scans
/// everything it holds on every read does quadratic work when a peer trickles bytes one at a time
/// (tungstenite's CVE-2023-43669). This parser looks at each byte once as it arrives, keeps only the
/// state of the current line between calls, and parses each line exactly once when its terminator
/// arrives; the work is proportional to the size of the head however it is split.
///
/// Why bounded: every limit of ``Connection/Limits`` is checked before the byte that would exceed it is stored,
/// so a 1 MiB header line or 10,000 header fields cost no more memory than the limits allow.
///
/// The parser never consumes past the empty line that ends the head: what follows (the first frames
/// after a 101, or a refusal's body) stays with the caller.
struct HTTPHeadParser: Sendable {
    enum Kind: Sendable { case request, response }

    enum Outcome: Sendable, Equatable {
        /// The head is not complete yet; every byte given was consumed.
        case needMore
        case request(Connection.HTTPRequestHead)
        case response(Connection.HTTPResponseHead)
        /// The head is invalid or exceeds a limit; the connection cannot continue.
        case failure(Connection.HandshakeError)
    }

    private enum Phase: Sendable {
        /// Before the start line, where empty lines are skipped (RFC 9112 §2.2).
        case leadingEmptyLines
        case startLine
        case fields
    }

    /// The three of ``Connection/Limits`` that bound a head, kept alone (24 bytes, where all the limits
    /// were 72): the parser is made for every connection's head (``Connection/HeadReading``).
    struct HeadLimits: Sendable {
        let maxHeaderBytes: Int
        let maxRequestLineLength: Int
        let maxHeaderCount: Int
    }

    let kind: Kind
    let limits: HeadLimits

    private var phase = Phase.leadingEmptyLines
    /// The bytes of the current line so far, without its terminator.
    private var line: [UInt8] = []
    /// The previous byte was a CR, so this one must be LF.
    private var sawCR = false
    /// Every byte of the head seen so far, terminators and skipped empty lines included.
    private var headBytes = 0
    private var fieldCount = 0
    /// UTF-8 bytes of the names and values parsed so far, as strings made of them would hold them
    /// (an invalid sequence repaired to U+FFFD, three bytes).
    private var storedFieldBytes = 0
    /// Line buffers up to this capacity are kept between lines.
    static let retainedLineCapacity = 1024
    /// The start line, once parsed: a request's or a response's (one or the other, by ``kind``).
    private enum StartLine: Sendable {
        case request(HTTPLineParser.RequestLine)
        case status(HTTPLineParser.StatusLine)
    }
    private var startLine: StartLine?
    private var fields = HTTPFieldLines()
    /// The final outcome, once there is one; later calls return it and consume nothing.
    private var result: Outcome?

    #if DEBUG
    // Counters that only the tests read, so only debug builds (where `swift test` runs) keep them:
    // a release build carries nothing test-only.
    /// The number of bytes ever stored in the line buffer (for tests: it stays within the limits).
    private(set) var storedByteCount = 0
    /// Work done so far, in bytes examined by the scanner plus bytes handed to the line parser (for
    /// tests: it grows linearly with the input however the input is split).
    private(set) var workCount = 0
    #endif

    init(kind: Kind, limits: Connection.Limits) {
        self.kind = kind
        self.limits = HeadLimits(maxHeaderBytes: limits.maxHeaderBytes, maxRequestLineLength: limits.maxRequestLineLength,
                                 maxHeaderCount: limits.maxHeaderCount)
    }

    /// Bytes held for the head so far: the current line and the fields already parsed.
    var retainedByteCount: Int {
        line.capacity + fields.bytes.capacity
    }

    /// Whether the head is complete or has failed.
    var isFinished: Bool { result != nil }

    /// Consumes bytes up to the end of the head at most (bytes after the head — the first frames, or a
    /// body — are NOT consumed and stay with the caller). Returns how many bytes it consumed.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, outcome: Outcome) {
        var ignored = IgnoredFields()
        return consume(bytes, fieldsTo: &ignored)
    }

    /// ``consume(_:)-(UnsafeRawBufferPointer)``, handing each field line, once checked, to `sink` as
    /// well, in order.
    mutating func consume(_ bytes: UnsafeRawBufferPointer, fieldsTo sink: inout some HTTPFieldSink) -> (consumed: Int, outcome: Outcome) {
        if let result { return (0, result) }
        var index = 0
        // Field lines read where they lie and not kept yet: kept together, terminators and all, with
        // one append (``HTTPFieldLines``), before anything else is kept or read from the fields.
        var run = 0..<0
        while index < bytes.count {
            // A whole line in these bytes is parsed where it lies, neither stored nor scanned a byte at
            // a time (a line cut by the end of the input, or one a limit refuses, takes the path below,
            // which decides at the same byte as before).
            if line.isEmpty, !sawCR, let (end, next, clean) = wholeLine(bytes, from: index) {
                headBytes += next - index
                if end > index, phase == .leadingEmptyLines { phase = .startLine }
                #if DEBUG
                workCount += next - index
                #endif
                let isField = phase == .fields && end > index
                // The empty line ends the head, which then reads the fields: every one kept first.
                if !isField { keep(&run, of: bytes) }
                let content = UnsafeRawBufferPointer(rebasing: bytes[index..<end])
                let start = index
                index = next
                if let outcome = content.withMemoryRebound(to: UInt8.self, {
                    endOfLine($0, sink: &sink, keeping: !isField, clean: clean)
                }) {
                    keep(&run, of: bytes)
                    return finish(index, outcome)
                }
                if isField { run = run.isEmpty ? start..<next : run.lowerBound..<next }
                continue
            }
            // A line stored byte by byte is kept after the lines before it.
            keep(&run, of: bytes)
            let byte = bytes[index]
            index += 1
            #if DEBUG
            workCount += 1
            #endif

            // Limits.maxHeaderBytes counts every byte of the head, decided before the byte is stored.
            guard headBytes < limits.maxHeaderBytes else { return fail(index, .headTooLarge) }
            headBytes += 1

            if sawCR {
                sawCR = false
                // RFC 9112 §2.2: "A sender MUST NOT generate a bare CR (a CR character not immediately
                // followed by LF) within any protocol elements other than the content. A recipient of
                // such a bare CR MUST consider that element to be invalid".
                guard byte == 0x0A else { return fail(index, lineError) }
                if let outcome = endOfStoredLine(sink: &sink) { return finish(index, outcome) }
                continue
            }
            switch byte {
            case 0x0D:
                sawCR = true
            case 0x0A:
                // RFC 9112 §2.2: "a recipient MAY recognize a single LF as a line terminator and ignore
                // any preceding CR".
                if let outcome = endOfStoredLine(sink: &sink) { return finish(index, outcome) }
            default:
                if let error = store(byte) { return fail(index, error) }
                index = storeRun(bytes, from: index)
            }
        }
        keep(&run, of: bytes)
        return (index, .needMore)
    }

    /// Keeps the field lines of `run`, whole lines of `bytes` already checked, with one append, and
    /// empties it.
    @inline(__always)
    private mutating func keep(_ run: inout Range<Int>, of bytes: UnsafeRawBufferPointer) {
        guard !run.isEmpty else { return }
        fields.append(lines: UnsafeRawBufferPointer(rebasing: bytes[run]), capacityLimit: limits.maxHeaderBytes)
        run = 0..<0
    }

    /// The line that starts at `start`, when all of it is in `bytes` and no limit can refuse it:
    /// where its content ends, where the next line starts (after CRLF or a bare LF), and whether
    /// its content is clean (no control byte but HTAB, no DEL: ``HTTPTokens/lineEnd(in:from:)``). `nil`
    /// otherwise (no terminator yet, a CR not followed by LF, a limit that a byte of it would reach),
    /// for the byte path to handle as it always has.
    ///
    /// `mutating` though it changes nothing: called from `consume`, a non-mutating method was
    /// handed a copy of the whole parser (a `memcpy` of about 200 bytes per line).
    private mutating func wholeLine(_ bytes: UnsafeRawBufferPointer, from start: Int) -> (end: Int, next: Int, clean: Bool)? {
        let (end, clean) = HTTPTokens.lineEnd(in: bytes, from: start)
        guard end < bytes.count else { return nil }
        var next = end + 1
        if bytes[end] == 0x0D {
            guard next < bytes.count, bytes[next] == 0x0A else { return nil }
            next += 1
        }
        // The checks `consume` and `store` make at each byte, made for the whole line.
        guard next - start <= limits.maxHeaderBytes - headBytes else { return nil }
        if end > start {
            switch phase {
            case .leadingEmptyLines, .startLine:
                guard end - start <= limits.maxRequestLineLength else { return nil }
            case .fields:
                guard fieldCount < limits.maxHeaderCount, !HTTPTokens.isOWS(bytes[start]) else { return nil }
            }
        }
        return (end, next, clean)
    }

    /// Stores the rest of a line's bytes from `start` at once, up to the next CR or LF or the first
    /// byte a limit would refuse (which the byte-by-byte path then refuses at its own index), and
    /// returns the index after them. A byte at a time, each append checking the array's uniqueness
    /// and capacity, cost about 20 instructions per byte of every opening handshake.
    private mutating func storeRun(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let end = HTTPTokens.lineBreak(in: bytes, from: start)
        var take = min(end - start, limits.maxHeaderBytes - headBytes)
        if phase == .startLine { take = min(take, limits.maxRequestLineLength - line.count) }
        guard take > 0 else { return start }
        reserveLine(for: line.count + take)
        line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + take)]))
        headBytes += take
        #if DEBUG
        workCount += take
        storedByteCount += take
        #endif
        return start + take
    }

    /// Makes room for `needed` bytes in the line: geometric growth, capped at the head's limit. A
    /// line never holds more than maxHeaderBytes (counted before a byte is stored), so neither does
    /// its buffer; left to itself the array would double past it (a 544-byte line in a 1,548-byte
    /// buffer, found by fuzzing).
    @inline(__always)
    private mutating func reserveLine(for needed: Int) {
        guard needed > line.capacity else { return }
        line.reserveCapacity(min(max(64, 2 * line.capacity, needed), max(needed, limits.maxHeaderBytes)))
    }

    /// Convenience for tests: the same over an array slice.
    mutating func consume(_ bytes: ArraySlice<UInt8>) -> (consumed: Int, outcome: Outcome) {
        bytes.withUnsafeBytes { consume($0) }
    }

    /// Convenience for tests: the same over an array.
    mutating func consume(_ bytes: [UInt8]) -> (consumed: Int, outcome: Outcome) {
        bytes.withUnsafeBytes { consume($0) }
    }

    // MARK: - Scanning

    /// Stores one byte of the current line after checking the limits that apply to it.
    private mutating func store(_ byte: UInt8) -> Connection.HandshakeError? {
        if line.isEmpty {
            switch phase {
            case .leadingEmptyLines:
                phase = .startLine
            case .startLine:
                break
            case .fields:
                // A new field line starts: the count is exceeded as soon as one more begins.
                guard fieldCount < limits.maxHeaderCount else { return .tooManyHeaders }
                // RFC 9112 §5.2: "A server that receives an obs-fold in a request message that is not
                // within a message/http container MUST either reject the message by sending a 400 (Bad
                // Request) ... or replace each received obs-fold with one or more SP octets". We
                // reject, in both directions; a whitespace-led line right after the start line is
                // refused the same way (RFC 9112 §2.2 allows rejecting it).
                if HTTPTokens.isOWS(byte) { return .obsoleteLineFolding }
            }
        }
        if phase == .startLine, line.count >= limits.maxRequestLineLength { return .requestLineTooLong }
        reserveLine(for: line.count + 1)
        line.append(byte)
        #if DEBUG
        storedByteCount += 1
        #endif
        return nil
    }

    /// The error for a bare CR on the current line.
    private var lineError: Connection.HandshakeError {
        switch phase {
        case .leadingEmptyLines, .startLine: return kind == .request ? .malformedRequestLine : .malformedStatusLine
        case .fields: return .malformedHeader
        }
    }

    /// Handles the line stored in `line`, then empties it.
    private mutating func endOfStoredLine(sink: inout some HTTPFieldSink) -> Outcome? {
        // Moved out while it is read: the line's own storage cannot be lent while `self` changes.
        var stored: [UInt8] = []
        swap(&stored, &line)
        let outcome = stored.withUnsafeBufferPointer { endOfLine($0, sink: &sink, keeping: true, clean: false) }
        // Short lines keep the buffer for the next; a long one gives its memory back, so that what
        // the parser holds stays near maxHeaderBytes (the fields) rather than twice it.
        if stored.capacity <= Self.retainedLineCapacity {
            stored.removeAll(keepingCapacity: true)
            line = stored
        }
        return outcome
    }

    /// Handles a complete line, `content` without its terminator; returns an outcome when the head is
    /// complete or invalid. A valid field line is kept in the fields when `keeping`; otherwise the
    /// caller keeps it, as it lies. `clean` says the line holds no control byte but HTAB and no DEL
    /// (`false` when not known).
    private mutating func endOfLine(_ content: UnsafeBufferPointer<UInt8>, sink: inout some HTTPFieldSink,
                                    keeping: Bool, clean: Bool) -> Outcome? {
        #if DEBUG
        workCount += content.count
        #endif
        switch phase {
        case .leadingEmptyLines:
            // RFC 9112 §2.2: "a server that is expecting to receive and parse a request-line SHOULD ignore
            // at least one empty line (CRLF) received prior to the request-line". They still count
            // against maxHeaderBytes.
            return nil
        case .startLine:
            phase = .fields
            switch kind {
            case .request:
                switch HTTPLineParser.requestLine(content) {
                case .success(let parsed): startLine = .request(parsed)
                case .failure(let error): return .failure(error)
                }
            case .response:
                switch HTTPLineParser.statusLine(content) {
                case .success(let parsed): startLine = .status(parsed)
                case .failure(let error): return .failure(error)
                }
            }
            return nil
        case .fields:
            if content.isEmpty { return completeHead() }
            // A field is kept as its bytes, and made a string when asked for: valid UTF-8 keeps its
            // size, but every byte of an invalid sequence (obs-text) becomes U+FFFD, three bytes.
            // Bound what the strings would hold before keeping the bytes: at most maxHeaderBytes in
            // all, else 431. The exact figure takes a pass over the line, made only when three bytes
            // for each would not fit (3 × count ≤ remaining exactly when count ≤ remaining / 3,
            // rounded down): far from the limit, every line fits either way.
            let remaining = limits.maxHeaderBytes - storedFieldBytes
            if content.count > remaining / 3 {
                var validator = UTF8Validator()
                let isUTF8 = validator.validate(UnsafeRawBufferPointer(content)) && validator.isAtCharacterBoundary
                guard isUTF8, content.count <= remaining else { return .failure(.headTooLarge) }
            }
            switch HTTPLineParser.fieldBounds(content, clean: clean) {
            case .success(let bounds):
                let name = UnsafeBufferPointer(rebasing: content[..<bounds.nameEnd])
                let value = UnsafeBufferPointer(rebasing: content[bounds.value])
                storedFieldBytes += name.count + HTTPFieldLines.decodedCount(value)
                if keeping { fields.append(line: content, capacityLimit: limits.maxHeaderBytes) }
                sink.field(name: name, value: value, known: bounds.known)
                fieldCount += 1
                return nil
            case .failure(let error):
                return .failure(error)
            }
        }
    }

    private func completeHead() -> Outcome {
        switch startLine {
        case .request(let request):
            return .request(Connection.HTTPRequestHead(method: request.method, target: request.target,
                                            version: request.version, headers: Connection.HTTPHeaders(lines: fields)))
        case .status(let status):
            return .response(Connection.HTTPResponseHead(version: status.version, status: status.status,
                                              reason: status.reason, headers: Connection.HTTPHeaders(lines: fields)))
        case nil:
            // Unreachable: the fields phase starts only after a start line was parsed.
            return .failure(kind == .request ? .malformedRequestLine : .malformedStatusLine)
        }
    }

    private mutating func finish(_ consumed: Int, _ outcome: Outcome) -> (consumed: Int, outcome: Outcome) {
        result = outcome
        line = []
        return (consumed, outcome)
    }

    private mutating func fail(_ consumed: Int, _ error: Connection.HandshakeError) -> (consumed: Int, outcome: Outcome) {
        finish(consumed, .failure(error))
    }
}
