// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketRedis

/// A second RESP decoder, written apart from `RESPDecoder` for the `resp` target to compare against:
/// recursive, over the whole input at once, with the default limits hard-coded and the standard
/// library's own integer parsing. Fed at most `-max_len` bytes, it never nests deeper than the limit.
enum RESPReference {
    enum End: Equatable {
        case clean, partial, failed
    }

    private enum Step {
        case value(RESPValue?, next: Int)
        case incomplete
        case invalid
    }

    static let maxBulk = (16 << 20) + (64 << 10)
    static let maxCount = 1 << 20
    static let maxDepth = 32
    static let maxLine = 64 << 10

    /// The values of `bytes` (attributes skipped), and how the input ends.
    static func decode(_ bytes: [UInt8]) -> (values: [RESPValue], end: End) {
        var values: [RESPValue] = []
        var index = 0
        while index < bytes.count {
            switch parse(bytes, index, depth: 0) {
            case .invalid: return (values, .failed)
            case .incomplete: return (values, .partial)
            case .value(let value, let next):
                // nil: an attribute at the end of its own; what follows it is the next value.
                if let value { values.append(value) }
                index = next
            }
        }
        return (values, .clean)
    }

    /// The value at `index`, an attribute before it skipped (a nil value: an attribute followed by
    /// nothing complete yet is incomplete, so nil only comes from within `parse` itself).
    private static func parse(_ bytes: [UInt8], _ index: Int, depth: Int) -> Step {
        let type = bytes[index]
        guard "+-:$*_#,(!=%~|>".utf8.contains(type) else { return .invalid }
        var end = index + 1
        while end < bytes.count, bytes[end] != 0x0D {
            if bytes[end] == 0x0A { return .invalid }
            if end - index - 1 >= maxLine { return .invalid }
            end += 1
        }
        guard end + 1 < bytes.count else { return .incomplete }
        guard bytes[end + 1] == 0x0A else { return .invalid }
        let line = Array(bytes[(index + 1)..<end])
        let text = String(decoding: line, as: UTF8.self)
        let next = end + 2
        switch type {
        case UInt8(ascii: "+"): return .value(.simpleString(line), next: next)
        case UInt8(ascii: "-"): return .value(.error(line), next: next)
        case UInt8(ascii: ":"):
            guard let number = Int64(text) else { return .invalid }
            return .value(.integer(number), next: next)
        case UInt8(ascii: "_"): return line.isEmpty ? .value(.null, next: next) : .invalid
        case UInt8(ascii: "#"):
            switch text {
            case "t": return .value(.boolean(true), next: next)
            case "f": return .value(.boolean(false), next: next)
            default: return .invalid
            }
        case UInt8(ascii: ","):
            guard let number = double(text) else { return .invalid }
            return .value(.double(number), next: next)
        case UInt8(ascii: "("):
            let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .invalid }
            return .value(.bigNumber(line), next: next)
        case UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "="):
            if type == UInt8(ascii: "$"), text == "-1" { return .value(.bulkString(nil), next: next) }
            guard let length = count(text), length <= maxBulk else { return .invalid }
            if type == UInt8(ascii: "="), length < 4 { return .invalid }
            let close = next + length
            if close < bytes.count, bytes[close] != 0x0D { return .invalid }
            guard close + 1 < bytes.count else { return .incomplete }
            guard bytes[close + 1] == 0x0A else { return .invalid }
            let body = Array(bytes[next..<close])
            switch type {
            case UInt8(ascii: "$"): return .value(.bulkString(body), next: close + 2)
            case UInt8(ascii: "!"): return .value(.bulkError(body), next: close + 2)
            default:
                guard body[3] == UInt8(ascii: ":") else { return .invalid }
                return .value(.verbatimString(format: Array(body[..<3]), text: Array(body[4...])), next: close + 2)
            }
        default:
            if type == UInt8(ascii: "*"), text == "-1" { return .value(.array(nil), next: next) }
            guard let count = count(text), count <= maxCount, depth < maxDepth else { return .invalid }
            let elements = type == UInt8(ascii: "%") || type == UInt8(ascii: "|") ? 2 * count : count
            var items: [RESPValue] = []
            var position = next
            while items.count < elements {
                guard position < bytes.count else { return .incomplete }
                switch parse(bytes, position, depth: depth + 1) {
                case .invalid: return .invalid
                case .incomplete: return .incomplete
                case .value(let item, let after):
                    position = after
                    if let item { items.append(item) }
                }
            }
            switch type {
            case UInt8(ascii: "*"): return .value(.array(items), next: position)
            case UInt8(ascii: "~"): return .value(.set(items), next: position)
            case UInt8(ascii: ">"): return .value(.push(items), next: position)
            case UInt8(ascii: "%"):
                let entries = stride(from: 0, to: items.count, by: 2).map { RESPValue.MapEntry(key: items[$0], value: items[$0 + 1]) }
                return .value(.map(entries), next: position)
            default:
                // An attribute: skipped; it is no element of an aggregate around it, nor a value.
                return .value(nil, next: position)
            }
        }
    }

    /// Decimal digits only (no sign), within `Int`.
    private static func count(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func double(_ text: String) -> Double? {
        switch text {
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        case "nan", "+nan", "-nan": return .nan
        default: break
        }
        // [+|-]integral[.fractional][(E|e)[+|-]exponent], each present part one digit or more.
        var rest = Substring(text)
        func digits() -> Bool {
            let count = rest.prefix { $0.isASCII && $0.isNumber }.count
            rest = rest.dropFirst(count)
            return count > 0
        }
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        guard digits() else { return nil }
        if rest.first == "." {
            rest = rest.dropFirst()
            guard digits() else { return nil }
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            guard digits() else { return nil }
        }
        guard rest.isEmpty, let value = Double(text) else { return nil }
        return value.isNaN ? .nan : value
    }
}
