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
