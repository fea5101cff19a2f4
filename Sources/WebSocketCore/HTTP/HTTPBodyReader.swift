// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Reads the body of a response that refused the upgrade (any status but 101), so that a client can
/// report what the server said. The body is framed per RFC 9112 §6.3; at most `limit` bytes are kept
/// and the rest is read and dropped, whatever length the peer declares. Malformed framing ends the
/// body with what was read: this is a report, not a transfer.
struct HTTPBodyReader: Sendable {
    private enum Framing: Sendable {
        /// A known number of bytes still to read.
        case length(remaining: UInt64)
        case chunked(ChunkedDecoder)
        /// Everything until the transport ends.
        case untilClose
        case complete
    }

    private var framing: Framing
    private let limit: Int
    private(set) var body: [UInt8] = []

    /// A reader with no body to read and nothing kept: what a connection holds while it reads no
    /// refusal, so that a reader is always there and never has to be assumed.
    init() {
        limit = 0
        framing = .complete
    }

    init(head: Connection.HTTPResponseHead, limit: Int) {
        self.limit = max(0, limit)
        framing = Self.framing(for: head)
    }

    /// Whether the whole body has been read.
    var isComplete: Bool {
        if case .complete = framing { return true }
        return false
    }

    /// Consumes body bytes; returns how many it consumed and whether the body is complete. Bytes after
    /// the end of the body are not consumed.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, isComplete: Bool) {
        switch framing {
        case .complete:
            return (0, true)
        case .untilClose:
            keep(bytes[...])
            return (bytes.count, false)
        case .length(let remaining):
            let take = UInt64(bytes.count) < remaining ? bytes.count : Int(remaining)
            keep(bytes[..<take])
            let left = remaining - UInt64(take)
            framing = left == 0 ? .complete : .length(remaining: left)
            return (take, left == 0)
        case .chunked(var decoder):
            var index = 0
            while index < bytes.count {
                let step = decoder.step(bytes[index...])
                keep(bytes[index..<(index + step.data)])
                index += step.consumed
                if decoder.isDone {
                    framing = .complete
                    return (index, true)
                }
            }
            framing = .chunked(decoder)
            return (index, false)
        }
    }

    /// Convenience for tests: the same over an array slice.
    mutating func consume(_ bytes: ArraySlice<UInt8>) -> (consumed: Int, isComplete: Bool) {
        bytes.withUnsafeBytes { consume($0) }
    }

    /// The transport ended: the body is whatever arrived (for read-until-close bodies that is the
    /// normal end, RFC 9112 §6.3 item 8).
    mutating func finish() {
        framing = .complete
    }

    /// Keeps what fits under the limit; the rest is dropped. The buffer grows geometrically, as an
    /// array does, but never beyond the limit: left to `append`, its capacity could reach twice it.
    private mutating func keep(_ bytes: Slice<UnsafeRawBufferPointer>) {
        let room = limit - body.count
        guard room > 0 else { return }
        let kept = bytes.prefix(room)
        let needed = body.count + kept.count
        if needed > body.capacity {
            body.reserveCapacity(min(limit, max(needed, 2 * body.capacity)))
        }
        body.append(contentsOf: kept)
    }

    /// RFC 9112 §6.3, for a response to a GET.
    private static func framing(for head: Connection.HTTPResponseHead) -> Framing {
        let headers = head.headers
        // Item 1: "Any response to a HEAD request and any response with a 1xx (Informational), 204 (No
        // Content), or 304 (Not Modified) status code is always terminated by the first empty line after
        // the header fields, regardless of the header fields present in the message, and thus cannot
        // contain any content."
        if (100...199).contains(head.status) || head.status == 204 || head.status == 304 {
            return .complete
        }
        // Item 4: "If a Transfer-Encoding header field is present in a response and the chunked transfer
        // coding is not the final encoding, the message body length is determined by reading the
        // connection until it is closed by the server." It overrides any Content-Length (item 3).
        let codings = HTTPTokens.listElements(headers.values(for: "Transfer-Encoding"))
        if let last = codings.last {
            return last.asciiCaseInsensitiveEquals("chunked") ? .chunked(ChunkedDecoder()) : .untilClose
        }
        // Item 5: "If a message is received without Transfer-Encoding and with an invalid Content-Length
        // header field, then the message framing is invalid and the recipient MUST treat it as an
        // unrecoverable error ... the user agent MUST close the connection to the server and discard the
        // received response." Read until close, then, since the report is all that is left to make.
        // A list of identical values is valid ("Content-Length: 42, 42").
        let lengths = HTTPTokens.listElements(headers.values(for: "Content-Length"))
        if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }), let length = parseLength(first) else { return .untilClose }
            return length == 0 ? .complete : .length(remaining: length)
        }
        // Item 8: "Otherwise, this is a response message without a declared message body length, so the
        // message body length is determined by the number of octets received prior to the server closing
        // the connection."
        return .untilClose
    }

    /// `Content-Length = 1*DIGIT`, or `nil` when not digits or beyond UInt64 (never trapping).
    static func parseLength(_ text: Substring) -> UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for c in text.utf8 {
            guard let digit = HTTPLineParser.decimalDigit(c) else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }
}
