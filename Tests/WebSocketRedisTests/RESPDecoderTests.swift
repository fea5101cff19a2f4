// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketRedis

@Suite("RESP2 and RESP3: every type of the specification")
struct RESPTypesTests {
    static let vectors: [(String, RESPValue)] = [
        ("+OK\r\n", .simpleString(R.bytes("OK"))),
        ("+\r\n", .simpleString([])),
        ("-ERR unknown command 'HELLO'\r\n", .error(R.bytes("ERR unknown command 'HELLO'"))),
        (":0\r\n", .integer(0)),
        (":1000\r\n", .integer(1000)),
        (":-42\r\n", .integer(-42)),
        (":+7\r\n", .integer(7)),
        (":-0\r\n", .integer(0)),
        (":9223372036854775807\r\n", .integer(.max)),
        (":-9223372036854775808\r\n", .integer(.min)),
        ("$5\r\nhello\r\n", .bulkString(R.bytes("hello"))),
        ("$0\r\n\r\n", .bulkString([])),
        ("$4\r\na\r\nb\r\n", .bulkString(R.bytes("a\r\nb"))),
        ("$-1\r\n", .bulkString(nil)),
        ("*0\r\n", .array([])),
        ("*2\r\n$5\r\nhello\r\n$5\r\nworld\r\n", .array([.bulkString(R.bytes("hello")), .bulkString(R.bytes("world"))])),
        ("*3\r\n:1\r\n:2\r\n:3\r\n", .array([.integer(1), .integer(2), .integer(3)])),
        ("*-1\r\n", .array(nil)),
        ("*2\r\n*3\r\n:1\r\n:2\r\n:3\r\n*2\r\n+Hello\r\n-World\r\n",
         .array([.array([.integer(1), .integer(2), .integer(3)]), .array([.simpleString(R.bytes("Hello")), .error(R.bytes("World"))])])),
        ("*3\r\n$5\r\nhello\r\n$-1\r\n$5\r\nworld\r\n", .array([.bulkString(R.bytes("hello")), .bulkString(nil), .bulkString(R.bytes("world"))])),
        ("_\r\n", .null),
        ("#t\r\n", .boolean(true)),
        ("#f\r\n", .boolean(false)),
        (",1.23\r\n", .double(1.23)),
        (",10\r\n", .double(10)),
        (",-1.5e3\r\n", .double(-1500)),
        (",1E+2\r\n", .double(100)),
        (",0.5E-2\r\n", .double(0.005)),
        (",inf\r\n", .double(.infinity)),
        (",-inf\r\n", .double(-.infinity)),
        ("(3492890328409238509324850943850943825024385\r\n", .bigNumber(R.bytes("3492890328409238509324850943850943825024385"))),
        ("(-12\r\n", .bigNumber(R.bytes("-12"))),
        ("(+12\r\n", .bigNumber(R.bytes("+12"))),
        ("!21\r\nSYNTAX invalid syntax\r\n", .bulkError(R.bytes("SYNTAX invalid syntax"))),
        ("=15\r\ntxt:Some string\r\n", .verbatimString(format: R.bytes("txt"), text: R.bytes("Some string"))),
        ("=4\r\nmkd:\r\n", .verbatimString(format: R.bytes("mkd"), text: [])),
        ("%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n",
         .map([.init(key: .simpleString(R.bytes("first")), value: .integer(1)),
               .init(key: .simpleString(R.bytes("second")), value: .integer(2))])),
        ("%0\r\n", .map([])),
        ("~5\r\n+orange\r\n+apple\r\n#t\r\n:100\r\n:999\r\n",
         .set([.simpleString(R.bytes("orange")), .simpleString(R.bytes("apple")), .boolean(true), .integer(100), .integer(999)])),
        (">3\r\n$7\r\nmessage\r\n$4\r\nroom\r\n$2\r\nhi\r\n",
         .push([.bulkString(R.bytes("message")), .bulkString(R.bytes("room")), .bulkString(R.bytes("hi"))])),
        // The specification's attribute example: skipped, the array it annotates alone.
        ("|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n",
         .array([.integer(2_039_123), .integer(9_543_892)])),
        // An attribute inside an aggregate is not an element of it.
        ("*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n", .array([.integer(1), .integer(2)])),
        ("|0\r\n:5\r\n", .integer(5)),
    ]

    @Test("the specification's examples and edges decode, and re-encode to what decodes the same",
          arguments: 0..<vectors.count)
    func vector(_ index: Int) throws {
        let (wire, expected) = Self.vectors[index]
        let value = try #require(try R.decodeOne(wire))
        #expect(value == expected)
        let again = try #require(try R.decodeAll(R.encode(value)).first)
        #expect(again == expected)
    }

    @Test("NaN: any sign decodes to Double.nan, and is written nan")
    func nan() throws {
        for text in [",nan\r\n", ",-nan\r\n"] {
            guard case .double(let value)? = try R.decodeOne(text) else { Issue.record("not a double"); continue }
            #expect(value.isNaN)
            #expect(R.encode(.double(value)) == R.bytes(",nan\r\n"))
        }
    }

    @Test("values in one stream come out one at a time, in order, and nothing before its last byte")
    func stream() throws {
        let wire = R.bytes("+OK\r\n:1\r\n$3\r\nabc\r\n")
        var decoder = RESPDecoder()
        decoder.feed(wire.dropLast())
        #expect(try decoder.next() == .simpleString(R.bytes("OK")))
        #expect(try decoder.next() == .integer(1))
        #expect(try decoder.next() == nil)
        #expect(decoder.hasPartialValue)
        decoder.feed([0x0A])
        #expect(try decoder.next() == .bulkString(R.bytes("abc")))
        #expect(try decoder.next() == nil)
        #expect(!decoder.hasPartialValue)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("deep nesting up to the limit decodes; the top-level value's byte count restarts after it")
    func nestingAtTheLimit() throws {
        let limits = RESPDecoder.Limits(maxDepth: 4)
        let values = try R.decodeAll(R.bytes("*1\r\n*1\r\n*1\r\n*0\r\n:1\r\n"), limits: limits)
        #expect(values == [.array([.array([.array([.array([])])])]), .integer(1)])
    }
}

@Suite("RESP: malformed input of every kind fails, at the byte that shows it")
struct RESPMalformedTests {
    static let cases: [(String, RESPError.Code)] = [
        ("?x\r\n", .invalidType),
        ("x", .invalidType),
        ("\r\n", .invalidType),
        ("PING\r\n", .invalidType),
        ("+OK\n", .invalidLine),
        ("+OK\rX", .invalidLine),
        ("+O\nK\r\n", .invalidLine),
        ("$3\r\nabcX\r\n", .invalidLine),
        ("$3\r\nabc\rX", .invalidLine),
        ("$3\r\nabc\n", .invalidLine),
        ("$3\r\nabcd", .invalidLine),
        ("_x\r\n", .invalidLine),
        ("$-2\r\n", .invalidLength),
        ("*-2\r\n", .invalidLength),
        ("%-1\r\n", .invalidLength),
        ("!-1\r\n", .invalidLength),
        ("$\r\n", .invalidLength),
        ("$?\r\n;4\r\nHell\r\n;0\r\n", .invalidLength),
        ("*?\r\n:1\r\n.\r\n", .invalidLength),
        ("$+3\r\nabc\r\n", .invalidLength),
        ("$3x\r\n", .invalidLength),
        ("*99999999999999999999\r\n", .invalidLength),
        (":\r\n", .invalidInteger),
        (":-\r\n", .invalidInteger),
        (":1.5\r\n", .invalidInteger),
        (": 1\r\n", .invalidInteger),
        (":9223372036854775808\r\n", .invalidInteger),
        (":-9223372036854775809\r\n", .invalidInteger),
        (":99999999999999999999999\r\n", .invalidInteger),
        ("#x\r\n", .invalidBoolean),
        ("#tt\r\n", .invalidBoolean),
        ("#\r\n", .invalidBoolean),
        (",\r\n", .invalidDouble),
        (",1.2.3\r\n", .invalidDouble),
        (",0x10\r\n", .invalidDouble),
        (",infinity\r\n", .invalidDouble),
        (",1e\r\n", .invalidDouble),
        (",.\r\n", .invalidDouble),
        (",.5\r\n", .invalidDouble),
        (",1.\r\n", .invalidDouble),
        (",1.e5\r\n", .invalidDouble),
        (",-\r\n", .invalidDouble),
        ("(\r\n", .invalidBigNumber),
        ("(+\r\n", .invalidBigNumber),
        ("(--1\r\n", .invalidBigNumber),
        ("(12a\r\n", .invalidBigNumber),
        ("=3\r\ntxt\r\n", .invalidVerbatimString),
        ("=5\r\ntxt;x\r\n", .invalidVerbatimString),
    ]

    @Test("each malformed input fails with its code", arguments: 0..<cases.count)
    func malformed(_ index: Int) {
        let (wire, code) = Self.cases[index]
        #expect(R.error(R.bytes(wire))?.code == code, "\(String(reflecting: wire))")
    }

    @Test("the error's offset is the stream's, across values already given out")
    func offset() {
        let error = R.error(R.bytes("+OK\r\n:12\r\n#x\r\n"))
        #expect(error?.code == .invalidBoolean)
        #expect(error?.offset == 11)
    }

    @Test("after an error, every call fails the same and nothing is held")
    func sticky() {
        var decoder = RESPDecoder()
        decoder.feed(R.bytes("?\r\n+OK\r\n"))
        #expect(throws: RESPError.self) { try decoder.next() }
        decoder.feed(R.bytes("+OK\r\n"))
        #expect(decoder.bufferedByteCount == 0)
        #expect(!decoder.hasPartialValue)
        #expect(throws: RESPError.self) { try decoder.next() }
    }
}

@Suite("RESP: limits are enforced before the bytes they bound arrive")
struct RESPLimitsTests {
    @Test("a bulk length over the limit fails as soon as its line is complete, for every bulk type")
    func bulk() {
        let limits = RESPDecoder.Limits(maxBulkLength: 10)
        for type in ["$", "!", "="] {
            #expect(R.error(R.bytes("\(type)11\r\n"), limits: limits)?.code == .bulkTooLong)
            #expect(R.error(R.bytes("\(type)10\r\nabc:456789\r\n"), limits: limits) == nil)
        }
        #expect(R.error(R.bytes("$9223372036854775807\r\n"))?.code == .bulkTooLong)
        #expect(R.error(R.bytes("$16842753\r\n"))?.code == .bulkTooLong)
    }

    @Test("an element count over the limit fails at its header, for every aggregate type")
    func count() {
        let limits = RESPDecoder.Limits(maxElementCount: 3)
        for type in ["*", "%", "~", ">", "|"] {
            #expect(R.error(R.bytes("\(type)4\r\n"), limits: limits)?.code == .tooManyElements)
            #expect(R.error(R.bytes("\(type)3\r\n"), limits: limits) == nil)
        }
    }

    @Test("nesting one deeper than the limit fails at that header, whatever the aggregate")
    func depth() {
        let limits = RESPDecoder.Limits(maxDepth: 3)
        #expect(R.error(R.bytes("*1\r\n%1\r\n~1\r\n>1\r\n"), limits: limits)?.code == .tooDeep)
        #expect(R.error(R.bytes("*1\r\n*1\r\n|1\r\n*0\r\n"), limits: limits)?.code == .tooDeep)
        #expect(R.error(R.bytes("*1\r\n%1\r\n~1\r\n"), limits: limits) == nil)
        // The default: 100,000 nested headers fail at the 33rd, with no recursion to overflow.
        let deep = R.bytes(String(repeating: "*1\r\n", count: 100_000))
        let error = R.error(deep)
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == 32 * 4)
    }

    @Test("a line without CRLF fails once it is longer than the limit, not later")
    func line() {
        let limits = RESPDecoder.Limits(maxLineLength: 8)
        #expect(R.error(R.bytes("+12345678\r\n"), limits: limits) == nil)
        var decoder = RESPDecoder(limits: limits)
        decoder.feed(R.bytes("+12345678"))
        #expect(throws: Never.self) { try decoder.next() }
        decoder.feed(R.bytes("9"))
        #expect(throws: RESPError.self) { try decoder.next() }
        #expect(R.error(R.bytes(":" + String(repeating: "1", count: 9)), limits: limits)?.code == .lineTooLong)
    }

    @Test("one value's bytes, elements and attributes included, are bounded")
    func valueBytes() {
        let limits = RESPDecoder.Limits(maxValueBytes: 30)
        // 4 + 3 × 9 = 31 bytes: the third element's header already shows it.
        let error = R.error(R.bytes("*3\r\n$3\r\nabc\r\n$3\r\nabc\r\n$3\r\n"), limits: limits)
        #expect(error?.code == .valueTooLarge)
        #expect(error?.offset == 22)
        #expect(R.error(R.bytes("*2\r\n$3\r\nabc\r\n$3\r\nabc\r\n*2\r\n$3\r\nabc\r\n$3\r\nabc\r\n"), limits: limits) == nil)
        #expect(R.error(R.bytes("|1\r\n+k\r\n+v\r\n*2\r\n$3\r\nabc\r\n$3\r\nabc\r\n"), limits: limits)?.code == .valueTooLarge)
    }

    @Test("limits as large as Int allows: the largest lengths fail, nothing overflows")
    func hugeLimits() {
        var limits = RESPDecoder.Limits()
        limits.maxBulkLength = .max
        limits.maxElementCount = .max
        limits.maxValueBytes = .max
        limits.maxLineLength = .max
        limits.maxDepth = -1
        #expect(RESPDecoder(limits: limits).limits.maxDepth == 1)
        #expect(R.error(R.bytes("$9223372036854775807\r\n"), limits: limits)?.code == .bulkTooLong)
        #expect(R.error(R.bytes("%9223372036854775807\r\n"), limits: limits)?.code == .tooManyElements)
        #expect(R.error(R.bytes("$2305843009213693951\r\n"), limits: limits)?.code == .valueTooLarge)
        #expect(R.error(R.bytes("%2305843009213693951\r\n"), limits: limits) == nil)
    }

    @Test("a line that arrives one byte at a time is scanned once, not once per byte (quadratic work)")
    func lineOneByteAtATime() throws {
        let line = R.bytes("+" + String(repeating: "a", count: 60_000) + "\r\n")
        func scanned(piece: Int) throws -> Int {
            var decoder = RESPDecoder()
            var start = 0
            var values = 0
            while start < line.count {
                let end = min(start + piece, line.count)
                decoder.feed(line[start..<end])
                start = end
                while try decoder.next() != nil { values += 1 }
            }
            #expect(values == 1)
            return decoder.scannedByteCount
        }
        let whole = try scanned(piece: line.count)
        #expect(whole == 60_000)
        #expect(try scanned(piece: 1) == whole)
        #expect(try scanned(piece: 7) == whole)
    }

    @Test("a huge announced aggregate costs nothing until its elements arrive")
    func noReservation() throws {
        var decoder = RESPDecoder()
        decoder.feed(R.bytes("*1048576\r\n:1\r\n"))
        #expect(try decoder.next() == nil)
        #expect(decoder.depth == 1)
        #expect(decoder.stack[0].elements.capacity < 1024)
    }
}
