// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension RESPDecoder {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    private func fail(_ code: RESPError.Code, at index: Int, _ reason: String) -> RESPError {
        RESPError(code, at: streamOffset + index, reason: reason)
    }

    /// Reads one line at `readIndex` (and, for a bulk type, the bytes it announces), consuming it, or
    /// returns `nil` without consuming anything when it is not complete yet.
    mutating func readItem() throws(RESPError) -> Item? {
        let start = readIndex
        guard start < buffer.count else { return nil }
        let type = buffer[start]
        guard Self.isType(type) else {
            throw fail(.invalidType, at: start, "byte 0x\(String(type, radix: 16, uppercase: true)) starts no RESP type")
        }
        let contentStart = start + 1
        let resumeAt = max(scanIndex, contentStart)
        var index = resumeAt
        defer { scannedByteCount += index - resumeAt }
        while index < buffer.count {
            let byte = buffer[index]
            if byte == Self.cr { break }
            // RESP3: "every part is terminated with \r\n"; a bare LF is no terminator, and no simple
            // string may hold one.
            if byte == Self.lf { throw fail(.invalidLine, at: index, "LF without CR") }
            if index - contentStart >= limits.maxLineLength {
                throw fail(.lineTooLong, at: start, "no CRLF within \(limits.maxLineLength) bytes")
            }
            index += 1
        }
        scanIndex = index
        guard index + 1 < buffer.count else { return nil }
        guard buffer[index + 1] == Self.lf else { throw fail(.invalidLine, at: index + 1, "CR without LF") }
        let content = contentStart..<index
        let lineEnd = index + 2
        try checkValueBytes(lineEnd - start, at: start)

        switch type {
        case UInt8(ascii: "+"):
            return consume(to: lineEnd, .value(.simpleString(Array(buffer[content]))))
        case UInt8(ascii: "-"):
            return consume(to: lineEnd, .value(.error(Array(buffer[content]))))
        case UInt8(ascii: ":"):
            guard let value = Self.integer(buffer[content]) else {
                throw fail(.invalidInteger, at: contentStart, "not a signed 64-bit decimal integer")
            }
            return consume(to: lineEnd, .value(.integer(value)))
        case UInt8(ascii: "_"):
            guard content.isEmpty else { throw fail(.invalidLine, at: contentStart, "a null has nothing before its CRLF") }
            return consume(to: lineEnd, .value(.null))
        case UInt8(ascii: "#"):
            guard content.count == 1, buffer[contentStart] == UInt8(ascii: "t") || buffer[contentStart] == UInt8(ascii: "f") else {
                throw fail(.invalidBoolean, at: contentStart, "a boolean is t or f")
            }
            return consume(to: lineEnd, .value(.boolean(buffer[contentStart] == UInt8(ascii: "t"))))
        case UInt8(ascii: ","):
            guard let value = Self.double(buffer[content]) else {
                throw fail(.invalidDouble, at: contentStart, "not a decimal number, inf, -inf or nan")
            }
            return consume(to: lineEnd, .value(.double(value)))
        case UInt8(ascii: "("):
            guard Self.isBigNumber(buffer[content]) else {
                throw fail(.invalidBigNumber, at: contentStart, "not an optional sign and decimal digits")
            }
            return consume(to: lineEnd, .value(.bigNumber(Array(buffer[content]))))
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            return try readBulk(type, start: start, content: content, lineEnd: lineEnd)
        default:
            return try readAggregateHeader(type, start: start, content: content, lineEnd: lineEnd)
        }
    }

    private mutating func readBulk(_ type: UInt8, start: Int, content: Range<Int>, lineEnd: Int) throws(RESPError) -> Item? {
        // RESP2's null bulk string; RESP3 has `_` for null and no null bulk error or verbatim string.
        guard let length = try length(content, allowsNull: type == UInt8(ascii: "$")) else {
            return consume(to: lineEnd, .value(.bulkString(nil)))
        }
        guard length <= limits.maxBulkLength else {
            throw fail(.bulkTooLong, at: start, "\(length) bytes announced, at most \(limits.maxBulkLength) allowed")
        }
        if type == UInt8(ascii: "="), length < 4 {
            throw fail(.invalidVerbatimString, at: start, "\(length) bytes cannot hold the 4-byte format prefix")
        }
        try checkValueBytes(lineEnd - start + length + 2, at: start)
        let end = lineEnd + length
        // The CR after the bytes fails as soon as it is wrong, without waiting for the LF.
        if buffer.count > end, buffer[end] != Self.cr {
            throw fail(.invalidLine, at: end, "the \(length) bytes announced are not followed by CRLF")
        }
        guard buffer.count - lineEnd >= length + 2 else { return nil }
        guard buffer[end] == Self.cr, buffer[end + 1] == Self.lf else {
            throw fail(.invalidLine, at: end, "the \(length) bytes announced are not followed by CRLF")
        }
        let bytes = Array(buffer[lineEnd..<end])
        switch type {
        case UInt8(ascii: "$"):
            return consume(to: end + 2, .value(.bulkString(bytes)))
        case UInt8(ascii: "!"):
            return consume(to: end + 2, .value(.bulkError(bytes)))
        default:
            guard bytes[3] == UInt8(ascii: ":") else {
                throw fail(.invalidVerbatimString, at: lineEnd + 3, "no ':' after the 3-byte format")
            }
            return consume(to: end + 2, .value(.verbatimString(format: Array(bytes[0..<3]), text: Array(bytes[4...]))))
        }
    }

    private mutating func readAggregateHeader(_ type: UInt8, start: Int, content: Range<Int>,
                                              lineEnd: Int) throws(RESPError) -> Item? {
        let kind: Kind
        switch type {
        case UInt8(ascii: "*"): kind = .array
        case UInt8(ascii: "%"): kind = .map
        case UInt8(ascii: "~"): kind = .set
        case UInt8(ascii: ">"): kind = .push
        default: kind = .attribute
        }
        guard let count = try length(content, allowsNull: kind == .array) else {
            return consume(to: lineEnd, .value(.array(nil)))
        }
        guard count <= limits.maxElementCount else {
            throw fail(.tooManyElements, at: start, "\(count) elements announced, at most \(limits.maxElementCount) allowed")
        }
        guard stack.count < limits.maxDepth else {
            throw fail(.tooDeep, at: start, "aggregates nested deeper than \(limits.maxDepth)")
        }
        return consume(to: lineEnd, .aggregate(kind, count: count))
    }

    private mutating func consume(to end: Int, _ item: Item) -> Item {
        valueBytes += end - readIndex
        readIndex = end
        scanIndex = end
        return item
    }

    private func checkValueBytes(_ count: Int, at start: Int) throws(RESPError) {
        guard count <= limits.maxValueBytes - valueBytes else {
            throw fail(.valueTooLarge, at: start, "the value would exceed \(limits.maxValueBytes) bytes")
        }
    }

    /// A length or count: decimal digits, or -1 (`nil`) where RESP2 allows a null.
    private func length(_ content: Range<Int>, allowsNull: Bool) throws(RESPError) -> Int? {
        let text = buffer[content]
        if allowsNull, text.elementsEqual([UInt8(ascii: "-"), UInt8(ascii: "1")]) { return nil }
        guard !text.isEmpty, let value = Self.decimal(text, atMost: Int.max) else {
            throw fail(.invalidLength, at: content.lowerBound, "a length is decimal digits\(allowsNull ? " or -1" : "")")
        }
        return value
    }

    /// Decimal digits as a value of at most `limit`, or `nil`; never traps.
    static func decimal(_ digits: ArraySlice<UInt8>, atMost limit: Int) -> Int? {
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2, sum <= limit else { return nil }
            value = sum
        }
        return value
    }

    /// RESP2: "an optional plus (+) or minus (-) as the sign", then digits, within `Int64` (so -0 is 0).
    /// Accumulated negative, so that `Int64.min` parses too.
    static func integer(_ text: ArraySlice<UInt8>) -> Int64? {
        var digits = text
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (difference, overflow2) = times10.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = difference
        }
        if negative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    /// RESP3's double: `inf`, `-inf`, `nan`, or the specification's
    /// `[+|-]<integral>[.<fractional>][<E|e>[sign]<exponent>]`, digits required in each part present
    /// (the grammar is checked here, so that the standard library's parser sees no hexadecimal,
    /// `infinity`, `.5` or other form it would also accept).
    static func double(_ text: ArraySlice<UInt8>) -> Double? {
        let string = String(decoding: text, as: UTF8.self)
        switch string {
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        case "nan", "-nan", "+nan": return .nan
        default: break
        }
        var index = text.startIndex
        func digits() -> Int {
            let from = index
            while index < text.endIndex, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        guard digits() > 0 else { return nil }
        if index < text.endIndex, text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < text.endIndex, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == text.endIndex, let value = Double(string) else { return nil }
        return value.isNaN ? .nan : value
    }

    /// The specification's `([+|-]<number>`.
    static func isBigNumber(_ text: ArraySlice<UInt8>) -> Bool {
        let digits = text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") ? text.dropFirst() : text
        return !digits.isEmpty && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    static func isType(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "$"), UInt8(ascii: "*"),
             UInt8(ascii: "_"), UInt8(ascii: "#"), UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: "!"),
             UInt8(ascii: "="), UInt8(ascii: "%"), UInt8(ascii: "~"), UInt8(ascii: "|"), UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }
}
