// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketTransport

@Suite("PROXY protocol version 2: the binary header (§2.2)")
struct ProxyProtocolV2Tests {
    // MARK: Commands, families, transports

    @Test("PROXY over TCP/IPv4 (0x11): addresses and ports; what follows is left unconsumed")
    func tcp4() throws {
        let header = PP.v2()
        let fed = PP.feedEveryWay(header + [0x16, 0x03, 0x01, 0x00])
        let parsed = try #require(fed.header)
        #expect(fed.headerLength == 28)
        #expect(parsed.version == .v2 && parsed.command == .proxy && parsed.transportProtocol == .stream)
        #expect(parsed.source == PP.address("192.0.2.1", 56324))
        #expect(parsed.destination == PP.address("198.51.100.7", 443))
        #expect(parsed.tlvs.isEmpty)
    }

    @Test("UDP/IPv4 (0x12), TCP/IPv6 (0x21), UDP/IPv6 (0x22)")
    func otherInetForms() throws {
        #expect(PP.feedEveryWay(PP.v2(0x21, 0x12)).header?.transportProtocol == .datagram)
        for (family, transport) in [(UInt8(0x21), ProxyProtocolHeader.TransportProtocol.stream), (0x22, .datagram)] {
            let parsed = try #require(PP.feedEveryWay(PP.v2(0x21, family, PP.ipv6Block)).header)
            #expect(parsed.transportProtocol == transport)
            #expect(parsed.source == PP.address("2001:db8::1", 12345))
            #expect(parsed.destination == PP.address("2001:db8::2", 80))
            #expect(parsed.byteCount == 16 + 36)
        }
    }

    @Test("AF_UNIX (0x31, 0x32): 108-byte paths, NUL padding dropped")
    func unix() throws {
        let parsed = try #require(PP.feedEveryWay(PP.v2(0x21, 0x31, PP.unixBlock("/run/lb.sock", "/run/app.sock"))).header)
        #expect(parsed.source?.unixPath == "/run/lb.sock")
        #expect(parsed.destination?.unixPath == "/run/app.sock")
        #expect(parsed.source?.description == "unix:/run/lb.sock")
        #expect(PP.feedEveryWay(PP.v2(0x21, 0x32, PP.unixBlock("", "/d"))).header?.source?.description == "unix:(unnamed)")
        // A full 108-byte path with no NUL at all still fits Linux's sun_path.
        let full = String(repeating: "p", count: 108)
        #expect(PP.feedEveryWay(PP.v2(0x21, 0x31, PP.unixBlock(full, full))).header?.source?.unixPath?.utf8.count == 108)
    }

    @Test("LOCAL (a health check): no addresses whatever the block holds; the family byte is ignored")
    func local() throws {
        let bare = try #require(PP.feedEveryWay(PP.signature + [0x20, 0x00, 0x00, 0x00]).header)
        #expect(bare.command == .local && bare.source == nil && bare.destination == nil && bare.byteCount == 16)
        // With an IPv4 block and a TLV: the addresses are not taken, the TLV is read.
        let withBlock = try #require(PP.feedEveryWay(PP.v2(0x20, 0x11, tlvs: [PP.tlv(0x01, PP.text("h2"))], crc: true)).header)
        #expect(withBlock.command == .local && withBlock.source == nil && withBlock.transportProtocol == nil)
        #expect(withBlock.alpn == PP.text("h2"))
        // A family no PROXY header may have, or a block shorter than its family's: skipped, no TLVs.
        for (family, block) in [(UInt8(0xFF), [UInt8](repeating: 7, count: 5)), (0x11, [1, 2, 3])] {
            let odd = try #require(PP.feedEveryWay(PP.v2(0x20, family, block)).header)
            #expect(odd.command == .local && odd.source == nil && odd.tlvs.isEmpty)
        }
    }

    @Test("PROXY with AF_UNSPEC: no addresses; with 0x00 the TLVs follow the fixed bytes, otherwise their place is unknown")
    func unspecified() throws {
        let unspec = try #require(PP.feedEveryWay(PP.v2(0x21, 0x00, [], tlvs: [PP.tlv(0x02, PP.text("example.com"))])).header)
        #expect(unspec.source == nil && unspec.transportProtocol == nil)
        #expect(unspec.authority == "example.com")
        for family: UInt8 in [0x01, 0x02, 0x10, 0x20, 0x30] {
            let parsed = try #require(PP.feedEveryWay(PP.v2(0x21, family, [0xFF, 0xFF])).header, "\(family)")
            #expect(parsed.source == nil && parsed.tlvs.isEmpty)
        }
        #expect(PP.feedEveryWay(PP.v2(0x21, 0x01, [])).header?.transportProtocol == .stream)
    }

    // MARK: TLVs

    @Test("TLVs: every registered type kept raw in order, NOOP and custom types included; accessors for the common ones")
    func tlvs() throws {
        let ssl = [0x01, 0, 0, 0, 0] + PP.tlv(0x21, PP.text("TLSv1.3")) + PP.tlv(0x22, PP.text("client.example"))
        let uniqueID = [UInt8](repeating: 0xAB, count: 128)
        let tlvs = [PP.tlv(0x01, PP.text("http/1.1")), PP.tlv(0x04, []), PP.tlv(0x02, PP.text("ws.example.com")),
                    PP.tlv(0x05, uniqueID), PP.tlv(0x20, ssl), PP.tlv(0x30, PP.text("ns1")), PP.tlv(0xEA, [1, 0x76, 0x70, 0x63])]
        let parsed = try #require(PP.feedEveryWay(PP.v2(tlvs: tlvs, crc: true)).header)
        #expect(parsed.tlvs.map(\.kind) == [.alpn, .noop, .authority, .uniqueID, .ssl, .netns, .init(rawValue: 0xEA), .crc32c])
        #expect(parsed.alpn == PP.text("http/1.1"))
        #expect(parsed.authority == "ws.example.com")
        #expect(parsed.uniqueID == uniqueID)
        #expect(parsed.value(of: .ssl) == ssl)
        #expect(parsed.value(of: .init(rawValue: 0xEA)) == [1, 0x76, 0x70, 0x63])
        #expect(parsed.value(of: .crc32c)?.count == 4)
        #expect(parsed.value(of: .init(rawValue: 0xE1)) == nil)
        #expect(parsed.tlvs.map(\.kind.description) == ["ALPN", "NOOP", "AUTHORITY", "UNIQUE_ID", "SSL", "NETNS", "0xEA", "CRC32C"])
        #expect(ProxyProtocolHeader.TLV.Kind(rawValue: 7).description == "0x07")
    }

    @Test("An authority that is not UTF-8 is no String (the raw TLV stays)")
    func authorityNotUTF8() throws {
        let parsed = try #require(PP.feedEveryWay(PP.v2(tlvs: [PP.tlv(0x02, [0x61, 0xFF])])).header)
        #expect(parsed.authority == nil)
        #expect(parsed.value(of: .authority) == [0x61, 0xFF])
    }

    @Test("CRC32C: a right one passes; one flipped bit anywhere after the fixed bytes fails with checksumMismatch")
    func crc32c() throws {
        let header = PP.v2(0x21, 0x21, PP.ipv6Block, tlvs: [PP.tlv(0x05, PP.text("id-1"))], crc: true)
        #expect(PP.feedEveryWay(header).header != nil)
        // Addresses, the unique ID's value, and the checksum itself.
        for index in Array(16..<52) + Array(55..<59) + Array((header.count - 4)..<header.count) {
            var changed = header
            changed[index] ^= 0x01
            let fed = PP.feed(changed)
            #expect(fed.error?.code == .checksumMismatch, "byte \(index)")
            #expect(fed.error?.offset == header.count - 4)
        }
    }

    @Test("CRC32C itself: RFC 3720 §B.4's vectors, and '123456789'")
    func crcVectors() {
        #expect(CRC32C.checksum(PP.text("123456789")) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0...31)) == 0x46DD_794E)
        #expect(CRC32C.checksum(Array((0...31).reversed())) == 0x113F_DB5C)
        var generator = Connection.SeededGenerator(seed: 29)
        for _ in 0..<50 {
            let bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(CRC32C.checksum(bytes) == PP.bitwiseCRC32C(bytes))
        }
    }

    // MARK: Malformed headers

    @Test("The signature: a wrong byte anywhere in it fails there")
    func badSignature() {
        let header = PP.v2()
        for index in 0..<12 {
            var changed = header
            changed[index] ^= 0x80
            let fed = PP.feedEveryWay(changed)
            #expect(fed.error?.code == .notProxyProtocol, "byte \(index)")
            #expect(fed.error?.offset == index)
        }
    }

    @Test("Version other than 2, command other than LOCAL and PROXY: fail at byte 12")
    func versionAndCommand() {
        for byte: UInt8 in [0x01, 0x11, 0x31, 0xF1, 0x00] {
            #expect(PP.feedEveryWay(PP.v2(byte)).error == ProxyProtocolError(.unsupportedVersion, at: 12, reason: "version \(byte >> 4)"))
        }
        for byte: UInt8 in 0x22...0x2F {
            let fed = PP.feedEveryWay(PP.v2(byte))
            #expect(fed.error?.code == .unsupportedCommand && fed.error?.offset == 12)
        }
    }

    @Test("PROXY with a family above AF_UNIX or a transport above DGRAM: fails at byte 13, before the length")
    func badFamily() {
        for family: UInt8 in [0x41, 0x51, 0xF1, 0x13, 0x1F, 0x03, 0xFF] {
            let fed = PP.feedEveryWay(PP.v2(0x21, family))
            #expect(fed.error?.code == .unsupportedFamily && fed.error?.offset == 13, "\(family)")
            #expect(PP.feed(Array(PP.v2(0x21, family).prefix(14))).error?.code == .unsupportedFamily)
        }
    }

    @Test("A length too short for the family's addresses: fails at byte 15, before the block arrives")
    func shortBlock() {
        for (family, needed) in [(UInt8(0x11), 12), (0x12, 12), (0x21, 36), (0x22, 36), (0x31, 216), (0x32, 216)] {
            let header = PP.v2(0x21, family, [UInt8](repeating: 0, count: needed - 1))
            let fed = PP.feedEveryWay(header)
            #expect(fed.error?.code == .invalidLength && fed.error?.offset == 14, "\(family)")
            #expect(PP.feed(Array(header.prefix(16))).error?.code == .invalidLength)
        }
    }

    @Test("Over maxHeaderBytes: fails as the length arrives, holding 16 bytes; exactly the limit passes; below 16 counts as 16")
    func tooLarge() throws {
        var parser = ProxyProtocolParser()
        let announced = PP.signature + [0x21, 0x11, 0xFF, 0xFF]
        #expect(parser.parse(announced) == .failed(ProxyProtocolError(.headerTooLarge, at: 14,
                                                                    reason: "65551 bytes announced, at most 4096 allowed")))
        #expect(parser.bufferedByteCount == 0)
        let header = PP.v2(tlvs: [PP.tlv(0xE0, [UInt8](repeating: 1, count: 100))])
        #expect(PP.feedEveryWay(header, maxHeaderBytes: header.count).header != nil)
        #expect(PP.feedEveryWay(header, maxHeaderBytes: header.count - 1).error?.code == .headerTooLarge)
        #expect(ProxyProtocolParser(maxHeaderBytes: -5).maxHeaderBytes == 16)
        #expect(PP.feedEveryWay(PP.signature + [0x20, 0x00, 0x00, 0x00], maxHeaderBytes: 0).header != nil)
        // The format's own largest header, when the limit allows it.
        let largest = PP.v2(0x21, 0x00, [], tlvs: [PP.tlv(0xE0, [UInt8](repeating: 2, count: 65535 - 3))])
        #expect(largest.count == 16 + 65535)
        #expect(PP.feed(largest, maxHeaderBytes: 16 + 65535).header?.byteCount == largest.count)
    }

    @Test("TLVs that do not fill the header exactly, or break their type's form", arguments: [
        ([0x01], 28), ([0x01, 0x00], 28), ([0x01, 0x00, 0x02, 0x68], 28),  // cut short
        ([0x01, 0x00, 0x00, 0x04, 0x00], 31),  // a TLV, then one byte
        ([0x03, 0x00, 0x03, 0, 0, 0], 28), ([0x03, 0x00, 0x05, 0, 0, 0, 0, 0], 28),  // CRC32C not 4 bytes
        ([0x05, 0x00, 0x81] + [UInt8](repeating: 0, count: 129), 28),  // unique ID over 128 bytes
        ([0x20, 0x00, 0x04, 1, 0, 0, 0], 28),  // SSL without its 5 bytes
        ([0x20, 0x00, 0x07, 1, 0, 0, 0, 0, 0x21, 0x00], 28),  // SSL, a sub-TLV cut short
        ([0x20, 0x00, 0x08, 1, 0, 0, 0, 0, 0x21, 0x00, 0x01], 28),  // SSL, a sub-TLV past its end
    ] as [([UInt8], Int)])
    func badTLVs(_ tlvBytes: [UInt8], offset: Int) {
        let fed = PP.feedEveryWay(PP.v2(tlvs: [tlvBytes]))
        #expect(fed.error?.code == .invalidTLV)
        #expect(fed.error?.offset == offset)
    }

    @Test("Two CRC32C TLVs are refused, even when both are right")
    func twoChecksums() {
        let header = PP.v2(tlvs: [PP.tlv(0x03, [0, 0, 0, 0])], crc: true)
        #expect(PP.feedEveryWay(header).error?.code == .invalidTLV)
    }

    @Test("Truncated anywhere: every proper prefix of a valid header is pending, holding all it was given")
    func truncated() {
        for header in [PP.v2(tlvs: [PP.tlv(0x01, PP.text("h2"))], crc: true), PP.v2(0x21, 0x31, PP.unixBlock("/a", "/b")),
                       PP.signature + [0x20, 0x00, 0x00, 0x00]] {
            for end in 0..<header.count {
                #expect(PP.feed(Array(header[..<end])).pending, "\(end) of \(header.count)")
            }
        }
    }
}
