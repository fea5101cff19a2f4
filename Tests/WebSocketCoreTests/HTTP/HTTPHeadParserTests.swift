// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("HTTP head parser (RFC 9112 §2-§5)")
struct HTTPHeadParserTests {
    typealias S = HTTPTestSupport

    static let sample = S.bytes(S.sampleRequest)

    static var expectedSample: Connection.HTTPRequestHead {
        Connection.HTTPRequestHead(method: "GET", target: "/chat", version: .http1_1, headers: [
            "Host": "server.example.com",
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Origin": "http://example.com",
            "Sec-WebSocket-Protocol": "chat, superchat",
            "Sec-WebSocket-Version": "13",
        ])
    }

    @Test("parses the RFC 6455 sample request in one piece")
    func sampleWhole() {
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let (consumed, outcome) = parser.consume(Self.sample)
        #expect(consumed == Self.sample.count)
        #expect(outcome == .request(Self.expectedSample))
        #expect(parser.isFinished)
    }

    @Test("every split point gives the same outcome and consumed count")
    func everySplit() {
        for cut in 0...Self.sample.count {
            var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
            let (consumed, outcome) = S.feed(&parser, Self.sample, cuts: [cut])
            #expect(consumed == Self.sample.count, "cut \(cut)")
            #expect(outcome == .request(Self.expectedSample), "cut \(cut)")
        }
    }

    @Test("every pair of split points gives the same outcome")
    func everyPairOfSplits() {
        let input = S.bytes("GET /a HTTP/1.1\r\nHost: h\r\nX: y\r\n\r\n")
        var expected = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let whole = expected.consume(input)
        for a in 0...input.count {
            for b in a...input.count {
                var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
                let result = S.feed(&parser, input, cuts: [a, b])
                #expect(result.consumed == whole.consumed && result.outcome == whole.outcome, "cuts \(a), \(b)")
            }
        }
    }

    @Test("byte at a time")
    func byteAtATime() {
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let (consumed, outcome) = S.feed(&parser, Self.sample, cuts: Array(1..<Self.sample.count))
        #expect(consumed == Self.sample.count)
        #expect(outcome == .request(Self.expectedSample))
    }

    @Test("bytes after the head are not consumed, at any split")
    func trailingBytesStay() {
        let frame: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let input = Self.sample + frame
        for cut in 0...input.count {
            var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
            let (consumed, outcome) = S.feed(&parser, input, cuts: [cut])
            #expect(consumed == Self.sample.count, "cut \(cut)")
            #expect(outcome == .request(Self.expectedSample))
        }
        // Once finished, the parser consumes nothing more and repeats its outcome.
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        _ = parser.consume(Self.sample)
        let again = parser.consume(frame)
        #expect(again.consumed == 0)
        #expect(again.outcome == .request(Self.expectedSample))
    }

    @Test("a response followed by the first frame")
    func responseThenFrame() {
        let head = S.bytes(S.sampleResponse)
        var parser = HTTPHeadParser(kind: .response, limits: Connection.Limits())
        let (consumed, outcome) = parser.consume(head + [0x81, 0x02, 0x68, 0x69])
        #expect(consumed == head.count)
        guard case .response(let response) = outcome else {
            Issue.record("expected a response, got \(outcome)")
            return
        }
        #expect(response.status == 101)
        #expect(response.reason == "Switching Protocols")
        #expect(response.version == .http1_1)
        #expect(response.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.headers.count == 4)
    }

    @Test("bare LF line ends are accepted (RFC 9112 §2.2)")
    func bareLF() {
        let lf = S.removingCR(S.sampleRequest)
        #expect(S.parse(lf) == .request(Self.expectedSample))
        // Mixed CRLF and LF.
        #expect(S.requestHead("GET / HTTP/1.1\nHost: a\r\nX: b\n\r\n")?.headers["X"] == "b")
    }

    @Test("field lines read where they lie are kept as they came, terminators and all; cut across reads, each is kept with a line feed")
    func fieldLinesKeptAsTheyCame() throws {
        let block = "Host: h\r\nX-A:  1 \nX-B:\t2\r\nUpgrade: websocket\nX-C:\r\n"
        let input = S.bytes("GET / HTTP/1.1\r\n" + block + "\r\n")
        let expected: [Connection.HTTPHeaders.Field] = [
            .init(name: "Host", value: "h"), .init(name: "X-A", value: "1"), .init(name: "X-B", value: "2"),
            .init(name: "Upgrade", value: "websocket"), .init(name: "X-C", value: ""),
        ]
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        guard case .request(let whole) = parser.consume(input).outcome else {
            Issue.record("the head was not parsed")
            return
        }
        // One copy of the wire's field lines.
        #expect(whole.headers.parsedBytes == S.bytes(block))
        #expect(whole.headers.fields == expected)
        #expect(whole.headers.count == expected.count)
        #expect(whole.headers["x-b"] == "2")
        #expect(whole.headers.values(for: "X-C") == [""])
        // A byte at a time: every line stored, then kept with a line feed.
        var bytewise = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        guard case .request(let fed) = S.feed(&bytewise, input, cuts: Array(1..<input.count)).outcome else {
            Issue.record("the head fed a byte at a time was not parsed")
            return
        }
        #expect(fed.headers.parsedBytes == S.bytes("Host: h\nX-A:  1 \nX-B:\t2\nUpgrade: websocket\nX-C:\n"))
        #expect(fed.headers == whole.headers)
        // Every cut: some lines kept as runs, the cut one stored; the same fields in the same order.
        for cut in 0...input.count {
            var split = HTTPHeadParser(kind: .request, limits: Connection.Limits())
            guard case .request(let head) = S.feed(&split, input, cuts: [cut]).outcome else {
                Issue.record("cut \(cut): not parsed")
                continue
            }
            #expect(head.headers.fields == expected, "cut \(cut)")
            #expect(head.headers.count == expected.count, "cut \(cut)")
            let kept = try #require(head.headers.parsedBytes)
            #expect(kept.count <= S.bytes(block).count, "cut \(cut): more kept than the head held")
        }
    }

    @Test("empty lines before the request line are ignored and counted")
    func leadingEmptyLines() {
        let input = "\r\n\n\r\n" + S.sampleRequest
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let (consumed, outcome) = parser.consume(S.bytes(input))
        #expect(consumed == input.utf8.count)
        #expect(outcome == .request(Self.expectedSample))
        var limits = Connection.Limits()
        limits.maxHeaderBytes = Self.sample.count + 4
        #expect(S.parse(input, limits: limits) == .failure(.headTooLarge))
        limits.maxHeaderBytes = Self.sample.count + 5
        #expect(S.parse(input, limits: limits) == .request(Self.expectedSample))
    }

    @Test("header values: OWS trimmed, inner spaces kept, obs-text decoded with repair")
    func fieldValues() {
        let head = S.requestHead("GET / HTTP/1.1\r\nA:   x  y \t\r\nB:\r\nC: caf\u{E9}\r\nD:\t\t\r\n\r\n")
        #expect(head?.headers["A"] == "x  y")
        #expect(head?.headers["B"] == "")
        #expect(head?.headers["C"] == "caf\u{E9}")
        #expect(head?.headers["D"] == "")
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let invalidUTF8 = S.bytes("GET / HTTP/1.1\r\nE: a") + [0xFF, 0xC3] + S.bytes("b\r\n\r\n")
        guard case .request(let h) = parser.consume(invalidUTF8).outcome else {
            Issue.record("obs-text must be accepted")
            return
        }
        #expect(h.headers["E"] == "a\u{FFFD}\u{FFFD}b")
        // Names keep their case, lookups ignore it; duplicates are kept in order.
        let dup = S.requestHead("GET / HTTP/1.1\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n")
        #expect(dup?.headers.values(for: "X-DUP") == ["1", "2"])
        #expect(dup?.headers.fields.map(\.name) == ["X-Dup", "x-dup"])
    }

    @Test("malformed header lines are refused", arguments: [
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", Connection.HandshakeError.malformedHeader),  // space before colon
        ("GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", .malformedHeader),
        ("GET / HTTP/1.1\r\nHost a\r\n\r\n", .malformedHeader),  // no colon
        ("GET / HTTP/1.1\r\n: a\r\n\r\n", .malformedHeader),  // empty name
        ("GET / HTTP/1.1\r\nX(y): a\r\n\r\n", .malformedHeader),  // non-token name
        ("GET / HTTP/1.1\r\nX\u{E9}: a\r\n\r\n", .malformedHeader),  // non-ASCII name
        ("GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n", .malformedHeader),  // NUL
        ("GET / HTTP/1.1\r\nX: a\u{1}b\r\n\r\n", .malformedHeader),  // control
        ("GET / HTTP/1.1\r\nX: a\u{7F}\r\n\r\n", .malformedHeader),  // DEL
        ("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", .malformedHeader),  // bare CR in a value
        ("GET / HTTP/1.1\r\nX: a\r\r\n\r\n", .malformedHeader),  // CR CR LF
        ("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\n X: a\r\n\r\n", .obsoleteLineFolding),  // whitespace before the first field
        ("GET / HTTP/1.1\r\nX: a\r\n\r\r\n", .malformedHeader),  // bare CR on the empty line
    ])
    func malformedFields(input: String, error: Connection.HandshakeError) {
        #expect(S.parse(input) == .failure(error))
    }

    @Test("a failure is decided at the offending byte, and repeated")
    func failurePosition() {
        let input = S.bytes("GET / HTTP/1.1\r\nX: a\r\n b\r\nmore bytes")
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let (consumed, outcome) = parser.consume(input)
        #expect(outcome == .failure(.obsoleteLineFolding))
        #expect(consumed == "GET / HTTP/1.1\r\nX: a\r\n ".utf8.count)
        #expect(parser.consume(input).consumed == 0)
        #expect(parser.consume(input).outcome == .failure(.obsoleteLineFolding))
    }

    @Test("request lines", arguments: [
        ("GET /chat?x=1&y=%20 HTTP/1.1", "GET", "/chat?x=1&y=%20", 1, 1),
        ("GET ws://example.com/chat HTTP/1.1", "GET", "ws://example.com/chat", 1, 1),
        ("POST / HTTP/1.0", "POST", "/", 1, 0),
        ("get * HTTP/1.9", "get", "*", 1, 9),
        ("M-SEARCH * HTTP/1.1", "M-SEARCH", "*", 1, 1),
    ])
    func requestLines(line: String, method: String, target: String, major: Int, minor: Int) {
        let head = S.requestHead(line + "\r\nHost: a\r\n\r\n")
        #expect(head?.method == method)
        #expect(head?.target == target)
        #expect(head?.version == Connection.HTTPVersion(major: major, minor: minor))
    }

    @Test("malformed request lines", arguments: [
        "GET  / HTTP/1.1", "GET / HTTP/1.1 ", " GET / HTTP/1.1", "GET /", "GET / ", "GET", "GET /  HTTP/1.1",
        "GET\t/ HTTP/1.1", "G(T / HTTP/1.1", "GET / http/1.1", "GET / HTTP/1.10", "GET / HTTP/11", "GET / HTTP/1.",
        "GET / HTTP/a.1", "GET /a\u{1}b HTTP/1.1", "GET /\u{E9} HTTP/1.1", "GET /a\u{7F} HTTP/1.1", "GET / HTTP/1.1\r",
        "GET /\rx HTTP/1.1", "GET / XTTP/1.1", "GET / HxTP/1.1", "GET / HTxP/1.1", "GET / HTTx/1.1", "GET / HTTP-1.1",
    ])
    func malformedRequestLines(line: String) {
        #expect(S.parse(line + "\r\nHost: a\r\n\r\n") == .failure(.malformedRequestLine))
    }

    @Test("request HTTP versions other than 1.x are refused by the parser", arguments: [
        "HTTP/2.0", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9",
    ])
    func otherMajorVersions(version: String) {
        #expect(S.parse("GET / \(version)\r\nHost: a\r\n\r\n") == .failure(.unsupportedHTTPVersion))
        #expect(S.parse("\(version) 200 OK\r\n\r\n", kind: .response) == .failure(.unsupportedHTTPVersion))
    }

    @Test("status lines", arguments: [
        ("HTTP/1.1 101 Switching Protocols", 101, "Switching Protocols", 1),
        ("HTTP/1.1 101", 101, "", 1),  // the SP after the code missing
        ("HTTP/1.1 101 ", 101, "", 1),  // empty reason
        ("HTTP/1.0 404 Not Found", 404, "Not Found", 0),
        ("HTTP/1.1 200 \tOK  then\tsome", 200, "\tOK  then\tsome", 1),
        ("HTTP/1.1 403 Interdit \u{E0} vous", 403, "Interdit \u{E0} vous", 1),
        ("HTTP/1.1 599 x", 599, "x", 1),
        ("HTTP/1.1 100 Continue", 100, "Continue", 1),
    ])
    func statusLines(line: String, status: Int, reason: String, minor: Int) {
        let head = S.responseHead(line + "\r\nA: b\r\n\r\n")
        #expect(head?.status == status)
        #expect(head?.reason == reason)
        #expect(head?.version == Connection.HTTPVersion(major: 1, minor: minor))
        #expect(head?.headers["a"] == "b")
    }

    @Test("malformed status lines", arguments: [
        "HTTP/1.1 10 Short", "HTTP/1.1 1011 Long", "HTTP/1.1  101 x", "HTTP/1.1 abc", "HTTP/1.1 099 x",
        "HTTP/1.1 600 x", "ICY 200 OK", "HTTP/1.1 200 OK\u{1}", "HTTP/1.1 200 OK\u{7F}", "HTTP/1.1", "HTTP/1.1 ",
        "http/1.1 200 OK", "HTTP/1.1\t200 OK", " HTTP/1.1 200 OK", "HTTP/1.1 20", "HTTP/1.1 -99 x",
        "HTTP/1.1 200 a\rb",
    ])
    func malformedStatusLines(line: String) {
        #expect(S.parse(line + "\r\n\r\n", kind: .response) == .failure(.malformedStatusLine))
    }

    // MARK: - Limits

    static func requestLine(length: Int) -> [UInt8] {
        // "GET /" + padding + " HTTP/1.1" has exactly `length` bytes.
        S.bytes("GET /" + String(repeating: "a", count: length - 14) + " HTTP/1.1")
    }

    @Test("request line: exactly at the limit passes, one over fails with 414 without storing it")
    func requestLineLimit() {
        var limits = Connection.Limits()
        limits.maxRequestLineLength = 100
        let atLimit = Self.requestLine(length: 100) + S.bytes("\r\nHost: a\r\n\r\n")
        var ok = HTTPHeadParser(kind: .request, limits: limits)
        guard case .request(let head) = ok.consume(atLimit).outcome else {
            Issue.record("a request line of exactly the limit must pass")
            return
        }
        #expect(head.target.utf8.count == 100 - 13)

        let overLimit = Self.requestLine(length: 101) + S.bytes("\r\nHost: a\r\n\r\n")
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        let (consumed, outcome) = parser.consume(overLimit)
        #expect(outcome == .failure(.requestLineTooLong))
        #expect(Connection.HandshakeError.requestLineTooLong.httpStatus == 414)
        #expect(consumed == 101)  // decided at the 101st byte of the line
        #expect(parser.storedByteCount == 100)
        // The status line has the same limit.
        var response = HTTPHeadParser(kind: .response, limits: limits)
        let reason = String(repeating: "r", count: 100)
        #expect(response.consume(S.bytes("HTTP/1.1 200 \(reason)\r\n\r\n")).outcome == .failure(.requestLineTooLong))
        #expect(response.storedByteCount == 100)
    }

    @Test("head bytes: exactly at the limit passes, one over fails with 431 without storing the excess")
    func headBytesLimit() {
        var limits = Connection.Limits()
        limits.maxHeaderBytes = Self.sample.count
        var ok = HTTPHeadParser(kind: .request, limits: limits)
        #expect(ok.consume(Self.sample).outcome == .request(Self.expectedSample))

        limits.maxHeaderBytes = Self.sample.count - 1
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        let (consumed, outcome) = parser.consume(Self.sample)
        #expect(outcome == .failure(.headTooLarge))
        #expect(Connection.HandshakeError.headTooLarge.httpStatus == 431)
        #expect(consumed == Self.sample.count)  // the final LF is the byte too many
        #expect(parser.storedByteCount <= limits.maxHeaderBytes)
    }

    @Test("head bytes: a field of invalid UTF-8 counts three bytes for each of its bytes, valid UTF-8 its size")
    func storedFieldBound() {
        // "GET / HTTP/1.1\r\n" (16) + "E: " + 10 value bytes + "\r\n" + "\r\n": 33 bytes. The line's
        // content is 13 bytes: stored as at most 39 when invalid, 13 when valid.
        let valid = S.bytes("GET / HTTP/1.1\r\nE: ") + Array("\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}".utf8) + S.bytes("\r\n\r\n")
        let invalid = S.bytes("GET / HTTP/1.1\r\nE: ") + [UInt8](repeating: 0xFF, count: 10) + S.bytes("\r\n\r\n")
        #expect(valid.count == 33 && invalid.count == 33)
        var limits = Connection.Limits()
        limits.maxHeaderBytes = 33
        var fits = HTTPHeadParser(kind: .request, limits: limits)
        guard case .request(let head) = fits.consume(valid).outcome else {
            Issue.record("valid UTF-8 at the limit must be accepted")
            return
        }
        #expect(head.headers["E"] == "\u{E9}\u{E9}\u{E9}\u{E9}\u{E9}")
        var tooMuch = HTTPHeadParser(kind: .request, limits: limits)
        #expect(tooMuch.consume(invalid).outcome == .failure(.headTooLarge))
        #expect(tooMuch.storedByteCount <= limits.maxHeaderBytes)
        // Room for three bytes each (13 × 3 = 39): accepted, each invalid byte decoded as U+FFFD.
        limits.maxHeaderBytes = 39
        var repaired = HTTPHeadParser(kind: .request, limits: limits)
        guard case .request(let head) = repaired.consume(invalid).outcome else {
            Issue.record("invalid UTF-8 with room for its repair must be accepted")
            return
        }
        #expect(head.headers["E"] == String(repeating: "\u{FFFD}", count: 10))
        limits.maxHeaderBytes = 38
        var oneShort = HTTPHeadParser(kind: .request, limits: limits)
        #expect(oneShort.consume(invalid).outcome == .failure(.headTooLarge))
    }

    @Test("header count: exactly at the limit passes, one over fails with 431 at the extra line's first byte")
    func headerCountLimit() {
        var limits = Connection.Limits()
        limits.maxHeaderCount = 7
        var ok = HTTPHeadParser(kind: .request, limits: limits)
        #expect(ok.consume(Self.sample).outcome == .request(Self.expectedSample))

        limits.maxHeaderCount = 6
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        let (consumed, outcome) = parser.consume(Self.sample)
        #expect(outcome == .failure(.tooManyHeaders))
        #expect(Connection.HandshakeError.tooManyHeaders.httpStatus == 431)
        let beforeSeventh = S.sampleRequest.utf8.count - "Sec-WebSocket-Version: 13\r\n\r\n".utf8.count
        #expect(consumed == beforeSeventh + 1)
    }

    @Test("a 1 MiB header line fails early, with memory bounded by the limit")
    func hugeHeaderLine() {
        let limits = Connection.Limits()
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        #expect(parser.consume(S.bytes("GET / HTTP/1.1\r\nX-Big: ")).outcome == .needMore)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        var fed = 0
        var result: HTTPHeadParser.Outcome = .needMore
        while fed < 1 << 20, result == .needMore {
            let step = parser.consume(chunk)
            fed += step.consumed
            result = step.outcome
        }
        #expect(result == .failure(.headTooLarge))
        #expect(fed < limits.maxHeaderBytes)
        #expect(parser.storedByteCount <= limits.maxHeaderBytes)
    }

    @Test("a 1 MiB request line fails with 414 after maxRequestLineLength bytes")
    func hugeRequestLine() {
        let limits = Connection.Limits()
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        let line = S.bytes("GET /") + [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        let (consumed, outcome) = parser.consume(line)
        #expect(outcome == .failure(.requestLineTooLong))
        #expect(consumed == limits.maxRequestLineLength + 1)
        #expect(parser.storedByteCount == limits.maxRequestLineLength)
    }

    @Test("10,000 headers fail as soon as the count is exceeded")
    func tenThousandHeaders() {
        var limits = Connection.Limits()
        limits.maxHeaderBytes = 1 << 20  // so that the count, not the size, is what stops it
        var input = S.bytes("GET / HTTP/1.1\r\n")
        let startLine = input.count
        for _ in 0..<10_000 { input += S.bytes("X-A: b\r\n") }
        var parser = HTTPHeadParser(kind: .request, limits: limits)
        let (consumed, outcome) = parser.consume(input)
        #expect(outcome == .failure(.tooManyHeaders))
        #expect(consumed == startLine + limits.maxHeaderCount * 8 + 1)
        #expect(parser.storedByteCount < startLine + limits.maxHeaderCount * 8)
        // With the default limits the size limit would stop it anyway, early.
        var defaults = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let stopped = defaults.consume(input)
        #expect(stopped.outcome == .failure(.tooManyHeaders))
        #expect(stopped.consumed <= Connection.Limits().maxHeaderBytes)
    }

    @Test("work is linear: a 16 KiB head fed a byte at a time costs the same as whole")
    func linearWork() {
        var limits = Connection.Limits()
        limits.maxHeaderCount = 10_000
        func head(size: Int) -> [UInt8] {
            var input = S.bytes("GET / HTTP/1.1\r\n")
            var n = 0
            while input.count < size - 40 {
                input += S.bytes("X-Header-\(n): some value here\r\n")
                n += 1
            }
            return input + S.bytes("\r\n")
        }
        func work(_ input: [UInt8], pieceSize: Int) -> Int {
            var parser = HTTPHeadParser(kind: .request, limits: limits)
            var start = 0
            while start < input.count {
                let end = min(start + pieceSize, input.count)
                let (consumed, outcome) = parser.consume(input[start..<end])
                guard consumed == end - start || outcome != .needMore else { return -1 }
                if case .failure = outcome { return -1 }
                start = end
            }
            #expect(parser.isFinished)
            return parser.workCount
        }
        let big = head(size: 16 << 10)
        #expect(big.count <= 16 << 10)
        let whole = work(big, pieceSize: big.count)
        let trickled = work(big, pieceSize: 1)
        #expect(whole > 0)
        #expect(trickled == whole)
        #expect(trickled <= 2 * big.count)  // each byte scanned once and parsed once
        // Doubling the input doubles the work.
        let small = head(size: 8 << 10)
        let ratio = Double(work(big, pieceSize: 1)) / Double(work(small, pieceSize: 1))
        #expect(ratio > 1.8 && ratio < 2.2)
    }

    @Test("mutated heads: no trap, and any split gives the same outcome as one piece")
    func mutationsAreSplitInvariant() {
        var random = Connection.SeededGenerator(seed: 6455)
        let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x3A, 0x00, 0x7F, 0xFF, 0x2F, 0x2E, 0x31]
        var limits = Connection.Limits()
        limits.maxRequestLineLength = 40
        limits.maxHeaderBytes = 200
        limits.maxHeaderCount = 6
        for _ in 0..<1_500 {
            var input = Self.sample + [0x81, 0x00]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = Int.random(in: 0..<input.count, using: &random)
                input[at] = Bool.random(using: &random) ? interesting.randomElement(using: &random) ?? 0
                    : UInt8.random(in: 0...255, using: &random)
            }
            let kind: HTTPHeadParser.Kind = Bool.random(using: &random) ? .request : .response
            var whole = HTTPHeadParser(kind: kind, limits: limits)
            let expected = whole.consume(input)
            #expect(expected.consumed <= input.count)
            var cuts = (0..<Int.random(in: 1...5, using: &random)).map { _ in Int.random(in: 0...input.count, using: &random) }
            cuts.sort()
            var split = HTTPHeadParser(kind: kind, limits: limits)
            let result = S.feed(&split, input, cuts: cuts)
            #expect(result.consumed == expected.consumed && result.outcome == expected.outcome, "cuts \(cuts)")
            #expect(split.storedByteCount <= limits.maxHeaderBytes)
        }
    }
}
