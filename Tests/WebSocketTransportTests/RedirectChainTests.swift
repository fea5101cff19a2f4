// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketTransport

@Suite("RedirectChain: the rules both client adapters follow redirects by")
struct RedirectChainTests {
    static func redirect(_ from: String, to location: String, status: Int = 302) throws -> Connection.HandshakeFailure {
        let response = Connection.HTTPResponse(
            head: Connection.HTTPResponseHead(version: Connection.HTTPVersion(major: 1, minor: 1), status: status, reason: "",
                                              headers: ["Location": location]),
            body: [])
        return .redirected(try #require(try Connection.Redirect.make(response, from: from)))
    }

    @Test("wss to ws is refused, whatever the limit")
    func downgrade() throws {
        var chain = RedirectChain(first: try WebSocketURL(parsing: "wss://a.example/"), limit: 10)
        let request = Connection.ClientOptions(url: try WebSocketURL(parsing: "wss://a.example/"))
        #expect(throws: WebSocketError.self) {
            _ = try chain.next(after: try Self.redirect("wss://a.example/", to: "ws://a.example/"), request: request,
                               endpoint: WebSocketEndpoint(url: request.url))
        }
        let failure = try Self.redirect("wss://a.example/", to: "http://a.example/")
        do throws(WebSocketError) {
            _ = try chain.next(after: failure, request: request, endpoint: WebSocketEndpoint(url: request.url))
            Issue.record("followed a downgrade")
        } catch {
            guard case .redirectRefused(let redirect, _) = error else { throw error }
            #expect(redirect.isDowngrade)
        }
    }

    @Test("ws to wss is followed; a failure that is no redirect, or a limit of 0, is reported as it is")
    func upgradeAndOff() throws {
        let request = Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://a.example/"))
        var chain = RedirectChain(first: request.url, limit: 10)
        let next = try #require(try chain.next(after: try Self.redirect("ws://a.example/", to: "https://a.example/s"),
                                               request: request, endpoint: WebSocketEndpoint(url: request.url)))
        #expect(next.request.url.description == "wss://a.example/s")
        #expect(next.endpoint == WebSocketEndpoint(url: next.request.url))
        #expect(chain.hops.map(\.description) == ["ws://a.example/", "wss://a.example/s"])
        #expect(try chain.next(after: .timedOut, request: request, endpoint: WebSocketEndpoint(url: request.url)) == nil)
        var off = RedirectChain(first: request.url, limit: 0)
        #expect(try off.next(after: try Self.redirect("ws://a.example/", to: "/b"), request: request,
                             endpoint: WebSocketEndpoint(url: request.url)) == nil)
    }

    @Test("A redirect from a Unix socket is refused")
    func unixSocket() throws {
        let endpoint = try WebSocketEndpoint(parsing: "ws+unix:///tmp/app.sock:/chat")
        let request = Connection.ClientOptions(url: endpoint.url)
        var chain = RedirectChain(first: request.url, limit: 10)
        #expect(throws: WebSocketError.self) {
            _ = try chain.next(after: try Self.redirect("ws://localhost/chat", to: "/elsewhere"), request: request,
                               endpoint: endpoint)
        }
    }

    @Test("following(_:): same host keeps credentials; another host drops Authorization, Cookie, cookies and user info")
    func following() throws {
        var options = Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://u:p@a.example/x"),
                                               cookies: [Connection.Cookie(name: "s", value: "1")],
                                               headers: ["Authorization": "Bearer t", "Cookie": "k=v", "X-Other": "1"])
        options.origin = "https://a.example"
        let same = options.following(try #require(try Self.redirect("ws://u:p@a.example/x", to: "/y").redirected))
        #expect(same.url.user == "u")
        #expect(same.url.password == "p")
        #expect(same.headers["Authorization"] == "Bearer t")
        #expect(same.cookies.count == 1)
        let other = options.following(try #require(try Self.redirect("ws://u:p@a.example/x", to: "ws://b.example/y").redirected))
        #expect(other.url.user == nil)
        #expect(other.url.password == nil)
        #expect(other.headers["Authorization"] == nil)
        #expect(other.headers["Cookie"] == nil)
        #expect(other.headers["X-Other"] == "1")
        #expect(other.cookies.isEmpty)
        #expect(other.origin == "https://a.example")
        // A Location's own credentials are the only ones sent to its host.
        let own = options.following(try #require(try Self.redirect("ws://u:p@a.example/x", to: "ws://v:q@a.example/z").redirected))
        #expect(own.url.user == "v")
    }
}

extension Connection.Redirect {
    static func make(_ response: Connection.HTTPResponse, from: String) throws -> Connection.Redirect? {
        Connection.Redirect(response: response, from: try WebSocketURL(parsing: from))
    }
}
