// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The seeds of `proxy-protocol`: the specification's examples and the cases of the parser's tests
/// (Tests/WebSocketTransportTests/ProxyProtocol), build-mode scripts, and RFC 7239's `Forwarded`
/// examples, in the target's input format (see `ProxyProtocolTarget`).
enum ProxyProtocolSeeds {
    static func input(_ control: UInt8, _ bytes: [UInt8], split: Int = 0) -> [UInt8] {
        [control, UInt8((split >> 8) & 0xFF), UInt8(split & 0xFF)] + bytes
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    static func tlv(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
        [type, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }

    static let ipv4Block: [UInt8] = [192, 0, 2, 1, 198, 51, 100, 7, 0xDC, 0x04, 0x01, 0xBB]
    static let ipv6Block: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
        + [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [2] + [0x30, 0x39, 0x00, 0x50]
    static let unixBlock: [UInt8] = text("/run/lb.sock") + [UInt8](repeating: 0, count: 96) + text("/run/app.sock")
        + [UInt8](repeating: 0, count: 95)
    static let tls: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05]
    static let longestIPv6 = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
    static let request = text("GET /chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\n\r\n")

    /// A version 2 header, with a right CRC32C TLV at the end when `crc`.
    static func v2(_ command: UInt8, _ family: UInt8, _ block: [UInt8], tlvs: [[UInt8]] = [], crc: Bool = false) -> [UInt8] {
        var body = block + tlvs.joined()
        let crcOffset = 16 + body.count + 3
        if crc { body += tlv(0x03, [0, 0, 0, 0]) }
        var header = ProxyProtocolTarget.signature + [command, family, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        if crc {
            let value = ProxyProtocolTarget.checksum(header, zeroing: crcOffset)
            for index in 0..<4 { header[crcOffset + index] = UInt8(truncatingIfNeeded: value >> UInt32(24 - 8 * index)) }
        }
        return header
    }

    static var all: [(String, [UInt8])] {
        let ssl = tlv(0x20, [0x07, 0, 0, 0, 0] + tlv(0x21, text("TLSv1.3")) + tlv(0x22, text("client.example"))
                      + tlv(0x23, text("TLS_AES_128_GCM_SHA256")))
        let allTLVs = [tlv(0x01, text("http/1.1")), tlv(0x02, text("ws.example.com")), tlv(0x04, [0, 0]),
                       tlv(0x05, [UInt8](repeating: 0x5A, count: 128)), ssl, tlv(0x30, text("ns")), tlv(0xEA, [1] + text("vpce-1"))]
        var badCRC = v2(0x21, 0x11, ipv4Block, tlvs: [tlv(0x01, text("h2"))], crc: true)
        badCRC[20] ^= 0x01
        return [
            // Version 1.
            ("v1-tcp4-spec-example", input(0x00, text("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n") + request, split: 20)),
            ("v1-tcp6", input(0x00, text("PROXY TCP6 2001:db8::1 ::ffff:192.0.2.1 0 65535\r\n") + tls)),
            ("v1-tcp6-longest", input(0x00, text("PROXY TCP6 \(longestIPv6) \(longestIPv6) 65535 65535\r\n"))),
            ("v1-unknown", input(0x00, text("PROXY UNKNOWN\r\n") + request, split: 7)),
            ("v1-unknown-longest", input(0x00, text("PROXY UNKNOWN \(longestIPv6) \(longestIPv6) 65535 65535\r\n"))),
            ("v1-no-crlf-in-107", input(0x00, text("PROXY UNKNOWN " + String(repeating: "a", count: 100)))),
            ("v1-leading-zero", input(0x00, text("PROXY TCP4 192.168.0.01 192.168.0.11 56324 443\r\n"))),
            ("v1-bare-lf", input(0x00, text("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"))),
            ("v1-port-too-large", input(0x00, text("PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n"))),
            ("v1-truncated", input(0x00, text("PROXY TCP4 1.2.3.4 5.6.7"))),
            ("not-proxy-http", input(0x00, request)),
            ("not-proxy-tls", input(0x00, tls)),
            // Version 2.
            ("v2-local", input(0x00, ProxyProtocolTarget.signature + [0x20, 0x00, 0x00, 0x00] + tls)),
            ("v2-local-with-crc", input(0x00, v2(0x20, 0x11, ipv4Block, tlvs: [tlv(0x01, text("h2"))], crc: true))),
            ("v2-tcp4", input(0x00, v2(0x21, 0x11, ipv4Block) + request, split: 16)),
            ("v2-udp4", input(0x00, v2(0x21, 0x12, ipv4Block))),
            ("v2-tcp6-all-tlvs-crc", input(0x00, v2(0x21, 0x21, ipv6Block, tlvs: allTLVs, crc: true) + tls, split: 100)),
            ("v2-udp6", input(0x00, v2(0x21, 0x22, ipv6Block, tlvs: [tlv(0x02, text("example.com"))]))),
            ("v2-unix-stream", input(0x00, v2(0x21, 0x31, unixBlock, tlvs: [tlv(0x05, text("id"))]))),
            ("v2-unix-dgram", input(0x00, v2(0x21, 0x32, unixBlock))),
            ("v2-unspec-tlvs", input(0x00, v2(0x21, 0x00, [], tlvs: [tlv(0x01, text("h2")), tlv(0x04, [])]))),
            ("v2-inet-unspec-transport", input(0x00, v2(0x21, 0x10, [1, 2, 3]))),
            ("v2-bad-crc", input(0x00, badCRC)),
            ("v2-bad-version", input(0x00, v2(0x11, 0x11, ipv4Block))),
            ("v2-bad-command", input(0x00, v2(0x22, 0x11, ipv4Block))),
            ("v2-bad-family", input(0x00, v2(0x21, 0x41, ipv4Block))),
            ("v2-short-block", input(0x00, v2(0x21, 0x21, ipv4Block))),
            ("v2-tlv-cut-short", input(0x00, v2(0x21, 0x11, ipv4Block, tlvs: [[0x01, 0x00, 0x09, 0x68]]))),
            ("v2-two-crcs", input(0x00, v2(0x21, 0x11, ipv4Block, tlvs: [tlv(0x03, [0, 0, 0, 0])], crc: true))),
            ("v2-announces-64k", input(0x00, ProxyProtocolTarget.signature + [0x21, 0x11, 0xFF, 0xFF] + ipv4Block)),
            ("v2-tight-limit", input(0x01, v2(0x21, 0x21, ipv6Block, tlvs: [tlv(0x02, text("example.com"))]))),
            ("v2-limit-16", input(0x02, ProxyProtocolTarget.signature + [0x20, 0x00, 0x00, 0x00])),
            ("v2-largest-limit", input(0x03, v2(0x21, 0x11, ipv4Block, tlvs: [tlv(0xE0, [UInt8](repeating: 7, count: 5000))]))),
            // Build mode: verCmd, family, flags (0x01 CRC, 0x02 a wrong one, 0x04 adjust, TLV count << 4), ...
            ("build-tcp4-two-tlvs-crc",
             input(0x04, [0x21, 0x11, 0x21] + ipv4Block + [0x01, 2] + text("h2") + [0x02, 3] + text("a.b") + tls)),
            ("build-tcp6-wrong-crc", input(0x04, [0x21, 0x21, 0x12] + ipv6Block + [0xE0, 1, 0x42])),
            ("build-local-adjusted", input(0x04, [0x20, 0x00, 0x04, 0xFE])),
            ("build-unix-ssl", input(0x04, [0x21, 0x31, 0x11] + unixBlock + [0x20, 5, 1, 0, 0, 0, 0])),
            ("build-unspecified-layout", input(0x04, [0x21, 0x20, 0x00, 0x05, 1, 2, 3, 4, 5])),
            // Forwarded mode: field lines separated by LF.
            ("forwarded-rfc7239-examples", input(0x08, text("for=\"_gazonk\"\nFor=\"[2001:db8:cafe::17]:4711\"\n"
                                                             + "for=192.0.2.60;proto=http;by=203.0.113.43\n"
                                                             + "for=192.0.2.43, for=198.51.100.17"))),
            ("forwarded-host-unknown", input(0x08, text("for=unknown;host=\"example.com:8080\";proto=wss, for=\"_a:_b\""))),
            ("forwarded-malformed", input(0x08, text("for=192.0.2.1;for=192.0.2.2, for=\"open\nfor=\"[::1]\";x=\"a\\\",b\", by=_n"))),
        ]
    }
}
