// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

/// A TLS factory that records the name each client session is made for, and makes toy sessions.
struct RecordingTLSFactory: TLSLayerFactory {
    let names = Locked<[String]>([])

    func makeClientLayer(serverName: String) throws(WebSocketError) -> any TransportLayer {
        names.withLock { $0.append(serverName) }
        return ToyLayer()
    }

    func makeServerLayer() throws(WebSocketError) -> any TransportLayer { ToyLayer() }
}

@Suite("Client plans: where the socket connects and which layers sit under the connection")
struct ClientPlanTests {
    static func plan(_ url: String, proxy: ProxySetting, tls: (any TLSLayerFactory)? = nil,
                     endpoint: WebSocketEndpoint? = nil) throws -> ClientPlan {
        let target = try WebSocketEndpoint(parsing: url)
        var transport = TransportOptions()
        transport.proxy = proxy
        transport.tls = tls
        return try ConnectionPipeline.client(Connection.ClientOptions(url: target.url), via: endpoint ?? target,
                                             configuration: Connection.Configuration(), transport: transport)
    }

    static func firstOutput(_ plan: ClientPlan) -> String {
        var pipeline = plan.pipeline
        pipeline.update()
        return String(decoding: pipeline.takeSocketOutput(), as: UTF8.self)
    }

    @Test("Direct: the socket goes to the endpoint, and the first bytes are the opening handshake")
    func direct() throws {
        let plan = try Self.plan("ws://example.com:8080/chat", proxy: .direct)
        #expect(plan.socketTarget == .endpoint(try WebSocketEndpoint(parsing: "ws://example.com:8080/chat")))
        #expect(Self.firstOutput(plan).hasPrefix("GET /chat HTTP/1.1\r\n"))
    }

    @Test("An HTTP proxy: the socket goes to the proxy, and CONNECT comes first, with its credentials")
    func httpProxy() throws {
        let plan = try Self.plan("ws://example.com:8080/chat", proxy: try .url("http://u:p@proxy.test:3128"))
        #expect(plan.socketTarget == .host("proxy.test", 3128))
        let output = Self.firstOutput(plan)
        #expect(output.hasPrefix("CONNECT example.com:8080 HTTP/1.1\r\n"))
        #expect(output.contains("\r\nProxy-Authorization: Basic dTpw\r\n"))
        // The WebSocket request waits for the tunnel.
        #expect(!output.contains("GET /chat"))
    }

    @Test("wss through an https proxy: two TLS sessions, the proxy's name first, then the URL's host")
    func httpsProxy() throws {
        let tls = RecordingTLSFactory()
        let plan = try Self.plan("wss://[::1]:9443/", proxy: try .url("https://proxy.test"), tls: tls)
        #expect(plan.socketTarget == .host("proxy.test", 443))
        #expect(tls.names.withLock { $0 } == ["proxy.test", "::1"])
        // The toy TLS handshake to the proxy goes first; CONNECT waits for it.
        #expect(Self.firstOutput(plan) == "H")
    }

    @Test("An https proxy needs TLS even for ws://; wss never falls back to ws")
    func httpsProxyNeedsTLS() throws {
        #expect(throws: WebSocketError.tlsUnavailable) {
            try Self.plan("ws://example.com/", proxy: try .url("https://proxy.test"))
        }
        #expect(throws: WebSocketError.tlsUnavailable) {
            try Self.plan("wss://example.com/", proxy: try .url("http://proxy.test"))
        }
    }

    @Test("SOCKS5 with the name for the proxy (socks5h): the greeting comes first")
    func socks5h() throws {
        let plan = try Self.plan("ws://example.com/", proxy: try .url("socks5h://proxy.test:1080"))
        #expect(plan.socketTarget == .host("proxy.test", 1080))
        #expect(Array(Self.firstOutput(plan).utf8) == [0x05, 0x01, 0x00])
    }

    @Test("The environment's choice: the URL's scheme picks the variable, loopback and no_proxy go direct")
    func environment() throws {
        let selection = ProxySelection(environment: ["ws_proxy": "http://proxy.test:3128", "no_proxy": ".internal"])
        #expect(try Self.plan("ws://example.com/", proxy: .selection(selection)).socketTarget == .host("proxy.test", 3128))
        #expect(try Self.plan("ws://127.0.0.1:9001/", proxy: .selection(selection)).socketTarget
                    == .endpoint(try WebSocketEndpoint(parsing: "ws://127.0.0.1:9001/")))
        #expect(try Self.plan("ws://a.internal/", proxy: .selection(selection)).socketTarget
                    == .endpoint(try WebSocketEndpoint(parsing: "ws://a.internal/")))
        // wss reads wss_proxy/https_proxy/all_proxy, none of which is set: direct.
        let tls = RecordingTLSFactory()
        #expect(try Self.plan("wss://example.com/", proxy: .selection(selection), tls: tls).socketTarget
                    == .endpoint(try WebSocketEndpoint(parsing: "wss://example.com/")))
        // A bad proxy URL is an error, never a silent direct connection.
        let bad = ProxySelection(environment: ["ws_proxy": "ftp://proxy.test"])
        #expect(throws: WebSocketError.self) { try Self.plan("ws://example.com/", proxy: .selection(bad)) }
    }

    @Test("A Unix socket endpoint is never proxied")
    func unixSocket() throws {
        let endpoint = try WebSocketEndpoint(parsing: "ws+unix:///tmp/app.sock:/chat")
        let plan = try Self.plan("ws://localhost/chat", proxy: try .url("http://proxy.test:3128"), endpoint: endpoint)
        #expect(plan.socketTarget == .endpoint(endpoint))
        #expect(plan.isUnixSocket)
        #expect(Self.firstOutput(plan).hasPrefix("GET /chat HTTP/1.1\r\n"))
    }
}
