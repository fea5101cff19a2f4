// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore

/// One test per known attack class: what a hostile peer sends, the close code (or HTTP status) it
/// gets, and the memory it costs (`retainedPayloadCapacity`, `bufferedInputCount`). Several classes
/// also have a test in ProtocolViolationTests, LimitsTests or HTTPHeadParserTests; these add the
/// memory bound, through the connection, with the default limits unless a test says otherwise.
///
/// The permessage-deflate classes (RFC 7692) are in Tests/WebSocketDeflateTests, `DeflateFailureTests`
/// (this target depends on the core only): a decompression bomb in one frame and across many small
/// fragments (1009, memory within the limit plus one inflate chunk), with fragment delivery too; RSV1
/// on control and continuation frames, and without negotiation (1002); corrupt, truncated and trailing
/// compressed data (1007).
@Suite("Hostile input: each attack fails with its code, within its memory bound")
struct HostileInputTests {
    /// What a connection may hold beyond its limits: a control frame's payload and allocator rounding.
    static let slack = 512
    /// What the allocator adds to a buffer large enough to be mapped on its own (glibc, above its
    /// mmap threshold): the usable size is rounded up to whole pages, and the array's capacity is the
    /// usable size. Whether a block is mapped depends on what the process freed before.
    static let pageRounding = 4096

    /// Feeds `bytes` to `connection`, pulls its events, and checks that it failed with `kind`, sent a
    /// Close frame with `code`, closed, and holds nothing: no input, no payload buffer beyond `slack`.
    static func expectViolation(_ connection: inout Connection, _ bytes: [UInt8], _ kind: Connection.ProtocolViolation.Kind,
                                code: UInt16, sourceLocation: SourceLocation = #_sourceLocation) {
        connection.receive(bytes)
        let events = drain(&connection)
        let violation = Connection.ProtocolViolation(kind)
        #expect(violation.closeCode.rawValue == code, sourceLocation: sourceLocation)
        #expect(events == [.protocolViolation(violation),
                           .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: code), reason: violation.reason, wasClean: false,
                                               failure: .protocolViolation(violation)))],
                sourceLocation: sourceLocation)
        #expect(decodeFrames(connection.takeOutput()).compactMap(closeCode) == [code], sourceLocation: sourceLocation)
        #expect(connection.shouldCloseTransport, sourceLocation: sourceLocation)
        #expect(connection.bufferedInputCount == 0, sourceLocation: sourceLocation)
        #expect(connection.retainedPayloadCapacity <= slack, sourceLocation: sourceLocation)
        // What follows is dropped, not buffered.
        connection.receive([UInt8](repeating: 0x82, count: 4096))
        #expect(drain(&connection).isEmpty, sourceLocation: sourceLocation)
        #expect(connection.bufferedInputCount == 0, sourceLocation: sourceLocation)
    }

    // MARK: Frame headers

    @Test("A 64-bit length with the top bit set: 1002 from the header, before any conversion or allocation")
    func lengthTopBitSet() throws {
        // Limits out of reach, so that the top bit (RFC 6455 §5.2), not a limit, is what refuses it.
        var config = Connection.Configuration()
        config.limits.maxFrameSize = .max
        config.limits.maxMessageSize = .max
        var (_, server) = try openPair(server: config)
        Self.expectViolation(&server, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 1, 2, 3, 4], .invalidLength, code: 1002)
        var (client, _) = try openPair(client: config)
        Self.expectViolation(&client, [0x82, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .invalidLength, code: 1002)
    }

    @Test("A length of 2^62 then silence: 1009 at once with the default limits")
    func hugeLengthThenSilence() throws {
        var (_, server) = try openPair()
        Self.expectViolation(&server, [0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], .frameTooLarge, code: 1009)
    }

    @Test("A length of 2^62 then silence, with no limits: the connection waits and allocates nothing for it")
    func hugeLengthThenSilenceNoLimits() throws {
        var config = Connection.Configuration()
        config.limits.maxFrameSize = .max
        config.limits.maxMessageSize = .max
        var (_, server) = try openPair(server: config)
        server.receive([0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
        #expect(drain(&server).isEmpty)
        #expect(server.state == .open)
        #expect(server.retainedPayloadCapacity == 0)
        #expect(server.bufferedInputCount == 0)
        // What does arrive costs what it is (at most twice, the buffer growing geometrically).
        server.receive([UInt8](repeating: 0x55, count: 1000))
        #expect(drain(&server).isEmpty)
        #expect(server.retainedPayloadCapacity <= 2 * 1000 + Self.slack)
        #expect(server.bufferedInputCount == 0)
    }

    @Test("An unmasked client frame: 1002")
    func unmaskedClientFrame() throws {
        var (_, server) = try openPair()
        Self.expectViolation(&server, frame(0x1, Array("Hello".utf8)), .unmaskedFrame, code: 1002)
    }

    @Test("A masked server frame: 1002")
    func maskedServerFrame() throws {
        var (client, _) = try openPair()
        Self.expectViolation(&client, frame(0x1, Array("Hello".utf8), key: [0x37, 0xFA, 0x21, 0x3D]), .maskedFrame, code: 1002)
    }

    @Test("Reserved bits without an extension: 1002, on data and control frames, in both roles", arguments: [0x40, 0x20, 0x10] as [UInt8])
    func reservedBits(rsv: UInt8) throws {
        var (client, server) = try openPair()
        Self.expectViolation(&server, clientFrame(0x1, [0x41], rsv: rsv), .reservedBitsSet, code: 1002)
        Self.expectViolation(&client, frame(0x9, [], rsv: rsv), .reservedBitsSet, code: 1002)
    }

    // MARK: Fragments

    @Test("One-byte fragments, 1,000 past the default maxFragmentsPerMessage: 1009, memory within twice what arrived")
    func oneByteFragmentsPastTheDefaultLimit() throws {
        var (_, server) = try openPair()
        let limit = server.configuration.limits.maxFragmentsPerMessage
        let count = limit + 1000
        var wire = clientFrame(0x2, [0], fin: false)
        wire.reserveCapacity(7 * count)
        // The continuation frames by the 256 payload bytes they cycle through, built once.
        let continuations = (0..<256).map { clientFrame(0x0, [UInt8($0)], fin: false) }
        for i in 1..<count { wire += i == count - 1 ? clientFrame(0x0, [UInt8(truncatingIfNeeded: i)]) : continuations[i & 0xFF] }
        var events: [Connection.Event] = []
        var maxRetained = 0
        var maxBuffered = 0
        var start = 0
        while start < wire.count {
            let end = min(start + 65_536, wire.count)
            server.receive(wire[start..<end])
            start = end
            events += drain(&server)
            maxRetained = max(maxRetained, server.retainedPayloadCapacity)
            maxBuffered = max(maxBuffered, server.bufferedInputCount)
        }
        let violation = Connection.ProtocolViolation(.tooManyFragments)
        #expect(events.first == .protocolViolation(violation))
        #expect(events.count == 2)
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
        // The payload of `limit` fragments, in a buffer that grows geometrically (and, at 2 MiB, may
        // be a mapped block: up to a page more).
        #expect(maxRetained <= 2 * limit + Self.slack + Self.pageRounding)
        #expect(maxBuffered <= 13)  // at most an incomplete frame header is left unparsed
        #expect(server.retainedPayloadCapacity <= Self.slack)
    }

    // MARK: Control frames

    @Test("Control frames of 126 bytes: 1002 from the header, nothing stored", arguments: [0x8, 0x9, 0xA] as [UInt8])
    func controlFrameOf126Bytes(opcode: UInt8) throws {
        let payload = opcode == 0x8 ? [0x03, 0xE8] + [UInt8](repeating: 0x41, count: 124) : [UInt8](repeating: 0, count: 126)
        var (client, server) = try openPair()
        // Only the header arrives: it is enough.
        Self.expectViolation(&server, Array(clientFrame(opcode, payload).prefix(8)), .controlFrameTooLarge, code: 1002)
        Self.expectViolation(&client, frame(opcode, payload), .controlFrameTooLarge, code: 1002)
    }

    @Test("A close with a 1-byte payload: 1002")
    func closeWithOneByte() throws {
        var (client, server) = try openPair()
        Self.expectViolation(&server, clientFrame(0x8, [0x03]), .invalidClosePayload, code: 1002)
        Self.expectViolation(&client, frame(0x8, [0xE8]), .invalidClosePayload, code: 1002)
    }

    @Test("A close with a code that may not be sent: 1002", arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] as [UInt16])
    func closeWithInvalidCode(code: UInt16) throws {
        var (_, server) = try openPair()
        Self.expectViolation(&server, clientFrame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)),
                             .invalidCloseCode(code), code: 1002)
    }

    @Test("A close whose reason is not UTF-8: 1007", arguments: [[0xCE], [0xFF, 0x41], [0xED, 0xA0, 0x80], [0x41, 0xF4, 0x90, 0x80, 0x80]] as [[UInt8]])
    func closeWithNonUTF8Reason(reason: [UInt8]) throws {
        var (client, server) = try openPair()
        Self.expectViolation(&server, clientFrame(0x8, [0x03, 0xE8] + reason), .invalidCloseReason, code: 1007)
        Self.expectViolation(&client, frame(0x8, [0x03, 0xE8] + reason), .invalidCloseReason, code: 1007)
    }

    // MARK: The opening handshake

    /// Feeds `bytes` to a fresh server in pieces of `piece` bytes; returns the events, the response
    /// status, and the most memory held after any piece.
    static func serverHandshake(_ bytes: [UInt8], piece: Int = 4096, limits: Connection.Limits = Connection.Limits())
        throws -> (events: [Connection.Event], status: Int?, maxRetained: Int, maxBuffered: Int) {
        var config = Connection.Configuration()
        config.limits = limits
        var server = try Connection(role: .server, configuration: config)
        var events: [Connection.Event] = []
        var maxRetained = 0
        var maxBuffered = 0
        var start = 0
        while start < bytes.count {
            let end = min(start + piece, bytes.count)
            server.receive(bytes[start..<end])
            start = end
            events += drain(&server)
            maxRetained = max(maxRetained, server.retainedPayloadCapacity)
            maxBuffered = max(maxBuffered, server.bufferedInputCount)
        }
        let response = server.takeOutput()
        let status = response.count >= 12 ? Int(String(decoding: response[9..<12], as: UTF8.self)) : nil
        return (events, status, maxRetained, maxBuffered)
    }

    @Test("A 1 MiB header line: 431 once maxHeaderBytes is crossed, memory within maxHeaderBytes")
    func megabyteHeaderLine() throws {
        let limits = Connection.Limits()
        let input = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Big: ".utf8) + [UInt8](repeating: 0x61, count: 1 << 20) + Array("\r\n\r\n".utf8)
        let result = try Self.serverHandshake(input, limits: limits)
        #expect(result.events.first == .handshakeFailed(.invalidRequest(.headTooLarge)))
        #expect(result.status == 431)
        #expect(result.maxRetained <= limits.maxHeaderBytes + Self.slack)
        #expect(result.maxBuffered == 0)  // consumed as it arrives, dropped once failed
    }

    @Test("A 1 MiB request line: 414 once maxRequestLineLength is crossed, memory within it")
    func megabyteRequestLine() throws {
        let limits = Connection.Limits()
        let input = Array("GET /".utf8) + [UInt8](repeating: 0x61, count: 1 << 20) + Array(" HTTP/1.1\r\n\r\n".utf8)
        let result = try Self.serverHandshake(input, limits: limits)
        #expect(result.events.first == .handshakeFailed(.invalidRequest(.requestLineTooLong)))
        #expect(result.status == 414)
        #expect(result.maxRetained <= limits.maxRequestLineLength * 2 + Self.slack)
        #expect(result.maxBuffered == 0)
    }

    @Test("10,000 headers: 431 once maxHeaderCount is crossed, memory within maxHeaderBytes")
    func tenThousandHeaders() throws {
        let limits = Connection.Limits()
        var input = Array("GET / HTTP/1.1\r\n".utf8)
        for i in 0..<10_000 { input += Array("X-\(i): v\r\n".utf8) }
        input += Array("\r\n".utf8)
        let result = try Self.serverHandshake(input, limits: limits)
        #expect(result.events.first == .handshakeFailed(.invalidRequest(.tooManyHeaders)))
        #expect(result.status == 431)
        #expect(result.maxRetained <= limits.maxHeaderBytes + Self.slack)
        #expect(result.maxBuffered == 0)
    }

    @Test("A head that arrives one byte at a time: the same work as whole, linear in its size (CVE-2023-43669)")
    func headOneByteAtATime() throws {
        /// A valid request of about `size` bytes (one long header), without its final line end.
        func head(size: Int) -> [UInt8] {
            let start = "GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Long: "
            return Array(start.utf8) + [UInt8](repeating: 0x61, count: size - start.utf8.count - 4) + Array("\r\n\r".utf8)
        }
        /// The head parser's work after `bytes` fed in pieces of `piece`, and the most memory held.
        func work(_ bytes: [UInt8], piece: Int) throws -> (work: Int, maxRetained: Int, server: Connection) {
            var server = try Connection(role: .server)
            var maxRetained = 0
            var start = 0
            while start < bytes.count {
                let end = min(start + piece, bytes.count)
                server.receive(bytes[start..<end])
                start = end
                #expect(drain(&server).isEmpty)
                #expect(server.bufferedInputCount == 0)
                maxRetained = max(maxRetained, server.retainedPayloadCapacity)
            }
            // The head is one byte short of its end, so its parser is still held.
            let parser = try #require(server.headParser)
            return (parser.workCount, maxRetained, server)
        }
        let limits = Connection.Limits()
        let big = head(size: 16_000)
        let whole = try work(big, piece: big.count)
        var trickled = try work(big, piece: 1)
        #expect(trickled.work == whole.work)
        #expect(trickled.work <= 2 * big.count)  // each byte scanned once, each line parsed once
        let half = try work(head(size: 8_000), piece: 1)
        let ratio = Double(trickled.work) / Double(half.work)
        #expect(ratio > 1.9 && ratio < 2.1)
        // Once a long line is parsed, its buffer is released: the fields alone stay.
        #expect(trickled.maxRetained <= limits.maxHeaderBytes + Self.slack)
        // And it is a valid request.
        trickled.server.receive([0x0A])
        guard case .handshakeRequest? = drain(&trickled.server).first else {
            Issue.record("the trickled head is not a request")
            return
        }
    }

    @Test("A head of obs-text bytes: memory within maxHeaderBytes")
    func obsTextHead() throws {
        // Bytes 0x80-0xFF are allowed in field values (RFC 9110 §5.5 obs-text) and decoded with
        // U+FFFD, three bytes each; the line buffer keeps its capacity beside the parsed fields.
        let limits = Connection.Limits()
        let input = Array("GET / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0xFF, count: limits.maxHeaderBytes - 100) + Array("\r\n".utf8)
        let result = try Self.serverHandshake(input, limits: limits)
        // Decoded, the value would take three times maxHeaderBytes: it is refused (431) before that
        // memory is spent.
        guard case .handshakeFailed(let failure)? = result.events.first, let error = failure.invalidRequest else {
            Issue.record("expected a 431, got \(result.events)")
            return
        }
        #expect(error.httpStatus == 431)
        #expect(result.maxRetained <= limits.maxHeaderBytes + Self.slack)
    }

    @Test("A refusal body far over maxRejectionBodySize, in two reads: the client keeps the limit, no more")
    func refusalBodyOverLimit() throws {
        let limit = Connection.Limits().maxRejectionBodySize
        for first in [1000, limit / 2 + 1, 3 * limit / 4, limit - 1000, limit - 1, limit + 1] {
            var client = try Connection(role: .client(clientOptions()))
            _ = client.takeOutput()
            client.receive(Array("HTTP/1.1 404 Not Found\r\nContent-Length: 1000000\r\n\r\n".utf8) + [UInt8](repeating: 0x61, count: first))
            #expect(drain(&client).isEmpty)
            client.receive([UInt8](repeating: 0x62, count: 2 * limit))
            #expect(drain(&client).isEmpty)
            #expect(client.retainedPayloadCapacity <= limit + Self.slack, "first read \(first)")
            #expect(client.bufferedInputCount == 0)
            client.receiveEOF()
            guard case .handshakeFailed(let failure)? = drain(&client).first, let response = failure.rejected else {
                Issue.record("no refusal reported")
                continue
            }
            #expect(response.status == 404)
            #expect(response.body.count == limit)
        }
    }
}
