// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketTransport

@Suite struct ProxySelectionRules {
    static func proxy(_ environment: [String: String], _ host: String, _ port: UInt16 = 443, secure: Bool = true)
        throws(ProxyError) -> String?
    {
        try ProxySelection(environment: environment).proxy(forHost: host, port: port, secure: secure)?.description
    }

    @Test("The variables in order, lower case first; upper-case HTTP_PROXY ignored")
    func order() throws {
        let all: [String: String] = [
            "wss_proxy": "http://wss-lower", "WSS_PROXY": "http://wss-upper", "https_proxy": "http://https-lower",
            "HTTPS_PROXY": "http://https-upper", "ws_proxy": "http://ws-lower", "WS_PROXY": "http://ws-upper",
            "http_proxy": "http://http-lower", "HTTP_PROXY": "http://http-upper", "all_proxy": "socks5h://all-lower",
            "ALL_PROXY": "socks5h://all-upper",
        ]
        var environment = all
        var secure: [String] = []
        var plain: [String] = []
        for name in ["wss_proxy", "WSS_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "-"] {
            secure.append(try Self.proxy(environment, "example.com") ?? "none")
            environment[name] = nil
        }
        environment = all
        for name in ["ws_proxy", "WS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY", "-"] {
            plain.append(try Self.proxy(environment, "example.com", 80, secure: false) ?? "none")
            environment[name] = nil
        }
        #expect(secure == ["http://wss-lower:80", "http://wss-upper:80", "http://https-lower:80", "http://https-upper:80",
                           "socks5h://all-lower:1080", "socks5h://all-upper:1080", "none"])
        #expect(plain == ["http://ws-lower:80", "http://ws-upper:80", "http://http-lower:80", "socks5h://all-lower:1080",
                          "socks5h://all-upper:1080", "none"])
        // httpoxy: HTTP_PROXY alone is never used.
        #expect(try Self.proxy(["HTTP_PROXY": "http://attacker"], "example.com", 80, secure: false) == nil)
        // https_proxy is not for ws://, http_proxy not for wss://.
        #expect(try Self.proxy(["https_proxy": "http://p"], "example.com", 80, secure: false) == nil)
        #expect(try Self.proxy(["http_proxy": "http://p"], "example.com") == nil)
        // An empty variable is not set.
        #expect(try Self.proxy(["wss_proxy": "", "https_proxy": "http://p"], "example.com") == "http://p:80")
        #expect(try Self.proxy([:], "example.com") == nil)
    }

    @Test("A bad proxy variable is an error naming it, not a direct connection")
    func badVariable() {
        do {
            _ = try Self.proxy(["https_proxy": "socks4://p"], "example.com")
            Issue.record("no error")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(error.reason.hasPrefix("https_proxy: "))
        }
    }

    @Test("Loopback is never proxied", arguments: [
        "localhost", "LOCALHOST", "localhost.", "app.localhost", "127.0.0.1", "127.255.0.9", "::1", "[::1]",
        "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
    ])
    func loopback(host: String) throws {
        #expect(try Self.proxy(["wss_proxy": "http://p", "all_proxy": "http://p"], host) == nil)
    }

    @Test("Not loopback", arguments: ["localhost.example", "127.example", "128.0.0.1", "::2", "mylocalhost"])
    func notLoopback(host: String) throws {
        #expect(try Self.proxy(["wss_proxy": "http://p"], host) == "http://p:80")
    }

    struct Rule: Sendable, CustomStringConvertible {
        var noProxy: String
        var direct: [String]
        var proxied: [String]
        var description: String { noProxy }
    }

    /// Hosts are `host` or `host@port` (port 443 otherwise).
    @Test("no_proxy", arguments: [
        Rule(noProxy: "*", direct: ["example.com", "10.1.2.3", "::2"], proxied: []),
        Rule(noProxy: "example.com", direct: ["example.com", "a.example.com", "A.B.EXAMPLE.COM", "example.com."],
             proxied: ["badexample.com", "example.org", "com"]),
        Rule(noProxy: ".example.com", direct: ["example.com", "a.example.com"], proxied: ["xexample.com"]),
        Rule(noProxy: "*.example.com", direct: ["example.com", "a.example.com"], proxied: ["xexample.com"]),
        Rule(noProxy: "other.org, example.com ,third", direct: ["example.com", "other.org", "x.third"], proxied: ["example.net"]),
        Rule(noProxy: "other.org example.com", direct: ["example.com"], proxied: ["example.net"]),
        Rule(noProxy: "192.0.2.7", direct: ["192.0.2.7", "::ffff:192.0.2.7"], proxied: ["192.0.2.8", "192.0.2.70"]),
        Rule(noProxy: "10.0.0.0/8", direct: ["10.0.0.1", "10.255.255.255"], proxied: ["11.0.0.1", "9.255.255.255", "ten.example"]),
        Rule(noProxy: "192.168.1.128/25", direct: ["192.168.1.128", "192.168.1.255"], proxied: ["192.168.1.127"]),
        Rule(noProxy: "0.0.0.0/0", direct: ["8.8.8.8"], proxied: ["2001:db8::1", "example.com"]),
        Rule(noProxy: "fd00::/8", direct: ["fd12::1", "[fdff::]"], proxied: ["fe00::1", "10.0.0.1"]),
        Rule(noProxy: "[2001:db8::]/32", direct: ["2001:db8:ffff::1"], proxied: ["2001:db9::1"]),
        Rule(noProxy: "2001:db8::1", direct: ["2001:0db8:0:0::1", "[2001:db8::1]"], proxied: ["2001:db8::2"]),
        Rule(noProxy: "::ffff:10.0.0.0/104", direct: ["10.9.9.9"], proxied: ["11.0.0.0"]),
        Rule(noProxy: "example.com:8080", direct: ["example.com@8080", "a.example.com@8080"], proxied: ["example.com", "example.com@80"]),
        Rule(noProxy: "10.0.0.0/8:9001", direct: ["10.0.0.1@9001"], proxied: ["10.0.0.1"]),
        Rule(noProxy: "[2001:db8::1]:8443", direct: ["2001:db8::1@8443"], proxied: ["2001:db8::1"]),
        Rule(noProxy: "[2001:db8::]/32:8443", direct: ["2001:db8::5@8443"], proxied: ["2001:db8::5"]),
        Rule(noProxy: "*:8080", direct: ["anything@8080"], proxied: ["anything"]),
        Rule(noProxy: "10.0.0.0/33, 10.0.0.0/x, [bad, example.com:notaport, ,,", direct: [], proxied: ["10.0.0.1", "example.com"]),
    ])
    func noProxy(_ rule: Rule) throws {
        func check(_ entry: String, environment: [String: String]) throws -> Bool {
            let parts = entry.split(separator: "@")
            let port = parts.count == 2 ? UInt16(parts[1])! : 443
            return try Self.proxy(environment, String(parts[0]), port) == nil
        }
        for name in ["no_proxy", "NO_PROXY"] {
            let environment = ["wss_proxy": "http://p", name: rule.noProxy]
            for host in rule.direct { #expect(try check(host, environment: environment), "\(host) direct (\(name))") }
            for host in rule.proxied { #expect(try !check(host, environment: environment), "\(host) proxied (\(name))") }
        }
    }

    @Test("no_proxy before NO_PROXY; an empty no_proxy is not set")
    func noProxyOrder() throws {
        #expect(try Self.proxy(["wss_proxy": "http://p", "no_proxy": "a.example", "NO_PROXY": "b.example"], "b.example") != nil)
        #expect(try Self.proxy(["wss_proxy": "http://p", "no_proxy": "a.example", "NO_PROXY": "b.example"], "a.example") == nil)
        #expect(try Self.proxy(["wss_proxy": "http://p", "no_proxy": "", "NO_PROXY": "b.example"], "b.example") == nil)
    }

    @Test("The process environment: a thin wrapper over getenv")
    func processEnvironment() {
        let selection = ProxySelection.processEnvironment()
        #expect(Set(selection.environment.keys).isSubset(of: Set(ProxySelection.secureNames + ProxySelection.plainNames
                                                                  + ProxySelection.noProxyNames)))
    }
}
