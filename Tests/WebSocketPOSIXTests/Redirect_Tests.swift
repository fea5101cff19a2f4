// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore
@testable import WebSocketPOSIX
@testable import WebSocketTransport

/// Redirects followed by the blocking client: real servers on loopback answering 3xx with a
/// `Location`, and the rules of issue 15 (hop limit, 0 turns it off, credentials per host).
@Suite("Redirects: the blocking client follows 301-308 within its limit", .onTestThreads)
struct Redirect_Tests {
    @Test("A 302 to another server: the connection opens there, at the new resource", arguments: [301, 302, 303, 307, 308])
    func followed(status: Int) throws {
        let seen = Mailbox<Connection.HandshakeRequest>()
        try withServer(handshake: { request in seen.put(request); return .accept() }) { target in
            let landed = target.url("/landed?x=1")
            try withServer(handshake: { _ in .reject(status: status, headers: ["Location": landed]) }) { first in
                let socket = try BlockingWebSocket.connect(to: first.url("/start"), options: testOptions())
                let request = try #require(seen.take())
                #expect(request.head.target == "/landed?x=1")
                try socket.send(text: "after the redirect")
                #expect(try socket.receive() == .text("after the redirect"))
                try socket.close()
            }
        }
    }

    @Test("A relative Location resolves against the request's URL, same host: the credentials stay")
    func relativeSameHost() throws {
        let seen = Mailbox<Connection.HandshakeRequest>()
        try withServer(handshake: { request in
            if request.head.target == "/app/start" { return .reject(status: 307, headers: ["Location": "next?y=2"]) }
            seen.put(request)
            return .accept()
        }) { server in
            let url = "ws://user:pw@127.0.0.1:\(server.port)/app/start"
            let socket = try BlockingWebSocket.connect(to: url, options: testOptions())
            let request = try #require(seen.take())
            #expect(request.head.target == "/app/next?y=2")
            #expect(request.head.headers["Authorization"] == "Basic dXNlcjpwdw==")
            try socket.close()
        }
    }

    @Test("To another host, Authorization, Cookie and the URL's credentials are not sent")
    func credentialsDroppedForAnotherHost() throws {
        let seen = Mailbox<Connection.HandshakeRequest>()
        try withServer(handshake: { request in seen.put(request); return .accept() }) { target in
            // 127.0.0.1 and localhost are different hosts to the client, whatever they resolve to.
            let landed = "ws://localhost:\(target.port)/other"
            try withServer(handshake: { _ in .reject(status: 302, headers: ["Location": landed]) }) { first in
                let url = "ws://user:pw@127.0.0.1:\(first.port)/start"
                var options = Connection.ClientOptions(url: try WebSocketURL(parsing: url),
                                                       cookies: [Connection.Cookie(name: "session", value: "secret")],
                                                       headers: ["Authorization": "Bearer token", "X-Kept": "1"])
                options.origin = "https://app.example"
                let socket = try BlockingWebSocket.connect(options, options: testOptions())
                let request = try #require(seen.take())
                #expect(request.head.headers["Authorization"] == nil)
                #expect(request.head.headers["Cookie"] == nil)
                #expect(request.head.headers["X-Kept"] == "1")
                #expect(request.head.headers["Host"]?.hasPrefix("localhost:") == true)
                try socket.close()
            }
        }
    }

    @Test("A loop ends at maxRedirects with every hop listed")
    func loop() throws {
        try withServer(handshake: { _ in .reject(status: 307, headers: ["Location": "/again"]) }) { server in
            var options = testOptions()
            options.maxRedirects = 3
            let failure = error { try BlockingWebSocket.connect(to: server.url("/start"), options: options) }
            guard case .tooManyRedirects(let hops)? = failure else {
                Issue.record("expected tooManyRedirects, got \(String(describing: failure))")
                return
            }
            #expect(hops.count == 5)   // the first request, three followed, the one refused
            #expect(hops.first?.resource == "/start")
            #expect(hops.dropFirst().allSatisfy { $0.resource == "/again" })
            #expect(failure?.description.hasPrefix("too many redirects (4): ws://127.0.0.1:") == true)
        }
    }

    @Test("maxRedirects 0 reports the redirect as the handshake's failure")
    func off() throws {
        try withServer(handshake: { _ in .reject(status: 301, headers: ["Location": "wss://example.com/new"]) }) { server in
            var options = testOptions()
            options.maxRedirects = 0
            let failure = error { try BlockingWebSocket.connect(to: server.url("/old"), options: options) }
            guard case .handshakeFailed(let handshake)? = failure, let redirect = handshake.redirected else {
                Issue.record("expected a redirect, got \(String(describing: failure))")
                return
            }
            #expect(redirect.status == 301)
            #expect(redirect.target.description == "wss://example.com/new")
            #expect(handshake.response?.headers["Location"] == "wss://example.com/new")
        }
    }

    @Test("A 3xx without a usable Location is a refusal, not a redirect")
    func unusableLocation() throws {
        try withServer(handshake: { _ in .reject(status: 302, headers: ["Location": "ftp://example.com/"]) }) { server in
            let response = try #require(rejection { try BlockingWebSocket.connect(to: server.url(), options: testOptions()) })
            #expect(response.status == 302)
        }
    }
}
