// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketRedis

@Suite("RESP: whole, byte by byte, at every split and in random pieces, the decoder says the same")
struct RESPPropertyTests {
    /// A random value of every type, nested at most `depth` more levels.
    static func randomValue(_ generator: inout Connection.SeededGenerator, depth: Int) -> RESPValue {
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        func line(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) } }
        func finite(_ number: Double) -> Double { number.isFinite ? number : 1 }
        let kinds = depth > 0 ? 18 : 13
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .simpleString(line(Int.random(in: 0...20, using: &generator)))
        case 1: return .error(line(Int.random(in: 0...20, using: &generator)))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: return .bulkString(bytes(Int.random(in: 0...40, using: &generator)))
        case 4: return .bulkString(nil)
        case 5: return .array(nil)
        case 6: return .null
        case 7: return .boolean(Bool.random(using: &generator))
        case 8:
            let specials: [Double] = [.infinity, -.infinity, 0, -0.0, 1e-7, 1e300, .leastNonzeroMagnitude]
            return .double(Bool.random(using: &generator) ? specials.randomElement(using: &generator) ?? 0
                           : finite(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))))
        case 9: return .bigNumber((Bool.random(using: &generator) ? [UInt8(ascii: "-")] : [])
                                  + (0..<Int.random(in: 1...50, using: &generator)).map { _ in UInt8.random(in: 0x30...0x39, using: &generator) })
        case 10: return .bulkError(bytes(Int.random(in: 0...30, using: &generator)))
        case 11: return .verbatimString(format: line(3), text: bytes(Int.random(in: 0...30, using: &generator)))
        case 12: return .integer(Int64(Int.random(in: -3...3, using: &generator)))
        default:
            let count = Int.random(in: 0...4, using: &generator)
            let elements = (0..<count).map { _ in randomValue(&generator, depth: depth - 1) }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return .array(elements)
            case 1: return .set(elements)
            case 2: return .push(elements)
            default:
                return .map(elements.map { RESPValue.MapEntry(key: $0, value: randomValue(&generator, depth: depth - 1)) })
            }
        }
    }

    /// Valid values, then in half of the cases a few bytes changed, cut or appended.
    static func randomInput(_ generator: inout Connection.SeededGenerator) -> [UInt8] {
        var input: [UInt8] = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            if Int.random(in: 0..<5, using: &generator) == 0 {
                input += R.bytes("|1\r\n+meta\r\n:1\r\n")
            }
            RESPEncoder.append(randomValue(&generator, depth: 3), to: &input)
        }
        if Bool.random(using: &generator) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !input.isEmpty {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: input.removeLast(Int.random(in: 1...min(8, input.count), using: &generator))
                default: input += R.bytes(["+", "$", "*", "\r", "\n", ":"].randomElement(using: &generator) ?? "")
                }
            }
        }
        return input
    }

    @Test("1,500 random streams: whole, byte by byte, at every split, in random pieces agree")
    func splitInvariance() {
        var generator = Connection.SeededGenerator(seed: 0x5245_5350)
        var outcomes = (values: 0, failed: 0, partial: 0)
        let limits = RESPDecoder.Limits(maxBulkLength: 35, maxElementCount: 4, maxDepth: 3, maxLineLength: 48, maxValueBytes: 400)
        for _ in 0..<1500 {
            let input = Self.randomInput(&generator)
            let whole = R.feed(input, pieces: [input.count], limits: limits)
            #expect(R.feed(input, pieces: Array(repeating: 1, count: input.count), limits: limits) == whole)
            for cut in stride(from: 0, through: input.count, by: max(1, input.count / 16)) {
                #expect(R.feed(input, pieces: [cut, input.count - cut], limits: limits) == whole)
            }
            var pieces: [Int] = []
            var left = input.count
            while left > 0 {
                let size = min(left, Int.random(in: 1...32, using: &generator))
                pieces.append(size)
                left -= size
            }
            #expect(R.feed(input, pieces: pieces, limits: limits) == whole)
            if whole.error != nil { outcomes.failed += 1 } else if whole.partial { outcomes.partial += 1 } else { outcomes.values += 1 }
        }
        // The generator reaches every outcome, so that the comparisons above mean something.
        #expect(outcomes.values > 300 && outcomes.failed > 100 && outcomes.partial > 50, "\(outcomes)")
    }

    @Test("500 random values re-encode to bytes that decode to the same encoding")
    func roundTrip() throws {
        var generator = Connection.SeededGenerator(seed: 17)
        for _ in 0..<500 {
            let value = Self.randomValue(&generator, depth: 4)
            let wire = R.encode(value)
            let decoded = try R.decodeAll(wire)
            #expect(decoded.count == 1)
            #expect(decoded.first.map(R.encode) == wire)
            if case .double(let number) = value, number.isNaN { continue }
            if !Self.containsNaN(value) { #expect(decoded.first == value) }
        }
    }

    static func containsNaN(_ value: RESPValue) -> Bool {
        switch value {
        case .double(let number): return number.isNaN
        case .array(let elements?), .set(let elements), .push(let elements): return elements.contains(where: containsNaN)
        case .map(let entries): return entries.contains { containsNaN($0.key) || containsNaN($0.value) }
        default: return false
        }
    }

    @Test("a valid stream cut at every byte is partial there, never failed, and complete at the end")
    func truncatedAtEveryByte() throws {
        let wire = R.bytes("*3\r\n$7\r\nmessage\r\n%1\r\n+k\r\n,1.5\r\n>2\r\n=6\r\ntxt:hi\r\n(-123\r\n")
        for cut in 0..<wire.count {
            var decoder = RESPDecoder()
            decoder.feed(wire[..<cut])
            #expect(try decoder.next() == nil, "cut at \(cut)")
            #expect(decoder.hasPartialValue == (cut > 0))
        }
        #expect(try R.decodeAll(wire).count == 1)
    }
}

@Suite("RESP encoder: commands as arrays of bulk strings")
struct RESPEncoderTests {
    @Test("a command's bytes are the specification's")
    func command() {
        var output: [UInt8] = []
        RESPEncoder.appendCommand(["SUBSCRIBE", "room:1", "é"], to: &output)
        #expect(output == R.bytes("*3\r\n$9\r\nSUBSCRIBE\r\n$6\r\nroom:1\r\n$2\r\né\r\n"))
    }

    @Test("binary bulk strings, from any collection, keep every byte")
    func binary() throws {
        var output: [UInt8] = []
        let payload: [UInt8] = [0, 13, 10, 255]
        RESPEncoder.appendArrayHeader(count: 2, to: &output)
        RESPEncoder.appendBulkString(payload, to: &output)
        RESPEncoder.appendBulkString(payload.lazy.map { $0 }, to: &output)
        #expect(try R.decodeAll(output) == [.array([.bulkString(payload), .bulkString(payload)])])
    }

    @Test("integers at both ends of Int64 and every double form round-trip")
    func numbers() throws {
        for value in [Int64.min, -1, 0, 9, 10, Int64.max] {
            #expect(try R.decodeAll(R.encode(.integer(value))) == [.integer(value)])
        }
        for value in [0.1, -0.0, 1e-7, 1e300, .leastNonzeroMagnitude, .infinity, -.infinity, 123456789.125] {
            #expect(try R.decodeAll(R.encode(.double(value))) == [.double(value)])
        }
        #expect(R.encode(.double(-.infinity)) == R.bytes(",-inf\r\n"))
    }

    @Test("RESP2 nulls are written as $-1 and *-1")
    func nulls() {
        #expect(R.encode(.bulkString(nil)) == R.bytes("$-1\r\n"))
        #expect(R.encode(.array(nil)) == R.bytes("*-1\r\n"))
        #expect(R.encode(.null) == R.bytes("_\r\n"))
    }
}
