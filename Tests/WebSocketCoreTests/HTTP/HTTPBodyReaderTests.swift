// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Refusal body reader (RFC 9112 §6.3, §7.1)")
struct HTTPBodyReaderTests {
    typealias S = HTTPTestSupport

    static func head(status: Int = 403, _ headers: [(String, String)]) -> Connection.HTTPResponseHead {
        Connection.HTTPResponseHead(version: .http1_1, status: status, reason: "", headers: Connection.HTTPHeaders(headers))
    }

    /// Feeds `input` in pieces ending at `cuts`, stopping once complete. Returns the total consumed.
    static func feed(_ reader: inout HTTPBodyReader, _ input: [UInt8], cuts: [Int]) -> (consumed: Int, isComplete: Bool) {
        var start = 0
        var total = 0
        for end in cuts + [input.count] where end >= start {
            let (consumed, complete) = reader.consume(input[start..<end])
            total += consumed
            if complete { return (total, true) }
            start = end
        }
        return (total, false)
    }

    @Test("Content-Length, split at every point, bytes after the body left alone")
    func contentLength() {
        let input = S.bytes("hello worldEXTRA")
        for cut in 0...input.count {
            var reader = HTTPBodyReader(head: Self.head([("Content-Length", "11")]), limit: 100)
            let (consumed, complete) = Self.feed(&reader, input, cuts: [cut])
            #expect(consumed == 11, "cut \(cut)")
            #expect(complete)
            #expect(reader.isComplete)
            #expect(reader.body == S.bytes("hello world"))
            #expect(reader.consume(input[...]) == (0, true))
        }
    }

    static let chunked = S.bytes(
        "4;name=value\r\nWiki\r\n5 ; a=\"b c\" ;b\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n000\r\nTrailer: x\r\nOther: y\r\n\r\n")
    static let chunkedBody = S.bytes("Wikipedia in\r\n\r\nchunks.")

    @Test("chunked with extensions and trailers, split at every point")
    func chunkedEverySplit() {
        let input = Self.chunked + S.bytes("EXTRA")
        for cut in 0...input.count {
            var reader = HTTPBodyReader(head: Self.head([("Transfer-Encoding", "chunked")]), limit: 100)
            let (consumed, complete) = Self.feed(&reader, input, cuts: [cut])
            #expect(consumed == Self.chunked.count, "cut \(cut)")
            #expect(complete)
            #expect(reader.body == Self.chunkedBody)
        }
    }

    @Test("chunked, byte by byte, with bare LF line ends and uppercase hex")
    func chunkedByteByByte() {
        let input = S.bytes("A\nabcdefghij\n1a\r\nABCDEFGHIJKLMNOPQRSTUVWXYZ\r\n0\n\n")
        var reader = HTTPBodyReader(head: Self.head([("transfer-encoding", "gzip, Chunked")]), limit: 100)
        let (consumed, complete) = Self.feed(&reader, input, cuts: Array(1..<input.count))
        #expect(consumed == input.count)
        #expect(complete)
        #expect(reader.body == S.bytes("abcdefghijABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    }

    @Test("malformed chunking completes with what was read", arguments: [
        ("zz\r\n", ""),
        ("4\r\nWikiX\r\n", "Wiki"),
        ("4\r\nWiki\r\n5x\r\npedia\r\n", "Wiki"),
        ("4\rWiki", ""),
        ("\r\n", ""),
        ("-1\r\n", ""),
        ("0\r\nTrailer\rx", ""),
        ("ffffffffffffffffffff\r\n", ""),
        ("4\r\nWiki\r\n10000000000000000\r\n", "Wiki"),
    ])
    func malformedChunking(input: String, body: String) {
        var reader = HTTPBodyReader(head: Self.head([("Transfer-Encoding", "chunked")]), limit: 100)
        let (consumed, complete) = reader.consume(S.bytes(input + "MORE")[...])
        #expect(complete)
        #expect(consumed <= input.utf8.count)
        #expect(reader.body == S.bytes(body))
    }

    @Test("read until close, then finish()")
    func untilClose() {
        var reader = HTTPBodyReader(head: Self.head([("Server", "x")]), limit: 100)
        #expect(reader.consume(S.bytes("part one, ")[...]) == (10, false))
        #expect(reader.consume(S.bytes("part two")[...]) == (8, false))
        #expect(!reader.isComplete)
        reader.finish()
        #expect(reader.isComplete)
        #expect(reader.body == S.bytes("part one, part two"))
        #expect(reader.consume(S.bytes("late")[...]) == (0, true))
        // A truncated Content-Length body ends the same way.
        var short = HTTPBodyReader(head: Self.head([("Content-Length", "100")]), limit: 100)
        #expect(short.consume(S.bytes("abc")[...]) == (3, false))
        short.finish()
        #expect(short.isComplete && short.body == S.bytes("abc"))
    }

    @Test("framing choice", arguments: [
        ([("Content-Length", "3")], 200, "abc"),
        ([("Content-Length", "3, 3")], 200, "abc"),
        ([("Content-Length", "3"), ("content-length", "3")], 200, "abc"),
        ([("Content-Length", "3"), ("Content-Length", "4")], 200, "abcdefgh"),  // conflicting: until close
        ([("Content-Length", "abc")], 200, "abcdefgh"),  // invalid: until close
        ([("Content-Length", "-3")], 200, "abcdefgh"),
        ([("Content-Length", "+3")], 200, "abcdefgh"),
        ([("Content-Length", "")], 200, "abcdefgh"),
        ([("Content-Length", "99999999999999999999999")], 200, "abcdefgh"),  // beyond UInt64: until close
        ([("Content-Length", "0")], 200, ""),
        ([("Content-Length", "3"), ("Transfer-Encoding", "identity")], 200, "abcdefgh"),  // TE not chunked: until close
        ([("Content-Length", "3")], 204, ""),
        ([("Content-Length", "3")], 304, ""),
        ([("Content-Length", "3")], 100, ""),
        ([], 204, ""),
        ([], 400, "abcdefgh"),
    ])
    func framing(headers: [(String, String)], status: Int, body: String) {
        var reader = HTTPBodyReader(head: Self.head(status: status, headers), limit: 100)
        _ = reader.consume(S.bytes("abcdefgh")[...])
        reader.finish()
        #expect(reader.body == S.bytes(body))
    }

    @Test("bodiless statuses are complete before any byte")
    func bodiless() {
        var reader = HTTPBodyReader(head: Self.head(status: 304, [("Content-Length", "10")]), limit: 100)
        #expect(reader.isComplete)
        #expect(reader.consume(S.bytes("HTTP/1.1 ...")[...]) == (0, true))
        let zero = HTTPBodyReader(head: Self.head([("Content-Length", "0")]), limit: 100)
        #expect(zero.isComplete)
    }

    @Test("a declared Content-Length of 10^18 keeps only the limit and allocates nothing big")
    func hugeContentLength() {
        var reader = HTTPBodyReader(head: Self.head([("Content-Length", "1000000000000000000")]), limit: 10)
        let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
        for _ in 0..<16 {
            #expect(reader.consume(chunk[...]) == (chunk.count, false))
        }
        #expect(reader.body == [UInt8](repeating: 0x61, count: 10))
        #expect(reader.body.capacity < 1 << 10)
        reader.finish()
        #expect(reader.isComplete)
    }

    @Test("a chunk size of ffffffffffffffffffff does not trap")
    func hugeChunkSize() {
        var reader = HTTPBodyReader(head: Self.head([("Transfer-Encoding", "chunked")]), limit: 10)
        let (consumed, complete) = reader.consume(S.bytes("3\r\nabc\r\nffffffffffffffffffff\r\n")[...] + [0x61, 0x62])
        #expect(complete)
        #expect(consumed < 30)
        #expect(reader.body == S.bytes("abc"))
        // The largest size that fits is read as data, and only the limit is kept.
        var big = HTTPBodyReader(head: Self.head([("Transfer-Encoding", "chunked")]), limit: 10)
        #expect(big.consume(S.bytes("ffffffffffffffff\r\n")[...]) == (18, false))
        let chunk = [UInt8](repeating: 0x62, count: 64 << 10)
        for _ in 0..<16 {
            #expect(big.consume(chunk[...]) == (chunk.count, false))
        }
        #expect(big.body == [UInt8](repeating: 0x62, count: 10))
        #expect(big.body.capacity < 1 << 10)
    }

    @Test("the limit holds across chunks and for read-until-close, and a zero limit keeps nothing")
    func limits() {
        var chunked = HTTPBodyReader(head: Self.head([("Transfer-Encoding", "chunked")]), limit: 6)
        #expect(chunked.consume(Self.chunked[...]) == (Self.chunked.count, true))
        #expect(chunked.body == S.bytes("Wikipe"))
        var close = HTTPBodyReader(head: Self.head([]), limit: 3)
        _ = close.consume(S.bytes("abcdef")[...])
        #expect(close.body == S.bytes("abc"))
        var none = HTTPBodyReader(head: Self.head([("Content-Length", "3")]), limit: 0)
        #expect(none.consume(S.bytes("abc")[...]) == (3, true))
        #expect(none.body.isEmpty)
        var negative = HTTPBodyReader(head: Self.head([]), limit: -5)
        _ = negative.consume(S.bytes("abc")[...])
        #expect(negative.body.isEmpty)
    }

    @Test("mutated chunked bodies: no trap, the limit holds, and any split gives the same result")
    func mutatedChunkedBodies() {
        var random = Connection.SeededGenerator(seed: 9112)
        let interesting: [UInt8] = [0x0D, 0x0A, 0x3B, 0x20, 0x30, 0x66, 0x46, 0x7A, 0x00]
        for _ in 0..<1_000 {
            var input = Self.chunked + S.bytes("tail")
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<input.count, using: &random)
                input[at] = interesting.randomElement(using: &random) ?? 0
            }
            let head = Self.head([("Transfer-Encoding", "chunked")])
            var whole = HTTPBodyReader(head: head, limit: 8)
            let expected = whole.consume(input[...])
            let cut = Int.random(in: 0...input.count, using: &random)
            var split = HTTPBodyReader(head: head, limit: 8)
            let result = Self.feed(&split, input, cuts: [cut])
            #expect(result.consumed == expected.consumed && result.isComplete == expected.isComplete)
            #expect(split.body == whole.body)
            #expect(whole.body.count <= 8)
        }
    }
}
