// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Writes RESP: commands as arrays of bulk strings (what a client sends), and any ``RESPValue``.
///
/// Everything is appended to a caller's `[UInt8]`, so that commands for one write share one buffer;
/// arguments go in as their bytes, with no `String` made per argument:
///
/// ```swift
/// var output: [UInt8] = []
/// RESPEncoder.appendCommand(["SUBSCRIBE", "room:1", "room:2"], to: &output)
/// // *3\r\n$9\r\nSUBSCRIBE\r\n$6\r\nroom:1\r\n$6\r\nroom:2\r\n
/// ```
public enum RESPEncoder {
    /// Appends a command: an array of bulk strings, each argument's UTF-8 bytes.
    public static func appendCommand(_ arguments: [String], to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), arguments.count, to: &output)
        for argument in arguments { appendBulkString(argument, to: &output) }
    }

    /// Appends the header of an array of `count` elements (`*count\r\n`): a command's start, its
    /// arguments to follow as bulk strings.
    public static func appendArrayHeader(count: Int, to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "*"), count, to: &output)
    }

    /// Appends a bulk string of the text's UTF-8 bytes.
    public static func appendBulkString(_ text: String, to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "$"), text.utf8.count, to: &output)
        output.append(contentsOf: text.utf8)
        appendCRLF(to: &output)
    }

    /// Appends a bulk string of the bytes (binary-safe: any bytes).
    public static func appendBulkString(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "$"), bytes.count, to: &output)
        output.append(contentsOf: bytes)
        appendCRLF(to: &output)
    }

    /// Appends a bulk string of the bytes, as the `UnsafeRawBufferPointer` variant does.
    public static func appendBulkString(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendBulkString(UnsafeRawBufferPointer($0), to: &output) }
        if done == nil { Array(bytes).withUnsafeBytes { appendBulkString($0, to: &output) } }
    }

    /// Appends a value as the decoder reads it back: NaN as `nan`, a null bulk string and a null array
    /// in RESP2's forms (`$-1`, `*-1`), a map's entries in order.
    ///
    /// - Precondition: a simple string or error holds no CR or LF, a verbatim string's format is 3
    ///   bytes, and a big number is an optional sign and digits (as every decoded value is): RESP has
    ///   no way to write anything else, and writing it anyway would let its bytes start values of their
    ///   own.
    public static func append(_ value: RESPValue, to output: inout [UInt8]) {
        switch value {
        case .simpleString(let bytes):
            appendLine(UInt8(ascii: "+"), bytes, to: &output)
        case .error(let bytes):
            appendLine(UInt8(ascii: "-"), bytes, to: &output)
        case .integer(let value):
            output.append(UInt8(ascii: ":"))
            appendDecimal(value, to: &output)
            appendCRLF(to: &output)
        case .bulkString(let bytes?):
            appendBulkString(bytes, to: &output)
        case .bulkString(nil):
            output.append(contentsOf: [UInt8(ascii: "$"), UInt8(ascii: "-"), UInt8(ascii: "1")])
            appendCRLF(to: &output)
        case .array(let elements?):
            appendHeader(UInt8(ascii: "*"), elements.count, to: &output)
            for element in elements { append(element, to: &output) }
        case .array(nil):
            output.append(contentsOf: [UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "1")])
            appendCRLF(to: &output)
        case .null:
            output.append(UInt8(ascii: "_"))
            appendCRLF(to: &output)
        case .boolean(let value):
            output.append(contentsOf: [UInt8(ascii: "#"), value ? UInt8(ascii: "t") : UInt8(ascii: "f")])
            appendCRLF(to: &output)
        case .double(let value):
            output.append(UInt8(ascii: ","))
            if value.isNaN {
                output.append(contentsOf: "nan".utf8)
            } else if value.isInfinite {
                output.append(contentsOf: (value < 0 ? "-inf" : "inf").utf8)
            } else {
                // The shortest text that reads back as the same Double ("1e-07", "0.1", "-0.0").
                output.append(contentsOf: value.description.utf8)
            }
            appendCRLF(to: &output)
        case .bigNumber(let digits):
            precondition(RESPDecoder.isBigNumber(digits[...]), "a big number is an optional sign and digits")
            appendLine(UInt8(ascii: "("), digits, to: &output)
        case .bulkError(let bytes):
            appendHeader(UInt8(ascii: "!"), bytes.count, to: &output)
            output.append(contentsOf: bytes)
            appendCRLF(to: &output)
        case .verbatimString(let format, let text):
            precondition(format.count == 3, "a verbatim string's format is 3 bytes")
            appendHeader(UInt8(ascii: "="), text.count + 4, to: &output)
            output.append(contentsOf: format)
            output.append(UInt8(ascii: ":"))
            output.append(contentsOf: text)
            appendCRLF(to: &output)
        case .map(let entries):
            appendHeader(UInt8(ascii: "%"), entries.count, to: &output)
            for entry in entries {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
        case .set(let elements):
            appendHeader(UInt8(ascii: "~"), elements.count, to: &output)
            for element in elements { append(element, to: &output) }
        case .push(let elements):
            appendHeader(UInt8(ascii: ">"), elements.count, to: &output)
            for element in elements { append(element, to: &output) }
        }
    }

    private static func appendLine(_ type: UInt8, _ bytes: [UInt8], to output: inout [UInt8]) {
        precondition(!bytes.contains(RESPDecoder.cr) && !bytes.contains(RESPDecoder.lf),
                     "a simple string or error holds no CR or LF")
        output.append(type)
        output.append(contentsOf: bytes)
        appendCRLF(to: &output)
    }

    private static func appendHeader(_ type: UInt8, _ count: Int, to output: inout [UInt8]) {
        output.append(type)
        appendDecimal(Int64(count), to: &output)
        appendCRLF(to: &output)
    }

    private static func appendCRLF(to output: inout [UInt8]) {
        output.append(RESPDecoder.cr)
        output.append(RESPDecoder.lf)
    }

    /// Decimal digits without a `String`; the magnitude as `UInt64`, so that `Int64.min` has one.
    static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[19 - count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            output.append(contentsOf: scratch[(20 - count)...])
        }
    }
}
