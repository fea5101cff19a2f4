// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketTransport

@Suite("Trusted proxies: addresses and CIDR ranges, IPv4-mapped addresses, Unix sockets")
struct TrustedProxiesTests {
    static let trusted = try! TrustedProxies(["10.0.0.0/8", "192.168.1.7", "::1", "fd00::/8", " 172.16.0.0/12 "])

    @Test("Addresses in and out of each entry", arguments: [
        ("10.0.0.0", true), ("10.255.255.255", true), ("11.0.0.0", false), ("9.255.255.255", false),
        ("192.168.1.7", true), ("192.168.1.8", false), ("172.16.0.1", true), ("172.31.255.255", true), ("172.32.0.0", false),
        ("::1", true), ("0:0::1", true), ("::2", false), ("fd12:3456::1", true), ("fe00::1", false), ("fc00::1", false),
        ("::ffff:10.1.2.3", true), ("::ffff:192.168.1.7", true), ("::ffff:11.1.2.3", false),  // IPv4-mapped
        ("::10.1.2.3", false),  // IPv4-compatible (deprecated) is not mapped
        ("127.0.0.1", false),
    ])
    func membership(_ text: String, _ expected: Bool) {
        #expect(Self.trusted.contains(PP.address(text, 443)) == expected, "\(text)")
    }

    @Test("A mapped-form entry matches the IPv4 address; a host's bits past the prefix do not matter")
    func mappedEntries() throws {
        let trusted = try TrustedProxies(["::ffff:10.0.0.0/104", "192.0.2.77/24"])
        #expect(trusted.contains(PP.address("10.9.8.7", 1)))
        #expect(trusted.contains(PP.address("::ffff:10.9.8.7", 1)))
        #expect(!trusted.contains(PP.address("11.0.0.1", 1)))
        #expect(trusted.contains(PP.address("192.0.2.1", 1)))
        #expect(!trusted.contains(PP.address("192.0.3.1", 1)))
    }

    @Test("Unix sockets: trusted with \"unix\" only; /0 ranges trust their whole family")
    func unixAndEverything() throws {
        let socket = SocketAddress.unix(rawPath: Array("/run/lb.sock".utf8)[...])
        #expect(!Self.trusted.contains(socket))
        #expect(try TrustedProxies(["unix"]).contains(socket))
        #expect(!TrustedProxies().contains(PP.address("10.0.0.1", 1)))
        let all = try TrustedProxies(["0.0.0.0/0"])
        #expect(all.contains(PP.address("203.0.113.1", 1)) && all.contains(PP.address("::ffff:203.0.113.1", 1)))
        #expect(!all.contains(PP.address("2001:db8::1", 1)))
        #expect(try TrustedProxies(["::/0"]).contains(PP.address("2001:db8::1", 1)))
    }

    @Test("Bad entries are refused with the entry and a reason", arguments: [
        ("10.0.0.0/33", "the prefix length 33 is more than 32"), ("::/129", "the prefix length 129 is more than 128"),
        ("1.2.3.4/1000", "the prefix length \"1000\" is not a decimal number"),
        ("10.0.0.0/", "the prefix length \"\" is not a decimal number"),
        ("10.0.0.0/+8", "the prefix length \"+8\" is not a decimal number"),
        ("10.0.0.0/08", "the prefix length \"08\" is not a decimal number"),
        ("10.0.0.0/-1", "the prefix length \"-1\" is not a decimal number"),
        ("10.0.0.0/8/8", "the prefix length \"8/8\" is not a decimal number"),
        ("10.0.0.01", "\"10.0.0.01\" is not an IPv4 or IPv6 address (nor \"unix\")"),
        ("example.com", "\"example.com\" is not an IPv4 or IPv6 address (nor \"unix\")"),
        ("[::1]", "\"[::1]\" is not an IPv4 or IPv6 address (nor \"unix\")"),
        ("fe80::1%eth0", "\"fe80::1%eth0\" is not an IPv4 or IPv6 address (nor \"unix\")"),
        ("10.0.0.0 /8", "\"10.0.0.0 \" is not an IPv4 or IPv6 address (nor \"unix\")"),
        ("", "empty"), ("  ", "empty"), ("UNIX", "\"UNIX\" is not an IPv4 or IPv6 address (nor \"unix\")"),
    ])
    func invalid(_ entry: String, _ reason: String) {
        #expect(throws: TrustedProxies.InvalidEntry(entry: entry, reason: reason)) {
            try TrustedProxies(["10.0.0.0/8", entry])
        }
    }

    @Test("Address text (an X-Forwarded-For entry) and Forwarded nodes: only addresses can be trusted")
    func textAndNodes() {
        #expect(Self.trusted.contains(address: "10.1.2.3"))
        #expect(Self.trusted.contains(address: "::ffff:10.1.2.3"))
        #expect(Self.trusted.contains(address: "::1"[...]))
        for text in ["10.1.2.3:80", "[::1]", "010.1.2.3", "unknown", "", "10.1.2.3 "] {
            #expect(!Self.trusted.contains(address: text), "\(text)")
        }
        typealias Node = Connection.ForwardedNode
        #expect(Self.trusted.contains(Node(name: .ipv4("10.0.0.9"), port: .number(443))))
        #expect(Self.trusted.contains(Node(name: .ipv6("fd00::9"), port: .obfuscated("_p"))))
        #expect(!Self.trusted.contains(Node(name: .ipv4("11.0.0.9"))))
        #expect(!Self.trusted.contains(Node(name: .unknown)))
        #expect(!Self.trusted.contains(Node(name: .obfuscated("_10.0.0.1"))))
    }

    @Test("Walking Forwarded back through trusted proxies finds the client; a spoofed element before it is ignored")
    func walkBack() {
        // The client 203.0.113.9 sent its own (spoofed) element; the two proxies each appended theirs.
        let elements = Connection.ForwardedElement.parseList(["for=198.51.100.66, for=203.0.113.9", "for=10.0.0.2"])
        let peer = PP.address("10.0.0.3", 5000)
        func client() -> Connection.ForwardedNode? {
            guard Self.trusted.contains(peer) else { return nil }
            for element in elements.reversed() {
                guard let node = element.for else { return nil }
                guard Self.trusted.contains(node) else { return node }
            }
            return nil
        }
        #expect(client() == Connection.ForwardedNode(name: .ipv4("203.0.113.9")))
    }

    @Test("The description lists the entries; the error's names the entry")
    func descriptions() throws {
        #expect(Self.trusted.description == "10.0.0.0/8, 192.168.1.7, ::1, fd00::/8, 172.16.0.0/12")
        #expect(TrustedProxies.InvalidEntry(entry: "x", reason: "y").description == "invalid trusted proxy \"x\": y")
    }
}
