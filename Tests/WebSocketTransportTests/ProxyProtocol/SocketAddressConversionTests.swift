// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketTransport

@Suite("SocketAddress from and to the addresses a PROXY protocol header carries")
struct SocketAddressConversionTests {
    @Test("IPv4 and IPv6 with a port: the family, host, port and description the kernel's would have")
    func ip() throws {
        let v4 = PP.address("192.0.2.1", 56324)
        #expect(v4.family == .ipv4 && v4.host == "192.0.2.1" && v4.port == 56324 && v4.description == "192.0.2.1:56324")
        let v6 = PP.address("2001:db8::17", 0)
        #expect(v6.family == .ipv6 && v6.host == "2001:db8::17" && v6.port == 0 && v6.description == "[2001:db8::17]:0")
        #expect(v4.ipAddress == IPAddressLiteral("192.0.2.1"))
        #expect(v6.ipAddress == IPAddressLiteral("2001:db8::17"))
    }

    @Test("Unix paths from raw bytes: padding dropped, an unnamed one, an abstract name; no IP address")
    func unix() {
        let padded = SocketAddress.unix(rawPath: (Array("/run/a.sock".utf8) + [0, 0, 0])[...])
        #expect(padded.family == .unix && padded.unixPath == "/run/a.sock" && padded.ipAddress == nil)
        #expect(SocketAddress.unix(rawPath: [UInt8](repeating: 0, count: 108)[...]).description == "unix:(unnamed)")
        let abstract = SocketAddress.unix(rawPath: ([0] + Array("name".utf8) + [0, 0])[...])
        #expect(abstract.family == .unix && abstract.unixPath == nil)
    }

    @Test("Strict address text: RFC 3986 forms only, whatever inet_pton would take", arguments: [
        ("192.0.2.1", true), ("::ffff:192.0.2.1", true), ("2001:DB8::1", true), ("010.0.0.1", false), ("1.2.3", false),
        ("0x7f.0.0.1", false), ("1.2.3.4\u{0}junk", false), ("::1%lo", false), (" ::1", false), ("", false),
    ])
    func strict(_ text: String, _ valid: Bool) {
        #expect((IPAddressLiteral(strict: text) != nil) == valid, "\(text)")
    }
}
