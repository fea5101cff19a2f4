// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The header fields of a parsed head, kept as the bytes they came in: one array for all of them,
/// where a field list of strings took a string for each name and value (an allocation for each
/// longer than 15 bytes: a browser's User-Agent, Accept-Language, Cookie, the key), their UTF-8
/// checks, and an array of fields. A string is made when a caller asks for one
/// (``Connection/HTTPHeaders``), and the handshake reads the fields it checks as bytes.
///
/// Invariants:
/// - `bytes` holds the field lines, in the order they came, each as it was on the wire and ended by
///   a line feed, with or without a CR before it: `name ":" OWS value OWS [CR] LF`. A line is kept
///   whole rather than rebuilt from its name and trimmed value (four appends); lines read where
///   they lie are kept a run at a time, terminators and all (one append for a whole head where
///   there was one per line); a line stored a byte at a time is kept with a line feed.
/// - A name is a token (RFC 9110 §5.6.2), so it holds no `:`; the first `:` of a line ends its
///   name.
/// - The rest of the line holds only whitespace and field-value bytes (RFC 9110 §5.5: no CR, LF or
///   NUL), so the first CR or LF after the name ends it. The value is that rest, trimmed of the
///   whitespace around it; it may be empty. A CR is always followed by the line's LF.
///
/// ``HTTPLineParser/fieldBounds(_:)`` checks each line before it is appended here.
///
/// One array, nothing else: headers that hold it stay one pointer wide, as they were with an array
/// of fields, and so do the heads, phases and events that hold headers.
struct HTTPFieldLines: Sendable {
    private(set) var bytes: [UInt8] = []

    /// The number of fields: one line feed ends each.
    var count: Int {
        var count = 0
        for byte in bytes where byte == UInt8(ascii: "\n") { count &+= 1 }
        return count
    }

    /// Whether there are no fields.
    var isEmpty: Bool { bytes.isEmpty }

    /// Appends a field line, without its terminator, that the line parser has checked. The bytes
    /// grow geometrically, but not past `capacityLimit` (the head's limit, which they cannot exceed:
    /// each line takes here no more bytes than it took in the head) unless they must.
    mutating func append(line: UnsafeBufferPointer<UInt8>, capacityLimit: Int) {
        let needed = bytes.count + line.count + 1
        if needed > bytes.capacity {
            bytes.reserveCapacity(min(max(Self.initialCapacity, 2 * bytes.capacity, needed), max(needed, capacityLimit)))
        }
        bytes.append(contentsOf: line)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Appends whole field lines, each with its terminator (CRLF or LF), that the line parser has
    /// checked: a run of lines read where they lie, kept with one append. The bytes grow as in
    /// ``append(line:capacityLimit:)``.
    mutating func append(lines: UnsafeRawBufferPointer, capacityLimit: Int) {
        let needed = bytes.count + lines.count
        if needed > bytes.capacity {
            bytes.reserveCapacity(min(max(Self.initialCapacity, 2 * bytes.capacity, needed), max(needed, capacityLimit)))
        }
        bytes.append(contentsOf: lines)
    }

    /// Room made at the first field: what a library's or tool's request holds (wsload's fields
    /// take 130 bytes here). A browser's grows it twice (564 bytes for the request of
    /// `websocket-bench handshake-server-browser`), within the head's limit.
    static let initialCapacity = 256

    /// The UTF-8 bytes `bytes` takes as a string (``string(_:)``): its own count when it is ASCII,
    /// as a head's fields nearly always are, and otherwise the count after repair, decoded to
    /// find it.
    static func decodedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80 ? bytes.count : string(bytes).utf8.count
    }

    /// Calls `body` with each field's name and value, in order, until it returns `false`.
    @inline(__always)
    func forEach(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count {
                // The invariants put a colon, then a CR or LF, after `start`; were either missing,
                // the walk would stop at the end of the bytes.
                var colon = start
                while colon < all.count, all[colon] != UInt8(ascii: ":") { colon &+= 1 }
                let end = HTTPTokens.lineBreak(in: UnsafeRawBufferPointer(all), from: colon)
                guard colon < end else { return }
                let name = UnsafeBufferPointer(rebasing: all[start..<colon])
                let value = UnsafeBufferPointer(rebasing: all[HTTPTokens.owsTrimmed(all[(colon &+ 1)..<end])])
                guard body(name, value) else { return }
                // Past the line feed, and the CR before it when there is one.
                start = end &+ (end < all.count && all[end] == UInt8(ascii: "\r") ? 2 : 1)
            }
        }
    }

    /// The fields as strings: names every opening handshake carries are the literals (no copy),
    /// other names and the values are decoded as UTF-8, invalid sequences repaired (U+FFFD).
    var fields: [Connection.HTTPHeaders.Field] {
        var fields: [Connection.HTTPHeaders.Field] = []
        fields.reserveCapacity(count)
        forEach { name, value in
            fields.append(Connection.HTTPHeaders.Field(name: Self.string(name: name), value: Self.string(value)))
            return true
        }
        return fields
    }

    /// A name as a string: the literal for a known one (see ``HTTPLineParser/knownName(_:)``).
    static func string(name: UnsafeBufferPointer<UInt8>) -> String {
        HTTPLineParser.knownName(name) ?? string(name)
    }

    /// Bytes as a string, invalid UTF-8 repaired.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// What the head parser hands each field line to once it has checked it, besides keeping it: the
/// opening handshake gathers the fields it reads so (``HandshakeFields``), as the lines arrive,
/// rather than in a walk over them afterwards (about 120 instructions per field).
protocol HTTPFieldSink {
    /// One field's name, and its value trimmed of the whitespace around it; `known` is the known
    /// name the field has, spelled exactly so, when the parser found one (`nil` tells nothing: any
    /// other spelling of a known name, or a name not looked at).
    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, known: KnownFieldName?)
}

/// A sink that takes nothing: a head whose fields are only kept.
struct IgnoredFields: HTTPFieldSink {
    @inline(__always)
    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, known: KnownFieldName?) {}
}
