// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("HTTP tokens and lists (RFC 9110 §5.6)")
struct HTTPTokensTests {
    @Test("tchar is exactly RFC 9110 §5.6.2")
    func tchar() {
        let expected = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for c in UInt8.min...UInt8.max {
            #expect(HTTPTokens.isTokenChar(c) == expected.contains(c), "byte \(c)")
        }
    }

    @Test("tokens", arguments: [
        ("websocket", true), ("chat.example.com", true), ("x-webkit-deflate-frame", true), ("", false),
        ("a b", false), ("a,b", false), ("a;b", false), ("\"a\"", false), ("a/b", false), ("caf\u{E9}", false),
        ("a\u{0}", false), ("~", true),
    ])
    func tokens(text: String, isToken: Bool) {
        #expect(HTTPTokens.isToken(text) == isToken)
    }

    @Test("lists: OWS and empty elements, across field lines (RFC 9110 §5.6.1)")
    func lists() {
        #expect(HTTPTokens.tokenList(["chat, superchat"]) == ["chat", "superchat"])
        #expect(HTTPTokens.tokenList(["chat", "superchat"]) == ["chat", "superchat"])
        #expect(HTTPTokens.tokenList([" a ,\t,b,, ", ",c"]) == ["a", "b", "c"])
        #expect(HTTPTokens.tokenList([]) == [])
        #expect(HTTPTokens.tokenList([""]) == [])
        #expect(HTTPTokens.tokenList([" , ,"]) == [])
        #expect(HTTPTokens.tokenList(["a b"]) == nil)
        #expect(HTTPTokens.tokenList(["a", "b;c"]) == nil)
        #expect(HTTPTokens.tokenList(["\"a\""]) == nil)
    }

    @Test("case-insensitive membership", arguments: [
        (["Upgrade"], "upgrade", true),
        (["keep-alive, Upgrade"], "upgrade", true),
        (["keep-alive", "UPGRADE"], "upgrade", true),
        (["keep-alive,upgrade "], "upgrade", true),
        (["h2c/1, WebSocket"], "websocket", true),
        (["keep-alive"], "upgrade", false),
        (["upgraded"], "upgrade", false),
        (["up grade"], "upgrade", false),
        ([], "upgrade", false),
        (["websocket/13"], "websocket", false),
        ([",,\t upgrade\t,"], "upgrade", true),
        (["a", "b", "c, d ,UpGrAdE"], "upgrade", true),
        (["upgrad"], "upgrade", false),
        ([" , , "], "upgrade", false),
        (["upgrade"], "", false),
        (["a,,b"], "", false),
    ])
    func membership(values: [String], token: String, contains: Bool) {
        #expect(HTTPTokens.listContains(values, token: token) == contains)
    }

    @Test("ASCII case-insensitive equality: lengths first, then bytes; only ASCII letters fold")
    func caseInsensitiveEquality() {
        #expect("Sec-WebSocket-Key".asciiCaseInsensitiveEquals("sec-websocket-key"))
        #expect("HOST".asciiCaseInsensitiveEquals("host"[...]))
        #expect(!"Host".asciiCaseInsensitiveEquals("Hosts"))
        #expect(!"Hosts".asciiCaseInsensitiveEquals("Host"))
        #expect("".asciiCaseInsensitiveEquals(""))
        #expect(!"a".asciiCaseInsensitiveEquals(""))
        // "@" and "`" sit next to the letters; only A-Z fold to a-z.
        #expect(!"@".asciiCaseInsensitiveEquals("`"))
        #expect(!"[".asciiCaseInsensitiveEquals("{"))
        #expect(!"é".asciiCaseInsensitiveEquals("É"))
        #expect("é".asciiCaseInsensitiveEquals("é"))
        let long = String(repeating: "Ab", count: 100)
        #expect(long.asciiCaseInsensitiveEquals(long.lowercased()))
        #expect(!long.asciiCaseInsensitiveEquals(long.lowercased().dropLast() + "c"))
    }

    @Test("trimming OWS")
    func trimming() {
        #expect(HTTPTokens.trimmingOWS(" \t a b \t"[...]) == "a b")
        #expect(HTTPTokens.trimmingOWS("   "[...]) == "")
        #expect(HTTPTokens.trimmingOWS(Array(" x ".utf8)[...]) == Array("x".utf8)[...])
    }
}
