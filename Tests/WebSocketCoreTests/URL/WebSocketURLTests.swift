// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("WebSocketURL parsing (RFC 6455 §3, RFC 3986)")
struct WebSocketURLTests {
    struct Good: Sendable, CustomTestStringConvertible {
        var input: String
        var isSecure: Bool
        var host: String
        var port: UInt16
        var resource: String
        var user: String? = nil
        var password: String? = nil
        var hostHeader: String
        var testDescription: String { String(reflecting: input) }
    }

    static let good: [Good] = [
        Good(input: "ws://example.com", isSecure: false, host: "example.com", port: 80, resource: "/",
             hostHeader: "example.com"),
        Good(input: "wss://EXAMPLE.com:8443/chat?x=1&y=2", isSecure: true, host: "example.com", port: 8443,
             resource: "/chat?x=1&y=2", hostHeader: "example.com:8443"),
        Good(input: "WsS://Host.Example.COM", isSecure: true, host: "host.example.com", port: 443, resource: "/",
             hostHeader: "host.example.com"),
        Good(input: "ws://[::1]:9001/", isSecure: false, host: "::1", port: 9001, resource: "/",
             hostHeader: "[::1]:9001"),
        Good(input: "ws://[2001:db8::1]/", isSecure: false, host: "2001:db8::1", port: 80, resource: "/",
             hostHeader: "[2001:db8::1]"),
        Good(input: "wss://[2001:DB8::A]:443", isSecure: true, host: "2001:db8::a", port: 443, resource: "/",
             hostHeader: "[2001:db8::a]"),
        Good(input: "ws://[::ffff:192.168.0.1]:8080/x", isSecure: false, host: "::ffff:192.168.0.1", port: 8080,
             resource: "/x", hostHeader: "[::ffff:192.168.0.1]:8080"),
        Good(input: "ws://[::]/", isSecure: false, host: "::", port: 80, resource: "/", hostHeader: "[::]"),
        Good(input: "ws://[1:2:3:4:5:6:7:8]/", isSecure: false, host: "1:2:3:4:5:6:7:8", port: 80, resource: "/",
             hostHeader: "[1:2:3:4:5:6:7:8]"),
        Good(input: "ws://[1:2:3:4:5:6:1.2.3.4]/", isSecure: false, host: "1:2:3:4:5:6:1.2.3.4", port: 80,
             resource: "/", hostHeader: "[1:2:3:4:5:6:1.2.3.4]"),
        Good(input: "ws://[1:2:3:4:5:6:7::]/", isSecure: false, host: "1:2:3:4:5:6:7::", port: 80, resource: "/",
             hostHeader: "[1:2:3:4:5:6:7::]"),
        Good(input: "ws://[fe80::1%25Eth0]:9000/", isSecure: false, host: "fe80::1%25Eth0", port: 9000,
             resource: "/", hostHeader: "[fe80::1%25Eth0]:9000"),
        // A zone ID with a percent-encoded character of its own (RFC 6874 §2: pct-encoded), kept as written.
        Good(input: "ws://[FE80::1%25en%30]/", isSecure: false, host: "fe80::1%25en%30", port: 80,
             resource: "/", hostHeader: "[fe80::1%25en%30]"),
        Good(input: "ws://user:p%40ss@host/", isSecure: false, host: "host", port: 80, resource: "/",
             user: "user", password: "p@ss", hostHeader: "host"),
        Good(input: "ws://user@host", isSecure: false, host: "host", port: 80, resource: "/", user: "user",
             hostHeader: "host"),
        Good(input: "ws://user:@host", isSecure: false, host: "host", port: 80, resource: "/", user: "user",
             password: "", hostHeader: "host"),
        Good(input: "ws://:secret@host", isSecure: false, host: "host", port: 80, resource: "/", user: "",
             password: "secret", hostHeader: "host"),
        Good(input: "ws://@host", isSecure: false, host: "host", port: 80, resource: "/", hostHeader: "host"),
        Good(input: "ws://a@b:c:d@e@host:81/", isSecure: false, host: "host", port: 81, resource: "/", user: "a@b",
             password: "c:d@e", hostHeader: "host:81"),
        Good(input: "ws://us%C3%A9r:p%C3%A4ss%20w@host", isSecure: false, host: "host", port: 80, resource: "/",
             user: "usér", password: "päss w", hostHeader: "host"),
        Good(input: "ws://üser:🔑@host", isSecure: false, host: "host", port: 80, resource: "/", user: "üser",
             password: "🔑", hostHeader: "host"),
        Good(input: "ws://host:80", isSecure: false, host: "host", port: 80, resource: "/", hostHeader: "host"),
        Good(input: "wss://host:443/", isSecure: true, host: "host", port: 443, resource: "/", hostHeader: "host"),
        Good(input: "wss://host:80/", isSecure: true, host: "host", port: 80, resource: "/", hostHeader: "host:80"),
        Good(input: "ws://host:443/", isSecure: false, host: "host", port: 443, resource: "/",
             hostHeader: "host:443"),
        Good(input: "ws://host:/", isSecure: false, host: "host", port: 80, resource: "/", hostHeader: "host"),
        Good(input: "ws://host:0080/", isSecure: false, host: "host", port: 80, resource: "/", hostHeader: "host"),
        Good(input: "ws://h:1", isSecure: false, host: "h", port: 1, resource: "/", hostHeader: "h:1"),
        Good(input: "ws://h:65535", isSecure: false, host: "h", port: 65535, resource: "/", hostHeader: "h:65535"),
        Good(input: "ws://127.0.0.1:9001", isSecure: false, host: "127.0.0.1", port: 9001, resource: "/",
             hostHeader: "127.0.0.1:9001"),
        Good(input: "ws://0.0.0.0/", isSecure: false, host: "0.0.0.0", port: 80, resource: "/",
             hostHeader: "0.0.0.0"),
        Good(input: "ws://255.255.255.255/", isSecure: false, host: "255.255.255.255", port: 80, resource: "/",
             hostHeader: "255.255.255.255"),
        Good(input: "ws://127.0.0.%31/", isSecure: false, host: "127.0.0.1", port: 80, resource: "/",
             hostHeader: "127.0.0.1"),
        Good(input: "ws://Ex%41mple.com/", isSecure: false, host: "example.com", port: 80, resource: "/",
             hostHeader: "example.com"),
        Good(input: "ws://xn--bcher-kva.example%c3%a9/", isSecure: false, host: "xn--bcher-kva.example%C3%A9",
             port: 80, resource: "/", hostHeader: "xn--bcher-kva.example%C3%A9"),
        Good(input: "ws://a-b_c~d.example./", isSecure: false, host: "a-b_c~d.example.", port: 80, resource: "/",
             hostHeader: "a-b_c~d.example."),
        Good(input: "ws://1.example.com/", isSecure: false, host: "1.example.com", port: 80, resource: "/",
             hostHeader: "1.example.com"),
        Good(input: "ws://host?x", isSecure: false, host: "host", port: 80, resource: "/?x", hostHeader: "host"),
        Good(input: "ws://host/?", isSecure: false, host: "host", port: 80, resource: "/?", hostHeader: "host"),
        Good(input: "ws://host/path?q=1?2/3:@!$&'()*+,;=", isSecure: false, host: "host", port: 80,
             resource: "/path?q=1?2/3:@!$&'()*+,;=", hostHeader: "host"),
        Good(input: "ws://host/a path/ü?q=a b", isSecure: false, host: "host", port: 80,
             resource: "/a%20path/%C3%BC?q=a%20b", hostHeader: "host"),
        Good(input: "ws://host/a%2fb%zz%4%", isSecure: false, host: "host", port: 80,
             resource: "/a%2fb%25zz%254%25", hostHeader: "host"),
        Good(input: "ws://host/[x]{y}|\\^`\"<>", isSecure: false, host: "host", port: 80,
             resource: "/%5Bx%5D%7By%7D%7C%5C%5E%60%22%3C%3E", hostHeader: "host"),
        Good(input: "ws://host/tab\there\r\n", isSecure: false, host: "host", port: 80, resource: "/tab%09here",
             hostHeader: "host"),
        Good(input: "ws://host/a\r\nX-Injected: 1", isSecure: false, host: "host", port: 80,
             resource: "/a%0D%0AX-Injected:%201", hostHeader: "host"),
        Good(input: " \t\r\n\u{0C}ws://host/chat \n", isSecure: false, host: "host", port: 80, resource: "/chat",
             hostHeader: "host"),
        Good(input: "ws://host/a/../b", isSecure: false, host: "host", port: 80, resource: "/a/../b",
             hostHeader: "host"),
        Good(input: "ws://!$&'()*+,;=/", isSecure: false, host: "!$&'()*+,;=", port: 80, resource: "/",
             hostHeader: "!$&'()*+,;="),
    ]

    @Test("valid URIs give the expected parts", arguments: good)
    func parsesGood(_ g: Good) throws {
        let url = try WebSocketURL(parsing: g.input)
        #expect(url.isSecure == g.isSecure)
        #expect(url.host == g.host)
        #expect(url.port == g.port)
        #expect(url.resource == g.resource)
        #expect(url.user == g.user)
        #expect(url.password == g.password)
        #expect(url.hostHeaderValue == g.hostHeader)
        #expect(url.isIPv6Literal == g.hostHeader.hasPrefix("["))
    }

    @Test("absoluteString parses back to an equal value, and is stable", arguments: good)
    func roundTrip(_ g: Good) throws {
        let url = try WebSocketURL(parsing: g.input)
        let again = try WebSocketURL(parsing: url.absoluteString)
        #expect(again == url)
        #expect(again.absoluteString == url.absoluteString)
        #expect(try WebSocketURL(parsing: url.description).password == nil)
    }

    @Test("absoluteString and description", arguments: [
        ("ws://example.com", "ws://example.com/", "ws://example.com/"),
        ("wss://EXAMPLE.com:8443/chat?x=1&y=2", "wss://example.com:8443/chat?x=1&y=2",
         "wss://example.com:8443/chat?x=1&y=2"),
        ("ws://host:80", "ws://host/", "ws://host/"),
        ("wss://host:80", "wss://host:80/", "wss://host:80/"),
        ("ws://[::1]:9001/", "ws://[::1]:9001/", "ws://[::1]:9001/"),
        ("ws://user:p%40ss@host/", "ws://user:p%40ss@host/", "ws://user@host/"),
        ("ws://a@b:c:d@host/x", "ws://a%40b:c%3Ad@host/x", "ws://a%40b@host/x"),
        ("ws://usér:pw@host", "ws://us%C3%A9r:pw@host/", "ws://us%C3%A9r@host/"),
        ("ws://:pw@host", "ws://:pw@host/", "ws://@host/"),
        ("ws://host?x", "ws://host/?x", "ws://host/?x"),
    ])
    func rendering(input: String, absolute: String, description: String) throws {
        let url = try WebSocketURL(parsing: input)
        #expect(url.absoluteString == absolute)
        #expect(url.description == description)
        #expect("\(url)" == description)
    }

    @Test("absoluteString of hand-built values encodes what the fields cannot hold raw")
    func handBuilt() throws {
        let url = WebSocketURL(host: "h", resource: "chat#x y", user: "a@b:c", password: "p w%")
        #expect(url.absoluteString == "ws://a%40b%3Ac:p%20w%25@h/chat%23x%20y")
        #expect(url.description == "ws://a%40b%3Ac@h/chat%23x%20y")
        let parsed = try WebSocketURL(parsing: url.absoluteString)
        #expect(parsed.user == "a@b:c")
        #expect(parsed.password == "p w%")
        #expect(parsed.resource == "/chat%23x%20y")

        let query = WebSocketURL(isSecure: true, host: "::1", port: 8443, resource: "?q")
        #expect(query.absoluteString == "wss://[::1]:8443/?q")
        #expect(WebSocketURL(host: "h", password: "x").absoluteString == "ws://:x@h/")
    }

    @Test("invalid URIs fail with the precise error", arguments: [
        ("http://x", WebSocketURLError.unsupportedScheme("http")),
        ("https://x/chat", .unsupportedScheme("https")),
        ("HTTP://x", .unsupportedScheme("http")),
        ("ftp://x", .unsupportedScheme("ftp")),
        ("wss+unix://x", .unsupportedScheme("wss+unix")),
        ("localhost:8080", .unsupportedScheme("localhost")),
        ("example.com", .missingScheme),
        ("example.com/a:b", .missingScheme),
        ("", .missingScheme),
        (" \t\n", .missingScheme),
        ("://host", .missingScheme),
        ("1ws://host", .missingScheme),
        ("w s://host", .missingScheme),
        ("ws ://host", .missingScheme),
        ("w\u{0}s://host", .missingScheme),
        ("ws:host", .missingAuthority),
        ("ws:/host", .missingAuthority),
        ("ws:", .missingAuthority),
        ("ws: //host", .missingAuthority),
        ("ws://", .emptyHost),
        ("ws:///chat", .emptyHost),
        ("ws://:80", .emptyHost),
        ("ws://user@/", .emptyHost),
        ("ws://?x", .emptyHost),
        ("ws://host:0", .portOutOfRange("0")),
        ("ws://host:00000", .portOutOfRange("00000")),
        ("ws://host:65536", .portOutOfRange("65536")),
        ("ws://host:99999999999999999999", .portOutOfRange("99999999999999999999")),
        ("ws://host:8a", .invalidPort("8a")),
        ("ws://host:-1", .invalidPort("-1")),
        ("ws://host:+80", .invalidPort("+80")),
        ("ws://host: 80", .invalidPort(" 80")),
        ("ws://host:٨٠", .invalidPort("٨٠")),
        ("ws://[::1]:x/", .invalidPort("x")),
        ("ws://[::1", .unclosedIPv6Literal),
        ("ws://[::1/chat]", .unclosedIPv6Literal),
        ("ws://[1:2:3:4:5:6:7:8:9]/", .invalidIPv6Address("1:2:3:4:5:6:7:8:9")),
        ("ws://[1:2:3:4:5:6:7]/", .invalidIPv6Address("1:2:3:4:5:6:7")),
        ("ws://[1:2:3:4:5:6:7:8::]/", .invalidIPv6Address("1:2:3:4:5:6:7:8::")),
        ("ws://[::1::2]/", .invalidIPv6Address("::1::2")),
        ("ws://[:::]/", .invalidIPv6Address(":::")),
        ("ws://[1:::2]/", .invalidIPv6Address("1:::2")),
        ("ws://[:1::]/", .invalidIPv6Address(":1::")),
        ("ws://[1::2:]/", .invalidIPv6Address("1::2:")),
        ("ws://[gggg::1]/", .invalidIPv6Address("gggg::1")),
        ("ws://[12345::]/", .invalidIPv6Address("12345::")),
        ("ws://[::1.2.3]/", .invalidIPv6Address("::1.2.3")),
        ("ws://[::256.1.1.1]/", .invalidIPv6Address("::256.1.1.1")),
        ("ws://[::01.2.3.4]/", .invalidIPv6Address("::01.2.3.4")),
        ("ws://[1.2.3.4::]/", .invalidIPv6Address("1.2.3.4::")),
        ("ws://[1:2:3:4:5:6:7:1.2.3.4]/", .invalidIPv6Address("1:2:3:4:5:6:7:1.2.3.4")),
        ("ws://[127.0.0.1]/", .invalidIPv6Address("127.0.0.1")),
        ("ws://[]/", .invalidIPv6Address("")),
        ("ws://[v1.fe]/", .invalidIPv6Address("v1.fe")),
        ("ws://[fe80::1%eth0]/", .invalidIPv6Address("fe80::1%eth0")),
        ("ws://[fe80::1%25]/", .invalidIPv6Address("fe80::1%25")),
        ("ws://[fe80::1%2]/", .invalidIPv6Address("fe80::1%2")),
        ("ws://[fe80::1%25eth%zz]/", .invalidIPv6Address("fe80::1%25eth%zz")),
        ("ws://[fe80::1%25eth:0]/", .invalidIPv6Address("fe80::1%25eth:0")),
        ("ws://[ ::1]/", .invalidIPv6Address(" ::1")),
        ("ws://[::1]x/", .invalidHost("[::1]x")),
        ("ws://[::1]]/", .invalidHost("[::1]]")),
        ("ws://::1/", .invalidHost("::1")),
        ("ws://2001:db8::1/", .invalidHost("2001:db8::1")),
        ("ws://host:80:81/", .invalidHost("host:80:81")),
        ("ws://ho st/", .invalidHost("ho st")),
        ("ws://ho\tst/", .invalidHost("ho\tst")),
        ("ws://host\u{0}/", .invalidHost("host\u{0}")),
        ("ws://ho[st/", .invalidHost("ho[st")),
        ("ws://bücher.de/", .invalidHost("bücher.de")),
        ("ws://ho%20st/", .invalidHost("ho%20st")),
        ("ws://ho%0d%0ast/", .invalidHost("ho%0d%0ast")),
        ("ws://ho%zzst/", .invalidPercentEncoding),
        ("ws://host%4/", .invalidPercentEncoding),
        ("ws://ho%ffst/", .invalidUTF8),
        ("ws://256.1.1.1/", .invalidIPv4Address("256.1.1.1")),
        ("ws://127.1/", .invalidIPv4Address("127.1")),
        ("ws://010.0.0.1/", .invalidIPv4Address("010.0.0.1")),
        ("ws://1.2.3.4.5/", .invalidIPv4Address("1.2.3.4.5")),
        ("ws://127.0.0.1./", .invalidIPv4Address("127.0.0.1.")),
        ("ws://0x7f000001/", .invalidIPv4Address("0x7f000001")),
        ("ws://0X7F.1/", .invalidIPv4Address("0X7F.1")),
        ("ws://2130706433/", .invalidIPv4Address("2130706433")),
        ("ws://example.123/", .invalidIPv4Address("example.123")),
        ("ws://host/#frag", .fragmentNotAllowed),
        ("ws://host#frag", .fragmentNotAllowed),
        ("ws://host/chat#", .fragmentNotAllowed),
        ("ws://host?x#y", .fragmentNotAllowed),
        ("ws://user%zz@host/", .invalidPercentEncoding),
        ("ws://user:pass%@host/", .invalidPercentEncoding),
        ("ws://user:pass%4@host/", .invalidPercentEncoding),
        ("ws://user%ff@host/", .invalidUTF8),
        ("ws://user:%C3%28@host/", .invalidUTF8),
        ("ws://us er@host/", .invalidUserInfo),
        ("ws://user:pa\tss@host/", .invalidUserInfo),
        ("ws://user:pa\u{7F}ss@host/", .invalidUserInfo),
        ("ws://us[er@host/", .invalidUserInfo),
        ("ws://us\"er@host/", .invalidUserInfo),
        ("ws://user\u{A0}@host/", .invalidUserInfo),
        ("ws://user\u{85}@host/", .invalidUserInfo),
        ("ws://user\u{2028}@host/", .invalidUserInfo),
    ])
    func rejectsBad(input: String, expected: WebSocketURLError) {
        do {
            let url = try WebSocketURL(parsing: input)
            Issue.record("parsed \(String(reflecting: input)) as \(url.absoluteString), expected \(expected)")
        } catch {
            #expect(error == expected)
        }
    }

    @Test("user info errors carry no text from the URI")
    func userInfoErrorsDoNotLeak() {
        for input in ["ws://hunter2%zz@host/", "ws://u:hunter2%ff@host/", "ws://u:hunter 2@host/"] {
            do {
                _ = try WebSocketURL(parsing: input)
                Issue.record("parsed \(input)")
            } catch {
                #expect(!error.description.contains("hunter"))
            }
        }
    }

    @Test("error descriptions escape control characters")
    func errorDescriptions() {
        #expect(WebSocketURLError.invalidHost("a\nb").description == #"invalid host "a\nb""#)
        #expect(WebSocketURLError.portOutOfRange("0").description == #"port "0" is not in 1...65535"#)
    }

    @Test("Basic authorization (RFC 7617)", arguments: [
        (WebSocketURL(host: "h", user: "Aladdin", password: "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        // RFC 7617 §2.1: credentials are UTF-8.
        (WebSocketURL(host: "h", user: "test", password: "123£"), "Basic dGVzdDoxMjPCow=="),
        (WebSocketURL(host: "h", user: "user"), "Basic dXNlcjo="),
        (WebSocketURL(host: "h", user: "user", password: ""), "Basic dXNlcjo="),
        (WebSocketURL(host: "h", user: "", password: "pw"), "Basic OnB3"),
        (WebSocketURL(host: "h"), nil),
        (WebSocketURL(host: "h", password: "pw"), nil),
        (WebSocketURL(host: "h", user: "a:b", password: "c"), nil),
    ] as [(WebSocketURL, String?)])
    func basicAuthorization(url: WebSocketURL, expected: String?) {
        #expect(url.basicAuthorization == expected)
    }

    @Test("Basic authorization from parsed, percent-decoded credentials")
    func basicAuthorizationParsed() throws {
        let url = try WebSocketURL(parsing: "wss://Aladdin:open%20sesame@example.com/")
        #expect(url.basicAuthorization == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(try WebSocketURL(parsing: "ws://host/").basicAuthorization == nil)
        #expect(try WebSocketURL(parsing: "ws://a%3Ab:c@host/").basicAuthorization == nil)
    }

    @Test("IPv6 syntax checker against the RFC 3986 grammar's shapes")
    func ipv6Shapes() {
        let valid = ["::", "::1", "1::", "1::1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
                     "1::3:4:5:6:7:8", "ffff:FFFF::0:00:000:0000", "::1.2.3.4", "::ffff:1.2.3.4",
                     "1:2:3:4:5:6:1.2.3.4", "1::5:6:1.2.3.4", "fe80::"]
        let invalid = ["", ":", ":1", "1:", "1:2:3:4:5:6:7:8:9", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8::",
                       "1::2::3", ":::", "::::", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4:1", "::1.2.3.4.5",
                       "::0x1", "g::", "12345::", "::1 ", "1.2.3.4", "::1.2.3.04", "1::2:3:4:5:6:7:8"]
        for s in valid { #expect(URISyntax.isIPv6Address(Array(s.utf8)[...]), "\(s)") }
        for s in invalid { #expect(!URISyntax.isIPv6Address(Array(s.utf8)[...]), "\(s)") }
    }

    /// Random strings built from URI-ish pieces: parsing must never trap, and whatever parses must satisfy
    /// the documented invariants and round-trip through `absoluteString`.
    @Test("random inputs never trap, and parsed values round-trip")
    func fuzz() throws {
        let pieces = ["ws", "wss", "WS", "http", ":", "/", "//", "ws://", "wss://", "[", "]", "@", "%", "%2", "%25",
                      "%41", "%ff", "%C3%A9", "#", "?", ".", "0", "1", "255", "256", "65535", "65536", "99999999999",
                      "a", "Z", "x", " ", "\t", "\r\n", "\u{0}", "é", "ü", "::", "ffff", "0x", "\u{A0}", "😀", "host",
                      "example.com", "1.2.3.4", "::1", "fe80::1%25eth0", "user:pass@", "-", "_", "~", "!", "'",
                      "\\", "\"", "{", "}"]
        var rng = Connection.SeededGenerator(seed: 6455)
        var parsed = 0
        for n in 0..<20_000 {
            var s = n % 2 == 0 ? (n % 4 == 0 ? "ws://" : "wss://") : ""
            for _ in 0..<Int.random(in: 0...10, using: &rng) {
                s += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            }
            guard let url = try? WebSocketURL(parsing: s) else { continue }
            parsed += 1
            #expect(!url.host.isEmpty, "\(s)")
            #expect(url.port > 0, "\(s)")
            #expect(url.resource.hasPrefix("/"), "\(s)")
            #expect(url.resource.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }, "\(s)")
            #expect(url.hostHeaderValue.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(s)")
            let again = try WebSocketURL(parsing: url.absoluteString)
            #expect(again == url, "\(s)")
            #expect(again.absoluteString == url.absoluteString, "\(s)")
        }
        // The corpus must exercise the success path too, or the round-trip checks above prove nothing.
        #expect(parsed > 1_000)
    }
}
