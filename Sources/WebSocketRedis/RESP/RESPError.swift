// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why bytes from a Redis server are not RESP that ``RESPDecoder`` accepts. The connection is then to
/// be closed: after an error, nothing in the stream can be trusted to start a value.
///
/// The kind of failure is ``code``, a struct with static members rather than an enum, so that new
/// kinds can be added without breaking a `switch`; ``offset`` says where in the stream it was found;
/// ``description`` is one line for a log.
public struct RESPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case invalidType, invalidLine, lineTooLong, invalidLength, bulkTooLong, tooManyElements
            case tooDeep, valueTooLarge, invalidInteger, invalidDouble, invalidBoolean, invalidBigNumber
            case invalidVerbatimString
        }

        fileprivate let value: Value

        /// A byte that starts no RESP2 or RESP3 type (inline replies are not RESP).
        public static let invalidType = Code(value: .invalidType)
        /// A line ended by a CR without an LF after it, an LF without a CR, a bulk string's bytes not
        /// followed by CRLF, or a line that should be empty (`_`) and is not.
        public static let invalidLine = Code(value: .invalidLine)
        /// A simple string, error or number line with no CRLF within ``RESPDecoder/Limits/maxLineLength``.
        public static let lineTooLong = Code(value: .lineTooLong)
        /// A length or count that is not a decimal number, or negative other than RESP2's null (`$-1`,
        /// `*-1`).
        public static let invalidLength = Code(value: .invalidLength)
        /// A bulk string, bulk error or verbatim string longer than
        /// ``RESPDecoder/Limits/maxBulkLength``.
        public static let bulkTooLong = Code(value: .bulkTooLong)
        /// An array, map, set, push or attribute announcing more than
        /// ``RESPDecoder/Limits/maxElementCount`` elements.
        public static let tooManyElements = Code(value: .tooManyElements)
        /// Aggregates nested deeper than ``RESPDecoder/Limits/maxDepth``.
        public static let tooDeep = Code(value: .tooDeep)
        /// One top-level value whose bytes exceed ``RESPDecoder/Limits/maxValueBytes``.
        public static let valueTooLarge = Code(value: .valueTooLarge)
        /// An integer that is not an optional sign and decimal digits, or outside the `Int64` range.
        public static let invalidInteger = Code(value: .invalidInteger)
        /// A double that is neither a decimal number (integral digits, then optionally a point and
        /// fractional digits, then optionally an exponent) nor `inf`, `-inf`, `nan`.
        public static let invalidDouble = Code(value: .invalidDouble)
        /// A boolean other than `t` or `f`.
        public static let invalidBoolean = Code(value: .invalidBoolean)
        /// A big number that is not an optional sign and decimal digits.
        public static let invalidBigNumber = Code(value: .invalidBigNumber)
        /// A verbatim string shorter than its 4-byte `xxx:` prefix, or without the `:`.
        public static let invalidVerbatimString = Code(value: .invalidVerbatimString)

        /// A short name, e.g. `bulkTooLong`.
        public var description: String {
            switch value {
            case .invalidType: return "invalidType"
            case .invalidLine: return "invalidLine"
            case .lineTooLong: return "lineTooLong"
            case .invalidLength: return "invalidLength"
            case .bulkTooLong: return "bulkTooLong"
            case .tooManyElements: return "tooManyElements"
            case .tooDeep: return "tooDeep"
            case .valueTooLarge: return "valueTooLarge"
            case .invalidInteger: return "invalidInteger"
            case .invalidDouble: return "invalidDouble"
            case .invalidBoolean: return "invalidBoolean"
            case .invalidBigNumber: return "invalidBigNumber"
            case .invalidVerbatimString: return "invalidVerbatimString"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The offset, from the stream's first byte, of the value or byte where it was found.
    public var offset: Int
    /// Details: the field that is wrong, the limit exceeded.
    public var reason: String

    /// An error of the given kind.
    public init(_ code: Code, at offset: Int, reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// One line, e.g. `RESP rejected (bulkTooLong at byte 0): …`.
    public var description: String {
        "RESP rejected (\(code) at byte \(offset)): \(reason)"
    }
}
