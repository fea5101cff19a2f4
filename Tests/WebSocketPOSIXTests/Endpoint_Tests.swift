// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

/// `ws://` and `ws+unix://` endpoints, and socket addresses.
@Suite("Endpoints: ws:// over TCP, ws+unix://PATH:RESOURCE over Unix sockets")
struct EndpointTests {
    @Test("ws:// URLs are the core's WebSocketURL, over TCP")
    func tcp() throws {
        let endpoint = try WebSocketEndpoint(parsing: "ws://[::1]:9001/chat?x=1")
        #expect(endpoint.unixSocketPath == nil)
        #expect(endpoint.url.host == "::1")
        #expect(endpoint.url.port == 9001)
        #expect(endpoint.url.resource == "/chat?x=1")
        #expect(endpoint.description == "ws://[::1]:9001/chat?x=1")
    }

    @Test("ws+unix: the path up to the first colon, then the resource; Host is localhost", arguments: [
        ("ws+unix:///tmp/ws.sock:/chat?room=1", "/tmp/ws.sock", "/chat?room=1"),
        ("ws+unix:///tmp/ws.sock", "/tmp/ws.sock", "/"),
        ("WS+UNIX:///run/app.sock:/", "/run/app.sock", "/"),
        ("ws+unix://relative.sock:/a b", "relative.sock", "/a%20b"),
        (" ws+unix:///tmp/s.sock:/x \n", "/tmp/s.sock", "/x"),
    ])
    func unix(input: String, path: String, resource: String) throws {
        let endpoint = try WebSocketEndpoint(parsing: input)
        #expect(endpoint.unixSocketPath == path)
        #expect(endpoint.url.resource == resource)
        #expect(endpoint.url.hostHeaderValue == "localhost")
        #expect(try WebSocketEndpoint(parsing: endpoint.description) == endpoint)
    }

    @Test("Unusable ws+unix URLs", arguments: [
        ("ws+unix://", WebSocketError.invalidURL("empty Unix socket path")),
        ("ws+unix:///tmp/s:chat", .invalidURL("the resource after the socket path must start with /")),
        ("ws+unix:/tmp/s", .invalidURL("expected ws+unix://PATH[:RESOURCE]")),
        ("ws+unix:///tmp/s:/#frag", .invalidURL("WebSocket URIs may not have a fragment (#)")),
    ])
    func invalid(input: String, expected: WebSocketError) {
        #expect(error { try WebSocketEndpoint(parsing: input) } == expected)
    }

    @Test("wss+unix: TLS over a Unix domain socket, refused without a TLS layer")
    func secureUnix() throws {
        let endpoint = try WebSocketEndpoint(parsing: "wss+unix:///tmp/s:/chat")
        #expect(endpoint.url.isSecure)
        #expect(endpoint.unixSocketPath == "/tmp/s")
        #expect(endpoint.description == "wss+unix:///tmp/s:/chat")
        #expect(error { try BlockingWebSocket.connect(to: endpoint) } == .tlsUnavailable)
    }

    @Test("A Unix socket path longer than sun_path is refused")
    func pathTooLong() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: Errno.nameTooLong) { try SocketAddress.unix(path: path) }
        let failure = error { try BlockingWebSocket.connect(to: .unixSocket(path: path)) }
        guard case .invalidArgument? = failure else {
            Issue.record("expected invalidArgument, got \(String(describing: failure))")
            return
        }
    }

    @Test("Socket addresses describe themselves")
    func addresses() throws {
        guard case .success(let v4) = AddressResolution.resolve(host: "127.0.0.1", port: 80),
              case .success(let v6) = AddressResolution.resolve(host: "::1", port: 443) else {
            Issue.record("numeric hosts did not resolve")
            return
        }
        #expect(v4.first?.description == "127.0.0.1:80")
        #expect(v6.first?.description == "[::1]:443")
        let unix = try SocketAddress.unix(path: "/tmp/a.sock")
        #expect(unix.family == .unix)
        #expect(unix.unixPath == "/tmp/a.sock")
        #expect(unix.port == nil)
        #expect(unix.description == "unix:/tmp/a.sock")
    }

    @Test("Poll timeouts round up to whole milliseconds and stay in range")
    func pollMilliseconds() {
        let start = Connection.Instant(sinceOrigin: .seconds(100))
        #expect(Poller.milliseconds(until: nil, now: start) == -1)
        #expect(Poller.milliseconds(until: start, now: start) == 0)
        #expect(Poller.milliseconds(until: start + .nanoseconds(1), now: start) == 1)
        #expect(Poller.milliseconds(until: start + .milliseconds(1500), now: start) == 1500)
        #expect(Poller.milliseconds(until: start + .seconds(1 << 40), now: start) == Int32.max)
        #expect(Poller.milliseconds(until: start, now: start + .seconds(1)) == 0)
        // Against the same figure worked out through Duration's own arithmetic: the rounded-up
        // milliseconds, clamped, on both sides of every 64-bit boundary of the attosecond count and
        // from instants before the origin.
        func expected(_ deadline: Connection.Instant, _ now: Connection.Instant) -> Int32 {
            let remaining = deadline.sinceOrigin - now.sinceOrigin
            guard remaining > .zero else { return 0 }
            let (seconds, attoseconds) = remaining.components
            guard seconds <= Int64(Int32.max) / 1000 + 1 else { return Int32.max }
            let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            return Int32(clamping: milliseconds)
        }
        var random = SystemRandomNumberGenerator()
        var offsets: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(-1), .seconds(18), .seconds(19), .seconds(-19),
                                   .milliseconds(18_446_744), .milliseconds(18_446_745), .seconds(2_147_483), .seconds(2_147_484),
                                   .milliseconds(Int64(Int32.max)), .milliseconds(Int64(Int32.max) + 1),
                                   .seconds(1) / 1_000_000_000_000_000, .seconds(19_342_813), .seconds(19_342_814)]
        for _ in 0..<2_000 {
            offsets.append(.milliseconds(Int64.random(in: -5_000...40_000_000, using: &random))
                           + .nanoseconds(Int64.random(in: -999_999...999_999, using: &random)))
            offsets.append(.nanoseconds(Int64.random(in: Int64.min...Int64.max, using: &random)))
        }
        for origin in [Connection.Instant(sinceOrigin: .zero), start, Connection.Instant(sinceOrigin: .seconds(-7)),
                       Connection.Instant(sinceOrigin: .seconds(1_733_580_000) + .nanoseconds(999_999_999))] {
            for offset in offsets {
                let deadline = origin + offset
                #expect(Poller.milliseconds(until: deadline, now: origin) == expected(deadline, origin), "\(offset) from \(origin)")
            }
        }
        // Far apart, past what 64 bits of seconds hold: still Int32.max, never a trap.
        let farPast = Connection.Instant(sinceOrigin: .seconds(Int64.min)), farFuture = Connection.Instant(sinceOrigin: .seconds(Int64.max))
        #expect(Poller.milliseconds(until: farFuture, now: farPast) == Int32.max)
        #expect(Poller.milliseconds(until: farPast, now: farFuture) == 0)
    }
}
