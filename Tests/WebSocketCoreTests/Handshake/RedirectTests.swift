// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Redirects: which answers redirect, and where a Location leads (RFC 9110 §15.4, RFC 3986 §5)")
struct RedirectTests {
    static func response(_ status: Int, _ locations: [String]) -> Connection.HTTPResponse {
        Connection.HTTPResponse(head: Connection.HTTPResponseHead(version: Connection.HTTPVersion(major: 1, minor: 1), status: status,
                                                                  reason: "", headers: Connection.HTTPHeaders(locations.map { ("Location", $0) })),
                                body: [])
    }

    static let base = try! WebSocketURL(parsing: "wss://user:pw@example.com:8443/app/chat?room=1")

    @Test("Locations resolved against the request's URL", arguments: [
        ("ws://other.example/x", "ws://other.example/x"),
        ("http://other.example/x", "ws://other.example/x"),
        ("HTTPS://other.example:444/x?q", "wss://other.example:444/x?q"),
        ("//cdn.example/socket", "wss://cdn.example/socket"),
        ("/root?a=b", "wss://example.com:8443/root?a=b"),
        ("next", "wss://example.com:8443/app/next"),
        ("../up", "wss://example.com:8443/app/../up"),
        ("?room=2", "wss://example.com:8443/app/chat?room=2"),
        ("/with#fragment", "wss://example.com:8443/with"),
    ])
    func resolution(location: String, expected: String) throws {
        let redirect = try #require(Connection.Redirect(response: Self.response(302, [location]), from: Self.base))
        #expect(redirect.target.description == expected)
        // The Location's own credentials only: none here.
        #expect(redirect.target.user == nil)
    }

    @Test("No redirect: other statuses, no Location, two Locations, or one that is no ws/wss URL", arguments: [
        (302, [String]()), (302, ["/a", "/b"]), (302, ["ftp://example.com/"]), (302, ["mailto:a@example.com"]),
        (302, ["#only-a-fragment"]), (300, ["/a"]), (304, ["/a"]), (200, ["/a"]), (302, ["ws://bad host/"]),
    ])
    func notRedirects(status: Int, locations: [String]) {
        #expect(Connection.Redirect(response: Self.response(status, locations), from: Self.base) == nil)
    }

    @Test("Downgrade and host change are told apart")
    func properties() throws {
        let down = try #require(Connection.Redirect(response: Self.response(301, ["ws://example.com:8443/app"]), from: Self.base))
        #expect(down.isDowngrade)
        #expect(!down.changesHost)
        let up = try #require(Connection.Redirect(response: Self.response(308, ["wss://elsewhere.example/"]),
                                                  from: try WebSocketURL(parsing: "ws://example.com/")))
        #expect(!up.isDowngrade)
        #expect(up.changesHost)
        #expect(Connection.HandshakeFailure.redirected(up).description == "handshake redirected: HTTP 308 to wss://elsewhere.example/")
    }

    @Test("A client connection reports a 3xx with a Location as redirected, after reading its body")
    func reportedByTheConnection() throws {
        var client = try Connection(role: .client(Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://example.com/old"))))
        _ = client.takeOutput()
        client.receive(Array("HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\nContent-Length: 5\r\n\r\nmoved".utf8))
        var events: [Connection.Event] = []
        while let event = client.nextEvent() { events.append(event) }
        guard case .handshakeFailed(let failure)? = events.first, let redirect = failure.redirected else {
            Issue.record("expected a redirect: \(events)")
            return
        }
        #expect(redirect.target.description == "ws://example.com/new")
        #expect(redirect.response.body == Array("moved".utf8))
        #expect(failure.response == redirect.response)
        #expect(failure.rejected == nil)
    }
}
