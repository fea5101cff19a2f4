// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketTransport

@Suite("PROXY protocol version 1: the human-readable line (§2.1)")
struct ProxyProtocolV1Tests {
    @Test("The specification's example: the line, then the client's HTTP request, left unconsumed")
    func specificationExample() throws {
        let line = PP.text("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n")
        let request = PP.text("GET / HTTP/1.1\r\nHost: 192.168.0.11\r\n\r\n")
        let fed = PP.feedEveryWay(line + request)
        let header = try #require(fed.header)
        #expect(fed.headerLength == line.count)
        #expect(header.version == .v1)
        #expect(header.command == .proxy)
        #expect(header.transportProtocol == .stream)
        #expect(header.source == PP.address("192.168.0.1", 56324))
        #expect(header.destination == PP.address("192.168.0.11", 443))
        #expect(header.source?.description == "192.168.0.1:56324")
        #expect(header.tlvs.isEmpty)

        // Whole: the request is the rest of the same read, and later reads are not the parser's.
        var parser = ProxyProtocolParser()
        guard case .complete(_, let consumed) = parser.parse(line + request) else { Issue.record("not complete"); return }
        #expect(Array((line + request)[consumed...]) == request)
        #expect(parser.parse(request) == .complete(header, consumed: 0))
    }

    @Test("The longest lines the specification lists: 56, 104, 15 and 107 bytes", arguments: [
        "PROXY TCP4 255.255.255.255 255.255.255.255 65535 65535\r\n",
        "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n",
        "PROXY UNKNOWN\r\n",
        "PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n",
    ])
    func longestLines(_ line: String) throws {
        let fed = PP.feedEveryWay(PP.text(line) + [0x16, 0x03, 0x01])
        #expect(fed.headerLength == line.utf8.count)
        #expect(fed.header != nil)
    }

    @Test("UNKNOWN: no addresses (use the socket's), and whatever precedes the CRLF is ignored")
    func unknown() throws {
        for line in ["PROXY UNKNOWN\r\n", "PROXY UNKNOWN 192.0.2.1 garbage \u{7F}\u{1}\r\n", "PROXY UNKNOWN \r\n"] {
            let header = try #require(PP.feedEveryWay(PP.text(line)).header, "\(line)")
            #expect(header.source == nil && header.destination == nil && header.transportProtocol == nil)
            #expect(header.command == .proxy)
        }
        let nonASCII = PP.text("PROXY UNKNOWN ") + [0xFF, 0xC3, 0x28] + PP.text("\r\n")
        #expect(PP.feedEveryWay(nonASCII).header?.byteCount == nonASCII.count)
    }

    @Test("TCP6: compressed forms, an IPv4-mapped address, ports 0 and 65535")
    func tcp6() throws {
        let header = try #require(PP.feedEveryWay(PP.text("PROXY TCP6 ::ffff:192.0.2.1 2001:DB8::1 0 65535\r\n")).header)
        #expect(header.source == PP.address("::ffff:192.0.2.1", 0))
        #expect(header.destination == PP.address("2001:db8::1", 65535))
        #expect(header.source?.family == .ipv6)
        #expect(header.destination?.description == "[2001:db8::1]:65535")
        let loopback = try #require(PP.feedEveryWay(PP.text("PROXY TCP6 ::1 ::1 1 2\r\n")).header)
        #expect(loopback.source == PP.address("::1", 1))
    }

    @Test("Malformed lines fail, at the byte that is wrong, whole or in pieces", arguments: [
        ("PROXY TCP4 192.168.0.01 192.168.0.11 56324 443\r\n", 11),  // a leading zero
        ("PROXY TCP4 192.168.0.1 192.168.0.011 56324 443\r\n", 23),
        ("PROXY TCP4 192.168.0.1  192.168.0.11 56324 443\r\n", 11),  // two spaces
        ("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443 \r\n", 42),  // a space after the last field
        ("PROXY  TCP4 192.168.0.1 192.168.0.11 56324 443\r\n", 6),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 56324 65536\r\n", 42),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 0443 443\r\n", 36),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 +443 443\r\n", 36),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 -1 443\r\n", 36),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 44a 443\r\n", 36),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 123456 443\r\n", 36),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443 80\r\n", 42),
        ("PROXY TCP4 192.168.0.1 192.168.0.11 56324\r\n", 11),
        ("PROXY TCP4 192.168.0.1\t192.168.0.11 56324 443\r\n", 11),
        ("PROXY TCP5 192.168.0.1 192.168.0.11 56324 443\r\n", 6),
        ("PROXY tcp4 192.168.0.1 192.168.0.11 56324 443\r\n", 6),
        ("PROXY TCP4\r\n", 6),
        ("PROXY UNKNOWNX\r\n", 13),
        ("PROXY unknown\r\n", 6),
        ("PROXY \r\n", 6),
        ("PROXY TCP4 ::1 ::1 1 2\r\n", 11),  // the family decides the form
        ("PROXY TCP6 192.0.2.1 192.0.2.2 1 2\r\n", 11),
        ("PROXY TCP4 256.1.1.1 1.1.1.1 1 2\r\n", 11),
        ("PROXY TCP4 1.2.3 1.1.1.1 1 2\r\n", 11),
        ("PROXY TCP4 1.2.3.4.5 1.1.1.1 1 2\r\n", 11),
        ("PROXY TCP4 0x7f.0.0.1 1.1.1.1 1 2\r\n", 11),
        ("PROXY TCP4 2130706433 1.1.1.1 1 2\r\n", 11),
        ("PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", 11),
        ("PROXY TCP6 [::1] ::1 1 2\r\n", 11),
        ("PROXY TCP6 1:2:3:4:5:6:7:8:9 ::1 1 2\r\n", 11),
        ("PROXY TCP6 1::2::3 ::1 1 2\r\n", 11),
        ("PROXY TCP6 12345::1 ::1 1 2\r\n", 11),
        ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\u{0}\r\n", 29),
        ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", 30),  // LF alone
        ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX\n", 30),  // CR alone
        ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\r\n", 30),
        ("PROXY\r\n", 5),
        ("PROXY\n", 5),
    ])
    func malformed(_ line: String, offset: Int) {
        let fed = PP.feedEveryWay(PP.text(line))
        #expect(fed.error?.code == .invalidLine, "\(line)")
        #expect(fed.error?.offset == offset, "\(line): \(fed.error.map { "\($0)" } ?? "no error")")
    }

    @Test("Not the protocol at all: fails at the first byte that is neither signature's", arguments: [
        ("GET / HTTP/1.1\r\n", 0), ("\u{16}\u{03}\u{01}", 0), ("PROXZ", 4), ("PRO Y", 3), ("proxy ", 0), (" PROXY ", 0), ("P", nil),
    ] as [(String, Int?)])
    func notTheProtocol(_ text: String, offset: Int?) {
        let fed = PP.feedEveryWay(PP.text(text))
        if let offset {
            #expect(fed.error?.code == .notProxyProtocol)
            #expect(fed.error?.offset == offset)
        } else {
            #expect(fed.pending)
        }
    }

    @Test("No CRLF within 107 bytes: fails at the 107th byte, without waiting for more")
    func tooLong() {
        let long = PP.text("PROXY UNKNOWN " + String(repeating: "a", count: 93))  // 107 bytes
        #expect(long.count == 107)
        let fed = PP.feedEveryWay(long)
        #expect(fed.error?.code == .headerTooLarge)
        #expect(fed.error?.offset == 106)
        // 106 bytes are still pending; the CRLF as 107th and 108th bytes is too late.
        #expect(PP.feedEveryWay(Array(long.prefix(106))).pending)
        let lateCRLF = PP.text("PROXY UNKNOWN " + String(repeating: "a", count: 92) + "\r\n")
        #expect(lateCRLF.count == 108)
        #expect(PP.feedEveryWay(lateCRLF).error?.code == .headerTooLarge)
        // A megabyte without CRLF is refused at the same byte, holding nothing.
        var parser = ProxyProtocolParser()
        let outcome = parser.parse(PP.text("PROXY ") + [UInt8](repeating: 0x41, count: 1 << 20))
        #expect(outcome == .failed(ProxyProtocolError(.headerTooLarge, at: 106, reason: "no CRLF within the first 107 bytes")))
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("Truncated anywhere: every proper prefix of a valid line is pending, holding all it was given")
    func truncated() {
        let line = PP.text("PROXY TCP6 2001:db8::1 2001:db8::2 56324 443\r\n")
        for end in 0..<line.count {
            #expect(PP.feed(Array(line[..<end])).pending, "\(end)")
        }
    }
}
