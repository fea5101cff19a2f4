// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// One value of the Redis serialization protocol, RESP2 or RESP3, as ``RESPDecoder`` reads it and
/// ``RESPEncoder`` writes it.
///
/// Strings are bytes, not `String`s: RESP's bulk strings are binary-safe, and a WebSocket message
/// relayed through Redis is whatever the client sent. ``string`` reads one as UTF-8 text.
///
/// A RESP3 attribute (`|`) is not a value of its own: the decoder reads it, bounded like any
/// aggregate, and skips it, so the value it annotates arrives alone (the specification lets a client
/// ignore attributes; nothing a subscriber needs is carried in one).
///
/// Equality is that of the cases' payloads, so a ``double(_:)`` holding NaN is not equal to itself;
/// the decoder gives every NaN as `Double.nan`, and ``RESPEncoder`` writes them all as `nan`.
///
/// Specification: <https://github.com/redis/redis-specifications/blob/master/protocol/RESP3.md>
public indirect enum RESPValue: Sendable, Hashable {
    /// `+OK`: a line without CR or LF.
    case simpleString([UInt8])
    /// `-ERR message`: an error reply, a line without CR or LF.
    case error([UInt8])
    /// `:42`: a signed 64-bit integer.
    case integer(Int64)
    /// `$5 hello`: binary-safe bytes; `nil` is RESP2's null bulk string, `$-1`.
    case bulkString([UInt8]?)
    /// `*2 …`: the elements; `nil` is RESP2's null array, `*-1`.
    case array([RESPValue]?)
    /// `_`: RESP3's null.
    case null
    /// `#t` or `#f`.
    case boolean(Bool)
    /// `,3.14`, `,inf`, `,-inf`, `,nan`: a RESP3 double.
    case double(Double)
    /// `(3492890328409238509324850943850943825024385`: an integer of any size, as its ASCII digits
    /// with the sign as received (`-`, `+` or none).
    case bigNumber([UInt8])
    /// `!21 SYNTAX invalid syntax`: a RESP3 error reply that may hold any bytes.
    case bulkError([UInt8])
    /// `=15 txt:Some string`: a RESP3 string with its 3-byte format (`txt`, `mkd`), which the wire
    /// separates from the text with a `:`.
    case verbatimString(format: [UInt8], text: [UInt8])
    /// `%2 …`: a RESP3 map, its entries in the order received (keys may repeat: the protocol does not
    /// forbid it, and a client that wants a dictionary chooses which one wins).
    case map([MapEntry])
    /// `~3 …`: a RESP3 set, its elements in the order received.
    case set([RESPValue])
    /// `>3 …`: a RESP3 push, out-of-band data such as a Pub/Sub message.
    case push([RESPValue])

    /// One key and its value in a ``RESPValue/map(_:)``.
    public struct MapEntry: Sendable, Hashable {
        /// The key.
        public var key: RESPValue
        /// The value.
        public var value: RESPValue

        /// An entry.
        public init(key: RESPValue, value: RESPValue) {
            self.key = key
            self.value = value
        }
    }

    /// The text of a simple string, bulk string or verbatim string as UTF-8 (ill-formed sequences
    /// replaced), or `nil` for any other value.
    public var string: String? {
        switch self {
        case .simpleString(let bytes), .bulkString(let bytes?), .verbatimString(_, let bytes):
            return String(decoding: bytes, as: UTF8.self)
        default:
            return nil
        }
    }

    /// The message of an error reply (``error(_:)`` or ``bulkError(_:)``), or `nil`.
    public var errorMessage: String? {
        switch self {
        case .error(let bytes), .bulkError(let bytes): return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }

    /// The elements of an array, set or push, or `nil` for any other value (and for a null array).
    public var elements: [RESPValue]? {
        switch self {
        case .array(let elements?), .set(let elements), .push(let elements): return elements
        default: return nil
        }
    }
}
