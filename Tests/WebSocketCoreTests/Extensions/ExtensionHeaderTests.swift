// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Sec-WebSocket-Extensions grammar (RFC 6455 §9.1)")
struct ExtensionHeaderTests {
    typealias P = Connection.ExtensionHeader.Parameter

    @Test("RFC 7692 offers")
    func permessageDeflateOffers() {
        // RFC 7692 §5.2 and §7.1.3.
        let list = Connection.ExtensionHeader.parseList([
            "permessage-deflate; client_max_window_bits, permessage-deflate; server_no_context_takeover; client_max_window_bits=10",
        ])
        #expect(list == [
            Connection.ExtensionHeader(name: "permessage-deflate", parameters: [P(name: "client_max_window_bits")]),
            Connection.ExtensionHeader(name: "permessage-deflate", parameters: [
                P(name: "server_no_context_takeover"), P(name: "client_max_window_bits", value: "10"),
            ]),
        ])
        #expect(Connection.ExtensionHeader.parseList(["x-webkit-deflate-frame"]) == [Connection.ExtensionHeader(name: "x-webkit-deflate-frame")])
        #expect(Connection.ExtensionHeader.parseList(["permessage-deflate; client_max_window_bits=\"10\""]) == [
            Connection.ExtensionHeader(name: "permessage-deflate", parameters: [P(name: "client_max_window_bits", value: "10")]),
        ])
    }

    @Test("whitespace, empty elements and several field lines")
    func listSyntax() {
        let expected = [
            Connection.ExtensionHeader(name: "a", parameters: [P(name: "x", value: "1"), P(name: "y")]),
            Connection.ExtensionHeader(name: "b"),
        ]
        #expect(Connection.ExtensionHeader.parseList(["a;x=1;y,b"]) == expected)
        #expect(Connection.ExtensionHeader.parseList(["  a ; x = 1 ;\ty , b  "]) == expected)
        #expect(Connection.ExtensionHeader.parseList(["a; x=1; y", "b"]) == expected)
        #expect(Connection.ExtensionHeader.parseList(["a;x=1;y,,b"]) == expected)  // RFC 9110 §5.6.1: empty elements ignored
        #expect(Connection.ExtensionHeader.parseList([", a;x=\"1\";y ,, b,"]) == expected)
        #expect(Connection.ExtensionHeader.parseList(["a;x=\"\\1\";y, b"]) == expected)  // quoted-pair unescaped
        #expect(Connection.ExtensionHeader.parseList([]) == [])
    }

    @Test("bad syntax", arguments: [
        ";foo", "a;", "a;b=", "a;b=\"c d\"", "a;b=\"\"", "a;b=\"c", "a;b=c d", "a b", "a;b=c;", "a;=c", "a=b",
        "a;b==c", "a;b=\"c\"d", "a;b=c\"d\"", "\"a\"", "a;b=\"c,d\"", "a;b=\"\\\"\"", "", ",", " , ,", "a;b=\"c\u{1}\"",
        "caf\u{E9}", "a;b=@",
    ])
    func badSyntax(value: String) {
        #expect(Connection.ExtensionHeader.parseList([value]) == nil)
    }

    @Test("a field line with only empty elements fails even next to a valid one")
    func emptyAmongLines() {
        // The lines join as "a, ", which is a valid list; an empty line alone is not.
        #expect(Connection.ExtensionHeader.parseList(["a", ""]) == [Connection.ExtensionHeader(name: "a")])
        #expect(Connection.ExtensionHeader.parseList([""]) == nil)
    }

    @Test("serialization: tokens bare, anything else quoted, round trip")
    func serialization() {
        let list = [
            Connection.ExtensionHeader(name: "permessage-deflate", parameters: [
                P(name: "client_max_window_bits"), P(name: "server_max_window_bits", value: "10"),
            ]),
            Connection.ExtensionHeader(name: "x-webkit-deflate-frame"),
        ]
        let value = Connection.ExtensionHeader.headerValue(list)
        #expect(value == "permessage-deflate; client_max_window_bits; server_max_window_bits=10, x-webkit-deflate-frame")
        #expect(Connection.ExtensionHeader.parseList([value]) == list)
        let odd = Connection.ExtensionHeader(name: "e", parameters: [P(name: "p", value: "a \"b\"\\c"), P(name: "q", value: "")])
        #expect(odd.headerValue == "e; p=\"a \\\"b\\\"\\\\c\"; q=\"\"")
        #expect(Connection.ExtensionHeader.headerValue([]) == "")
        #expect(odd.isWritable)
        #expect(!Connection.ExtensionHeader(name: "a b").isWritable)
        #expect(!Connection.ExtensionHeader(name: "a", parameters: [P(name: "p;")]).isWritable)
        #expect(!Connection.ExtensionHeader(name: "a", parameters: [P(name: "p", value: "x\r\ny")]).isWritable)
    }

    @Test("mutated lists never trap, and what parses serializes back to the same list")
    func mutatedLists() {
        var random = Connection.SeededGenerator(seed: 7692)
        let alphabet = Array("ab=;,\" \t\\x-_9".utf8) + [0x00, 0xC3, 0xA9]
        var parsed = 0
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...24, using: &random)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let list = Connection.ExtensionHeader.parseList([text]) else { continue }
            parsed += 1
            #expect(!list.isEmpty)
            #expect(Connection.ExtensionHeader.parseList([Connection.ExtensionHeader.headerValue(list)]) == list, "\(text)")
        }
        #expect(parsed > 50)  // the property was really exercised (89 lists parse with this seed)
    }
}
