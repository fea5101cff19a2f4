// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

typealias Element = Connection.ForwardedElement
typealias Node = Connection.ForwardedNode

@Suite("Forwarded (RFC 7239 §4-§6) and X-Forwarded-For")
struct Forwarded_RFC7239_Tests {
    static func parse(_ values: String...) -> [Element] { Element.parseList(values) }

    static let malformed = Element.malformed

    /// A server Connection's view of a request carrying these header fields.
    static func request(_ fields: [(String, String)]) throws -> Connection.HandshakeRequest {
        var text = "GET /chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        var server = try Connection(role: .server, configuration: Connection.Configuration())
        server.receive(Array((text + "\r\n").utf8))
        guard case .handshakeRequest(let request)? = server.nextEvent() else { throw TestFailure("no request") }
        return request
    }

    // MARK: The RFC's examples

    @Test("§4: for=\"_gazonk\" (a quoted obfuscated identifier)")
    func gazonk() {
        #expect(Self.parse("for=\"_gazonk\"") == [Element(for: Node(name: .obfuscated("_gazonk")))])
    }

    @Test("§4: For=\"[2001:db8:cafe::17]:4711\" (the name in any case, an IPv6 node with a port)")
    func ipv6WithPort() {
        #expect(Self.parse("For=\"[2001:db8:cafe::17]:4711\"")
            == [Element(for: Node(name: .ipv6("2001:db8:cafe::17"), port: .number(4711)))])
    }

    @Test("§4: for=192.0.2.60;proto=http;by=203.0.113.43")
    func threeParameters() {
        #expect(Self.parse("for=192.0.2.60;proto=http;by=203.0.113.43")
            == [Element(for: Node(name: .ipv4("192.0.2.60")), by: Node(name: .ipv4("203.0.113.43")), proto: "http")])
    }

    @Test("§4, §7.1: a list, in its order (nearest proxy last), over one line or several")
    func lists() throws {
        let expected = [Element(for: Node(name: .ipv4("192.0.2.43"))), Element(for: Node(name: .ipv4("198.51.100.17")))]
        #expect(Self.parse("for=192.0.2.43, for=198.51.100.17") == expected)
        #expect(Self.parse("for=192.0.2.43", "for=198.51.100.17") == expected)
        #expect(Self.parse("for=192.0.2.43,for=198.51.100.17;by=203.0.113.60;proto=http;host=example.com")
            == [expected[0], Element(for: Node(name: .ipv4("198.51.100.17")), by: Node(name: .ipv4("203.0.113.60")),
                                     host: "example.com", proto: "http")])
    }

    @Test("§6: every node form: IPv4, [IPv6], unknown, obfuscated; numeric and obfuscated ports")
    func nodes() {
        let cases: [(String, Node)] = [
            ("192.0.2.43", Node(name: .ipv4("192.0.2.43"))),
            ("\"192.0.2.43:47011\"", Node(name: .ipv4("192.0.2.43"), port: .number(47011))),
            ("\"[2001:db8:cafe::17]\"", Node(name: .ipv6("2001:db8:cafe::17"))),
            ("\"[::ffff:192.0.2.1]:0\"", Node(name: .ipv6("::ffff:192.0.2.1"), port: .number(0))),
            ("unknown", Node(name: .unknown)),
            ("UNKNOWN", Node(name: .unknown)),
            ("\"unknown:_p\"", Node(name: .unknown, port: .obfuscated("_p"))),
            ("_hidden", Node(name: .obfuscated("_hidden"))),
            ("_SEVKISEK", Node(name: .obfuscated("_SEVKISEK"))),
            ("\"_a.b-c_d:_8080x\"", Node(name: .obfuscated("_a.b-c_d"), port: .obfuscated("_8080x"))),
            ("\"[2001:db8::1]:65535\"", Node(name: .ipv6("2001:db8::1"), port: .number(65535))),
            ("\"192.0.2.1:00080\"", Node(name: .ipv4("192.0.2.1"), port: .number(80))),  // 1*5DIGIT
        ]
        for (value, node) in cases {
            #expect(Self.parse("for=" + value) == [Element(for: node)], "\(value)")
            #expect(Self.parse("by=" + value) == [Element(by: node)], "\(value)")
        }
    }

    @Test("§7.4: X-Forwarded-For and its Forwarded equivalent name the same addresses")
    func transition() throws {
        let request = try Self.request([("X-Forwarded-For", "192.0.2.43, 2001:db8:cafe::17"),
                                        ("Forwarded", "for=192.0.2.43, for=\"[2001:db8:cafe::17]\"")])
        #expect(request.xForwardedFor == ["192.0.2.43", "2001:db8:cafe::17"])
        #expect(request.forwarded.map(\.for?.name) == [.ipv4("192.0.2.43"), .ipv6("2001:db8:cafe::17")])
    }

    // MARK: Through a server connection

    @Test("HandshakeRequest: every Forwarded and X-Forwarded-For line, in order, names in any case; none gives []")
    func handshakeRequest() throws {
        let request = try Self.request([("Forwarded", "for=\"_client\""), ("X-Forwarded-For", " 198.51.100.7 ,, unknown"),
                                        ("forwarded", "for=192.0.2.1;proto=HTTPS"), ("x-forwarded-for", "10.0.0.1:8080")])
        #expect(request.forwarded == [Element(for: Node(name: .obfuscated("_client"))),
                                      Element(for: Node(name: .ipv4("192.0.2.1")), proto: "https")])
        #expect(request.xForwardedFor == ["198.51.100.7", "unknown", "10.0.0.1:8080"])
        let plain = try Self.request([])
        #expect(plain.forwarded.isEmpty)
        #expect(plain.xForwardedFor.isEmpty)
    }

    // MARK: What is lenient, what is skipped

    @Test("OWS around commas and semicolons; empty elements and empty pairs; extensions skipped")
    func lenient() {
        #expect(Self.parse(" for=192.0.2.1 ; proto=https ,\t, for=unknown ") == [
            Element(for: Node(name: .ipv4("192.0.2.1")), proto: "https"), Element(for: Node(name: .unknown)),
        ])
        #expect(Self.parse("for=192.0.2.1;;proto=http;") == [Element(for: Node(name: .ipv4("192.0.2.1")), proto: "http")])
        #expect(Self.parse("", ",", " , ") == [])
        #expect(Self.parse(";") == [Element()])
        #expect(Self.parse("secret=\"x, y\";for=192.0.2.1;ext=token") == [Element(for: Node(name: .ipv4("192.0.2.1")))])
        #expect(Self.parse("host=\"example.com:8080\"") == [Element(host: "example.com:8080")])
        #expect(Self.parse("host=[::1]") == [Self.malformed])  // brackets are no tchar: it must be quoted
        #expect(Self.parse("host=\"[::1]:443\"") == [Element(host: "[::1]:443")])
        #expect(Self.parse("for=\"\\_gazonk\"") == [Element(for: Node(name: .obfuscated("_gazonk")))])  // a quoted-pair
    }

    // MARK: Malformed elements

    @Test("Malformed elements stay in place, with nothing in them; parsing goes on after them", arguments: [
        "for=192.0.2.1;for=192.0.2.2",  // §4: a parameter at most once
        "for=192.0.2.1;FOR=unknown", "by=unknown;by=unknown", "host=a;host=b", "proto=http;proto=https",
        "for=example.com",  // a host name is no node
        "for=\"[2001:db8::1]\"x", "for=192.0.2.1 proto=http", "for=\"a\u{1}\"",
        "for=[2001:db8::1]",  // unquoted brackets
        "for=\"2001:db8::1\"",  // IPv6 without brackets
        "for=\"[2001:db8::1\"", "for=\"[2001:db8::1]:\"", "for=\"[2001:db8::1]x\"", "for=\"[fe80::1%25eth0]\"",
        "for=\"[2001:db8::g]\"", "for=\"[1:2:3:4:5:6:7:8:9]\"",
        "for=192.0.2.256", "for=192.0.2.01", "for=192.0.2", "for=\"192.0.2.1:65536\"", "for=\"192.0.2.1:123456\"",
        "for=\"192.0.2.1:\"", "for=\"192.0.2.1:8a\"", "for=\"192.0.2.1:-1\"", "for=\"192.0.2.1:1:2\"",
        "for=_", "for=\"_a b\"", "for=\"_a:_\"", "for=\"_a:_b c\"", "for=\"unknown:\"", "for=unknownx",
        "for=", "=192.0.2.1", "for", "for =192.0.2.1", "for= 192.0.2.1", "for=\"\"",
        "proto=1http", "proto=\"ht tp\"", "proto=\"\"", "proto=h_ttp",
        "host=\"\"", "host=\"a b\"", "host=\"a/b\"",
        "\"for\"=192.0.2.1", "for=192.0.2.1;x",
    ])
    func malformed(_ value: String) {
        #expect(Self.parse(value) == [Self.malformed], "\(value)")
        #expect(Self.parse("for=unknown, " + value + " ,for=_next")
            == [Element(for: Node(name: .unknown)), Self.malformed, Element(for: Node(name: .obfuscated("_next")))], "\(value)")
    }

    @Test("A comma inside a quoted-string does not end the element being skipped; an escaped quote does not close it")
    func skippingRespectsQuotes() {
        #expect(Self.parse("for=bad;x=\"a,b\", for=unknown") == [Self.malformed, Element(for: Node(name: .unknown))])
        #expect(Self.parse("for=bad;x=\"a\\\",b\", for=_n") == [Self.malformed, Element(for: Node(name: .obfuscated("_n")))])
        #expect(Self.parse("for=\"[::1]\" ; for=\"x,y\", for=_n") == [Self.malformed, Element(for: Node(name: .obfuscated("_n")))])
    }

    @Test("A quoted-string left open runs to the end of its line: the rest of the line is one malformed element")
    func openQuoteRunsToTheEndOfTheLine() {
        for value in ["for=\"192.0.2.1, for=_next", "for=192.0.2.1;\", for=_next", "x=\"a\\\", for=_next"] {
            #expect(Self.parse("for=unknown, " + value) == [Element(for: Node(name: .unknown)), Self.malformed], "\(value)")
        }
    }

    @Test("A quoted-string left open on one line does not swallow the next line (a proxy's)")
    func openQuoteStaysOnItsLine() throws {
        let request = try Self.request([("Forwarded", "for=\"_spoofed, for=192.0.2.66"), ("Forwarded", "for=198.51.100.9")])
        #expect(request.forwarded == [Self.malformed, Element(for: Node(name: .ipv4("198.51.100.9")))])
    }

    @Test("Never traps: every prefix and every one-byte change of a valid list parses to some list")
    func neverTraps() {
        let valid = Array("for=192.0.2.43;by=\"[2001:db8::1]:80\";host=\"ex:1\";proto=https, for=\"_a:_b\";x=\"q\\\"\"".utf8)
        let bytes: [UInt8] = [0, 0x22, 0x2C, 0x3B, 0x3D, 0x3A, 0x5B, 0x5D, 0x5C, 0x5F, 0x20, 0xFF]
        for end in 0...valid.count {
            _ = Element.parseList([String(decoding: valid[..<end], as: UTF8.self)])
        }
        for index in valid.indices {
            for byte in bytes {
                var changed = valid
                changed[index] = byte
                let elements = Element.parseList([String(decoding: changed, as: UTF8.self)])
                // At most one element per comma, plus one.
                #expect(elements.count <= changed.count { $0 == UInt8(ascii: ",") } + 1)
            }
        }
    }

    @Test("A node's description is its RFC 7239 form, and reads back as the same node")
    func descriptions() {
        let nodes = [Node(name: .ipv4("192.0.2.43")), Node(name: .ipv6("2001:db8:cafe::17"), port: .number(4711)),
                     Node(name: .unknown), Node(name: .obfuscated("_hidden"), port: .obfuscated("_p"))]
        #expect(nodes.map(\.description) == ["192.0.2.43", "[2001:db8:cafe::17]:4711", "unknown", "_hidden:_p"])
        for node in nodes {
            #expect(Node(parsing: Array(node.description.utf8)) == node)
        }
    }
}
