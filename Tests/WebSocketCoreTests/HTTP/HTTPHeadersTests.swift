// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("HTTPHeaders: an ordered, case-insensitive list of fields")
struct HTTPHeadersTests {
    @Test("isEmpty, remove(name:) and append(name:value:) compare names case-insensitively and keep the order")
    func editing() {
        var headers: Connection.HTTPHeaders = [:]
        #expect(headers.isEmpty)
        headers = Connection.HTTPHeaders([("Origin", "https://a.example"), ("X-Tag", "1"), ("x-tag", "2"), ("Cookie", "c=1")])
        #expect(!headers.isEmpty)
        headers.remove(name: "X-TAG")
        #expect(headers.fields.map(\.name) == ["Origin", "Cookie"])
        headers.remove(name: "absent")
        #expect(headers.count == 2)
        headers.remove(name: "origin")
        headers.append(name: "origin", value: "https://b.example")
        // An appended field goes to the end, under its own spelling of the name.
        #expect(headers.fields == [Connection.HTTPHeaders.Field(name: "Cookie", value: "c=1"),
                                   Connection.HTTPHeaders.Field(name: "origin", value: "https://b.example")])
        #expect(headers["ORIGIN"] == "https://b.example")
        headers.append(name: "X-New", value: "v")
        #expect(headers.count == 3)
        headers.remove(name: "cookie")
        headers.remove(name: "Origin")
        headers.remove(name: "x-new")
        #expect(headers.isEmpty)
    }

    /// `fields` written as a request head, parsed: its fields kept as the head's bytes.
    private static func parsed(_ fields: [(String, [UInt8])]) -> Connection.HTTPHeaders? {
        var head = Array("GET / HTTP/1.1\r\n".utf8)
        for (name, value) in fields { head += Array(name.utf8) + Array(": ".utf8) + value + [0x0D, 0x0A] }
        head += [0x0D, 0x0A]
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        guard case .request(let request) = parser.consume(head).outcome else { return nil }
        return request.headers
    }

    @Test("A parsed head's fields, kept as bytes, read as the same fields built as strings")
    func parsedAgreesWithBuilt() throws {
        let cases: [[(String, [UInt8])]] = [
            [],
            [("Host", Array("example.com".utf8))],
            [("Host", Array("a".utf8)), ("host", Array("b".utf8)), ("HOST", []), ("X-Empty", [])],
            [("Sec-WebSocket-Key", Array("dGhlIHNhbXBsZSBub25jZQ==".utf8)), ("sec-websocket-key", Array("x".utf8)),
             ("Sec-WebSocket-Extensions", Array("permessage-deflate; client_max_window_bits".utf8)),
             ("User-Agent", Array("Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/133.0".utf8))],
            [("Cookie", Array("a=1: b=2".utf8)), ("X-Colon", Array("::".utf8)), ("X-Tab", Array("a\tb".utf8))],
            [("X-Obs", [0x61, 0xFF, 0xFE, 0x62]), ("X-Utf8", Array("caf\u{E9} \u{1F389}".utf8)), ("x-obs", [0xC3])],
            (0..<30).map { ("X-Field-\($0 % 7)", Array("value \($0)".utf8)) },
        ]
        for fields in cases {
            let parsed = try #require(Self.parsed(fields), "\(fields) not parsed")
            let built = Connection.HTTPHeaders(fields.map { ($0.0, String(decoding: $0.1, as: UTF8.self)) })
            #expect(parsed.parsedByteCapacity != nil || fields.isEmpty)
            #expect(parsed.fields == built.fields)
            #expect(parsed == built && built == parsed)
            #expect(parsed.hashValue == built.hashValue)
            #expect(parsed.count == built.count && parsed.isEmpty == built.isEmpty)
            #expect(Array(parsed).map(\.name) == fields.map(\.0))
            let names = Set(fields.map { $0.0 }).union(["host", "HOST", "absent", "X-Field-1", "x-field-6", "Sec-WebSocket-Key"])
            for name in names {
                #expect(parsed[name] == built[name], "\(name)")
                #expect(parsed.values(for: name) == built.values(for: name), "\(name)")
                #expect(parsed.contains(name: name) == built.contains(name: name), "\(name)")
            }
            // Edited, both give the same again.
            var a = parsed, b = built
            a.remove(name: "host")
            b.remove(name: "host")
            a.append(name: "X-New", value: "1")
            b.append(name: "X-New", value: "1")
            #expect(a == b && a.fields == b.fields)
        }
        // The same fields, one parsed head against another, and a different value.
        let one = try #require(Self.parsed([("A", Array("1".utf8))]))
        #expect(one == (try #require(Self.parsed([("A", Array("1".utf8))]))))
        #expect(one != (try #require(Self.parsed([("A", Array("2".utf8))]))))
        #expect(one != (try #require(Self.parsed([("a", Array("1".utf8))]))))
    }

    @Test("A server's response carries the headers passed to accept, as edited")
    func editedHeadersOnTheWire() throws {
        var client = try Connection(role: .client(clientOptions()))
        var server = try Connection(role: .server)
        _ = pump(&client, into: &server)
        var headers = Connection.HTTPHeaders([("X-A", "1"), ("X-B", "2")])
        headers.remove(name: "x-a")
        headers.append(name: "x-a", value: "3")
        headers.remove(name: "X-B")
        try server.accept(headers: headers)
        let response = String(decoding: server.takeOutput(), as: UTF8.self)
        #expect(response.contains("\r\nx-a: 3\r\n"))
        #expect(!response.contains("X-A"))
        #expect(!response.contains("X-B"))
    }
}
