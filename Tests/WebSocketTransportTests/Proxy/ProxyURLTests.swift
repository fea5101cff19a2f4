// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketTransport

@Suite struct ProxyURLParsing {
    struct Case: Sendable, CustomStringConvertible {
        var text: String
        var scheme: ProxyURL.Scheme
        var host: String
        var port: UInt16
        var user: String?
        var password: String?
        var description: String { text }
    }

    @Test("Valid proxy URLs", arguments: [
        Case(text: "http://proxy.example", scheme: .http, host: "proxy.example", port: 80),
        Case(text: "http://proxy.example:3128/", scheme: .http, host: "proxy.example", port: 3128),
        Case(text: "HTTP://Proxy.Example:8080", scheme: .http, host: "Proxy.Example", port: 8080),
        Case(text: "https://proxy.example", scheme: .https, host: "proxy.example", port: 443),
        Case(text: "socks5://127.0.0.1", scheme: .socks5, host: "127.0.0.1", port: 1080),
        Case(text: "socks5h://proxy:9050", scheme: .socks5h, host: "proxy", port: 9050),
        Case(text: "proxy.example:3128", scheme: .http, host: "proxy.example", port: 3128),
        Case(text: "proxy.example", scheme: .http, host: "proxy.example", port: 80),
        Case(text: "http://[::1]:8080", scheme: .http, host: "::1", port: 8080),
        Case(text: "socks5://[2001:db8::1]", scheme: .socks5, host: "2001:db8::1", port: 1080),
        Case(text: "http://[fe80::1%25eth0]:3128", scheme: .http, host: "fe80::1%eth0", port: 3128),
        Case(text: "http://proxy:", scheme: .http, host: "proxy", port: 80),
        Case(text: "http://alice:secret@proxy:3128", scheme: .http, host: "proxy", port: 3128, user: "alice", password: "secret"),
        Case(text: "http://al%69ce:s%40c%3Aret@proxy", scheme: .http, host: "proxy", port: 80, user: "alice", password: "s@c:ret"),
        Case(text: "http://user@proxy", scheme: .http, host: "proxy", port: 80, user: "user", password: ""),
        Case(text: "socks5h://u:p@w@proxy", scheme: .socks5h, host: "proxy", port: 1080, user: "u", password: "p@w"),
        Case(text: "http://%C3%A9:%E2%82%AC@[::1]", scheme: .http, host: "::1", port: 80, user: "\u{E9}", password: "\u{20AC}"),
        Case(text: "user:pw@proxy:81", scheme: .http, host: "proxy", port: 81, user: "user", password: "pw"),
        Case(text: "http://p:65535", scheme: .http, host: "p", port: 65535),
    ])
    func valid(_ expected: Case) throws {
        let url = try ProxyURL(parsing: expected.text)
        #expect(url.scheme == expected.scheme)
        #expect(url.host == expected.host)
        #expect(url.port == expected.port)
        #expect(url.credentials?.user == expected.user)
        #expect(url.credentials?.password == expected.password)
    }

    @Test("Everything else is a typed error", arguments: [
        "", "socks4://proxy", "ftp://proxy", "://proxy", "http://", "http://:8080", "http://proxy:0", "http://proxy:65536",
        "http://proxy:80a", "http://proxy:-1", "http://proxy/path", "http://proxy?q", "http://proxy#f", "http://pro xy",
        "http://proxy\r\n", "http://pr\u{F6}xy", "http://[::1", "http://[::1]x", "http://[1::2::3]", "http://[192.0.2.1]",
        "http://[fe80::1%eth0]", "http://[fe80::1%25]", "http://u:p%zz@proxy", "http://u%:p@proxy", "http://%FF@proxy",
        "http://a@b@", "http://proxy:123456",
    ])
    func invalid(_ text: String) {
        do {
            let url = try ProxyURL(parsing: text)
            Issue.record("parsed \(String(reflecting: text)) as \(url)")
        } catch {
            #expect(error.code == .invalidURL)
        }
    }

    @Test("The credentials never appear in descriptions, dumps or errors")
    func credentialsHidden() throws {
        let url = try ProxyURL(parsing: "http://alice:hunter2@proxy.example:3128")
        #expect(url.description == "http://***@proxy.example:3128")
        var dumped = ""
        dump(url, to: &dumped)
        dump(url.credentials, to: &dumped)
        dumped += "\(url.credentials!) \(String(reflecting: url)) \(String(reflecting: url.credentials!))"
        #expect(!dumped.contains("alice") && !dumped.contains("hunter2"))
        do {
            _ = try ProxyURL(parsing: "http://alice:hunter2@proxy.example:99999")
        } catch {
            #expect(!error.description.contains("alice") && !error.description.contains("hunter2"))
        }
        do {
            _ = try ProxyURL(parsing: "http://alice:hun%zzter2@proxy.example")
        } catch {
            #expect(!error.description.contains("hun"))
        }
    }

    @Test func descriptions() throws {
        #expect(try ProxyURL(parsing: "proxy").description == "http://proxy:80")
        #expect(try ProxyURL(parsing: "socks5h://[::1]").description == "socks5h://[::1]:1080")
        #expect(try ProxyURL(parsing: "https://[fe80::1%25eth0]:1").description == "https://[fe80::1%25eth0]:1")
        #expect([ProxyURL.Scheme.http, .https, .socks5, .socks5h].map(\.description) == ["http", "https", "socks5", "socks5h"])
        #expect([ProxyURL.Scheme.http, .https, .socks5, .socks5h].map(\.defaultPort) == [80, 443, 1080, 1080])
        #expect(!ProxyURL.Scheme.socks5.resolvesTargetName && ProxyURL.Scheme.socks5h.resolvesTargetName)
        #expect(ProxyURL.Scheme.https.isHTTP && !ProxyURL.Scheme.socks5h.isHTTP)
    }

    @Test("Errors: descriptions, and the proxy case of WebSocketError")
    func errorDescriptions() {
        let error = ProxyError(.refused, status: 403)
        #expect(WebSocketError.proxy(error).description == "proxy refused the tunnel: HTTP 403")
        #expect(ProxyError(.invalidURL, reason: "no host").description == "invalid proxy URL (no host)")
        #expect(ProxyError.Code.noAcceptableMethods.description == "noAcceptableMethods")
    }
}
