// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Client handshake (RFC 6455 §4.1)")
struct ClientHandshakeTests {
    typealias S = HTTPTestSupport
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    // MARK: - Key

    @Test("the key is 16 bytes from two generator words, first word first, little-endian")
    func makeKey() {
        var generator = S.ScriptedGenerator(words: [0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908, 0xFF])
        let key = ClientHandshake.makeKey(using: &generator)
        #expect(key == "AAECAwQFBgcICQoLDA0ODw==")
        #expect(Base64.decode(key) == Array(0...15))
        #expect(generator.words == [0xFF])  // exactly two calls
        var seeded1 = Connection.SeededGenerator(seed: 42)
        var seeded2 = Connection.SeededGenerator(seed: 42)
        #expect(ClientHandshake.makeKey(using: &seeded1) == ClientHandshake.makeKey(using: &seeded2))
        // The generator advances: the next key differs.
        #expect(ClientHandshake.makeKey(using: &seeded1) != ClientHandshake.makeKey(using: &seeded1))
        var system = SystemRandomNumberGenerator()
        #expect(Base64.decode(ClientHandshake.makeKey(using: &system))?.count == 16)
    }

    // MARK: - Request bytes

    static func request(_ options: Connection.ClientOptions) throws(Connection.UsageError) -> String {
        S.text(try ClientHandshake.request(options: options, key: key))
    }

    @Test("minimal request, exact bytes")
    func minimalRequest() throws {
        let options = Connection.ClientOptions(url: WebSocketURL(host: "server.example.com", resource: "/chat"))
        #expect(try Self.request(options) == """
            GET /chat HTTP/1.1\r
            Host: server.example.com\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \r

            """)
    }

    @Test("Host carries the port only when not the default, and brackets IPv6", arguments: [
        (WebSocketURL(host: "a.example", port: 80), "a.example"),
        (WebSocketURL(host: "a.example", port: 443), "a.example:443"),
        (WebSocketURL(isSecure: true, host: "a.example", port: 443), "a.example"),
        (WebSocketURL(isSecure: true, host: "a.example", port: 80), "a.example:80"),
        (WebSocketURL(host: "a.example", port: 8080), "a.example:8080"),
        (WebSocketURL(host: "::1"), "[::1]"),
        (WebSocketURL(isSecure: true, host: "2001:db8::7", port: 9443), "[2001:db8::7]:9443"),
        (WebSocketURL(host: "192.0.2.1", port: 1), "192.0.2.1:1"),
    ])
    func hostHeader(url: WebSocketURL, host: String) throws {
        let text = try Self.request(Connection.ClientOptions(url: url))
        #expect(text.contains("\r\nHost: \(host)\r\n"))
    }

    @Test("everything offered, exact bytes and order")
    func fullRequest() throws {
        let options = Connection.ClientOptions(
            url: WebSocketURL(isSecure: true, host: "::1", port: 8443, resource: "/a/b?c=d", user: "Aladdin",
                              password: "open sesame"),
            origin: "https://example.com",
            subprotocols: ["v2.chat", "chat"],
            extensions: [
                Connection.ExtensionHeader(name: "permessage-deflate", parameters: [.init(name: "client_max_window_bits")]),
                Connection.ExtensionHeader(name: "x-webkit-deflate-frame"),
            ],
            cookies: [Connection.Cookie(name: "session", value: "abc"), Connection.Cookie(name: "theme", value: "dark mode")],
            headers: ["User-Agent": "test/1.0", "X-Trace": "1", "x-trace": "2"])
        #expect(try Self.request(options) == """
            GET /a/b?c=d HTTP/1.1\r
            Host: [::1]:8443\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            Origin: https://example.com\r
            Sec-WebSocket-Protocol: v2.chat, chat\r
            Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, x-webkit-deflate-frame\r
            Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r
            Cookie: session=abc; theme=dark mode\r
            User-Agent: test/1.0\r
            X-Trace: 1\r
            x-trace: 2\r
            \r

            """)
        // Deterministic.
        #expect(try ClientHandshake.request(options: options, key: Self.key)
            == ClientHandshake.request(options: options, key: Self.key))
    }

    @Test("Basic credentials: user without password, and the caller's Authorization wins")
    func basicAuth() throws {
        var options = Connection.ClientOptions(url: WebSocketURL(host: "h", user: "u\u{E9}"))
        // RFC 7617 §2: base64 of user-id ":" password, here UTF-8 with an empty password.
        #expect(try Self.request(options).contains("\r\nAuthorization: Basic \(Base64.encode(Array("u\u{E9}:".utf8)))\r\n"))
        options.headers = ["authorization": "Bearer t"]
        let text = try Self.request(options)
        #expect(!text.contains("Basic"))
        #expect(text.contains("\r\nauthorization: Bearer t\r\n"))
        options.url.user = nil
        options.url.password = "p"
        options.headers = [:]
        #expect(!(try Self.request(options)).contains("Authorization"))
    }

    @Test("A user-id with a colon is refused, not sent as another user and password (RFC 7617 §2)")
    func basicAuthUserWithColon() throws {
        let options = Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://a%3Ab:c@host/"))
        #expect(throws: Connection.UsageError.invalidHeader("Authorization")) { try Self.request(options) }
        #expect(throws: Connection.UsageError.invalidHeader("Authorization")) { try Connection(role: .client(options)) }
        // The caller's own Authorization is sent instead, untouched.
        var own = options
        own.headers = ["Authorization": "Basic YTpiOmM="]
        #expect(try Self.request(own).contains("\r\nAuthorization: Basic YTpiOmM=\r\n"))
    }

    @Test("Host, Origin and Cookie given as headers replace the generated ones")
    func callerOverrides() throws {
        let options = Connection.ClientOptions(url: WebSocketURL(host: "10.0.0.1"), origin: "https://a",
                                    cookies: [Connection.Cookie(name: "a", value: "b")],
                                    headers: ["Host": "virtual.example", "Origin": "https://b", "Cookie": "c=d"])
        let text = try Self.request(options)
        #expect(!text.contains("10.0.0.1"))
        #expect(!text.contains("https://a"))
        #expect(!text.contains("a=b"))
        #expect(text.hasSuffix("Host: virtual.example\r\nOrigin: https://b\r\nCookie: c=d\r\n\r\n"))
    }

    @Test("an empty resource is sent as /, non-ASCII is percent-encoded")
    func resources() throws {
        #expect(try Self.request(Connection.ClientOptions(url: WebSocketURL(host: "h", resource: ""))).hasPrefix("GET / HTTP/1.1\r\n"))
        #expect(try Self.request(Connection.ClientOptions(url: WebSocketURL(host: "h", resource: "/caf\u{E9}?q=\u{2603}")))
            .hasPrefix("GET /caf%C3%A9?q=%E2%98%83 HTTP/1.1\r\n"))
    }

    static let injections: [(Connection.ClientOptions, String)] = {
        let url = WebSocketURL(host: "h")
        return [
            (Connection.ClientOptions(url: url, headers: ["X-A\r\nEvil": "1"]), "X-A\r\nEvil"),
            (Connection.ClientOptions(url: url, headers: ["X A": "1"]), "X A"),
            (Connection.ClientOptions(url: url, headers: ["": "1"]), ""),
            (Connection.ClientOptions(url: url, headers: ["X-A": "1\r\nEvil: 2"]), "X-A"),
            (Connection.ClientOptions(url: url, headers: ["X-A": "1\nEvil: 2"]), "X-A"),
            (Connection.ClientOptions(url: url, headers: ["X-A": "1\r"]), "X-A"),
            (Connection.ClientOptions(url: url, headers: ["X-A": "a\u{0}"]), "X-A"),
            (Connection.ClientOptions(url: url, headers: ["X-A": "a\u{1B}"]), "X-A"),
            (Connection.ClientOptions(url: url, headers: ["X-A": "a\u{7F}"]), "X-A"),
            (Connection.ClientOptions(url: url, origin: "https://a\r\nEvil: 1"), "Origin"),
            (Connection.ClientOptions(url: url, subprotocols: ["chat\r\nEvil: 1"]), "Sec-WebSocket-Protocol"),
            (Connection.ClientOptions(url: url, subprotocols: ["a b"]), "Sec-WebSocket-Protocol"),
            (Connection.ClientOptions(url: url, subprotocols: ["a,b"]), "Sec-WebSocket-Protocol"),
            (Connection.ClientOptions(url: url, subprotocols: [""]), "Sec-WebSocket-Protocol"),
            (Connection.ClientOptions(url: url, extensions: [Connection.ExtensionHeader(name: "a\r\nb")]), "Sec-WebSocket-Extensions"),
            (Connection.ClientOptions(url: url, extensions: [Connection.ExtensionHeader(name: "a", parameters: [.init(name: "p", value: "\n")])]),
             "Sec-WebSocket-Extensions"),
            (Connection.ClientOptions(url: url, cookies: [Connection.Cookie(name: "a", value: "b\r\nEvil: 1")]), "Cookie"),
            (Connection.ClientOptions(url: url, cookies: [Connection.Cookie(name: "a", value: "b; admin=1")]), "Cookie"),
            (Connection.ClientOptions(url: url, cookies: [Connection.Cookie(name: "a=b", value: "c")]), "Cookie"),
            (Connection.ClientOptions(url: url, cookies: [Connection.Cookie(name: "", value: "c")]), "Cookie"),
            (Connection.ClientOptions(url: WebSocketURL(host: "h\r\nEvil: 1")), "Host"),
            (Connection.ClientOptions(url: WebSocketURL(host: "h x")), "Host"),
            (Connection.ClientOptions(url: WebSocketURL(host: "")), "Host"),
            (Connection.ClientOptions(url: WebSocketURL(host: "h", resource: "/a HTTP/1.0\r\nEvil: 1")), "Request-Target"),
            (Connection.ClientOptions(url: WebSocketURL(host: "h", resource: "/a\u{0}")), "Request-Target"),
            (Connection.ClientOptions(url: url, headers: ["Sec-WebSocket-Key": "x"]), "Sec-WebSocket-Key"),
            (Connection.ClientOptions(url: url, headers: ["sec-websocket-protocol": "chat"]), "sec-websocket-protocol"),
            (Connection.ClientOptions(url: url, headers: ["Upgrade": "websocket"]), "Upgrade"),
            (Connection.ClientOptions(url: url, headers: ["Connection": "keep-alive"]), "Connection"),
            (Connection.ClientOptions(url: url, headers: ["Sec-WebSocket-Version": "8"]), "Sec-WebSocket-Version"),
            (Connection.ClientOptions(url: url, headers: ["Sec-WebSocket-Extensions": "a"]), "Sec-WebSocket-Extensions"),
        ]
    }()

    @Test("header injection and unsafe values throw invalidHeader", arguments: injections)
    func injection(options: Connection.ClientOptions, name: String) {
        #expect(throws: Connection.UsageError.invalidHeader(name)) {
            try ClientHandshake.request(options: options, key: Self.key)
        }
    }

    @Test("a key with a line break cannot be injected either")
    func keyInjection() {
        #expect(throws: Connection.UsageError.invalidHeader("Sec-WebSocket-Key")) {
            try ClientHandshake.request(options: Connection.ClientOptions(url: WebSocketURL(host: "h")), key: "k\r\nEvil: 1")
        }
    }

    @Test("tabs and obs-text are allowed in values")
    func allowedValues() throws {
        let text = try Self.request(Connection.ClientOptions(url: WebSocketURL(host: "h"), headers: ["X-A": "a\tb caf\u{E9}"]))
        #expect(text.contains("\r\nX-A: a\tb caf\u{E9}\r\n"))
    }

    @Test("the request parses back into a head the server accepts")
    func roundTrip() throws {
        let options = Connection.ClientOptions(url: WebSocketURL(host: "example.com", port: 9001, resource: "/x?y"),
                                    subprotocols: ["a", "b"],
                                    extensions: [Connection.ExtensionHeader(name: "permessage-deflate")])
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        let bytes = try ClientHandshake.request(options: options, key: Self.key)
        guard case .request(let head) = parser.consume(bytes).outcome else {
            Issue.record("the request must parse")
            return
        }
        let request = try ServerHandshake.validate(request: head).get()
        #expect(request.resource == "/x?y")
        #expect(request.host == "example.com:9001")
        #expect(request.subprotocols == ["a", "b"])
        #expect(request.extensions == options.extensions)
        #expect(request.key == Self.key)
    }

    // MARK: - Response validation

    static let options = Connection.ClientOptions(url: WebSocketURL(host: "server.example.com", resource: "/chat"),
                                       subprotocols: ["chat", "superchat"],
                                       extensions: [Connection.ExtensionHeader(name: "permessage-deflate"),
                                                    Connection.ExtensionHeader(name: "x-webkit-deflate-frame")])

    static func response(status: Int = 101, version: Connection.HTTPVersion = .http1_1,
                         _ headers: [(String, String)]) -> Connection.HTTPResponseHead {
        Connection.HTTPResponseHead(version: version, status: status, reason: "", headers: Connection.HTTPHeaders(headers))
    }

    static let good: [(String, String)] = [
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept),
    ]

    static func validate(_ head: Connection.HTTPResponseHead, options: Connection.ClientOptions = options) -> Result<Connection.HandshakeResult, Connection.HandshakeError> {
        ClientHandshake.validate(response: head, key: key, options: options)
    }

    @Test("the RFC 6455 sample response validates")
    func sampleResponse() throws {
        guard let head = S.responseHead(S.sampleResponse) else {
            Issue.record("the sample must parse")
            return
        }
        let result = try Self.validate(head).get()
        #expect(result.subprotocol == "chat")
        #expect(result.extensions == [])
        #expect(result.headers == head.headers)
        #expect(result.resource == "/chat")
    }

    @Test("minimal response: no subprotocol, no extensions")
    func minimal() throws {
        let result = try Self.validate(Self.response(Self.good)).get()
        #expect(result == Connection.HandshakeResult(subprotocol: nil, extensions: [], headers: Connection.HTTPHeaders(Self.good), resource: "/chat"))
    }

    @Test("tokens compare case-insensitively, Connection may be a list", arguments: [
        [("Upgrade", "WebSocket"), ("Connection", "keep-alive, Upgrade")],
        [("upgrade", "WEBSOCKET"), ("connection", "upgrade")],
        [("Upgrade", "websocket"), ("Connection", "keep-alive"), ("Connection", "UPGRADE")],
    ])
    func caseInsensitive(headers: [(String, String)]) {
        let head = Self.response(headers + [("sec-websocket-accept", Self.accept)])
        #expect((try? Self.validate(head).get()) != nil)
    }

    static let failureCases: [([(String, String)], Connection.HandshakeError)] = [
        ([("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)], .responseMissingUpgrade),
        ([("Upgrade", "h2c"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)], .responseMissingUpgrade),
        ([("Upgrade", "websocket"), ("Sec-WebSocket-Accept", accept)], .responseMissingConnectionUpgrade),
        ([("Upgrade", "websocket"), ("Connection", "keep-alive"), ("Sec-WebSocket-Accept", accept)],
         .responseMissingConnectionUpgrade),
        ([("Upgrade", "websocket"), ("Connection", "Upgrade")], .invalidAccept),
        (good + [("Sec-WebSocket-Accept", accept)], .invalidAccept),
        ([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo")],
         .invalidAccept),
        ([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "S3PPLMBITXAQ9KYGZZHZRBK+XOO=")],
         .invalidAccept),
        ([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "dGhlIHNhbXBsZSBub25jZQ==")],
         .invalidAccept),
        (good + [("Sec-WebSocket-Protocol", "other")], .unexpectedSubprotocol("other")),
        (good + [("Sec-WebSocket-Protocol", "CHAT")], .unexpectedSubprotocol("CHAT")),
        (good + [("Sec-WebSocket-Protocol", "chat, superchat")], .unexpectedSubprotocol("chat, superchat")),
        (good + [("Sec-WebSocket-Protocol", "chat"), ("Sec-WebSocket-Protocol", "chat")],
         .unexpectedSubprotocol("chat, chat")),
        (good + [("Sec-WebSocket-Protocol", "")], .unexpectedSubprotocol("")),
        (good + [("Sec-WebSocket-Extensions", "permessage-deflate, x-other")], .unexpectedExtension("x-other")),
        (good + [("Sec-WebSocket-Extensions", "permessage-deflate;")], .invalidExtensionsHeader),
        (good + [("Sec-WebSocket-Extensions", "")], .invalidExtensionsHeader),
    ]

    @Test("each failure", arguments: failureCases
)
    func failures(headers: [(String, String)], error: Connection.HandshakeError) {
        #expect(Self.validate(Self.response(headers)) == .failure(error))
    }

    @Test("accepted extensions and subprotocol are reported")
    func negotiated() throws {
        let head = Self.response(Self.good + [
            ("Sec-WebSocket-Protocol", " superchat "),
            ("Sec-WebSocket-Extensions", "permessage-deflate; server_no_context_takeover"),
            ("Sec-WebSocket-Extensions", "X-WEBKIT-DEFLATE-FRAME"),
        ])
        let result = try Self.validate(head).get()
        #expect(result.subprotocol == "superchat")
        #expect(result.extensions == [
            Connection.ExtensionHeader(name: "permessage-deflate", parameters: [.init(name: "server_no_context_takeover")]),
            Connection.ExtensionHeader(name: "X-WEBKIT-DEFLATE-FRAME"),
        ])
    }

    @Test("a subprotocol or extension when none was offered fails")
    func nothingOffered() {
        let plain = Connection.ClientOptions(url: WebSocketURL(host: "h"))
        #expect(Self.validate(Self.response(Self.good + [("Sec-WebSocket-Protocol", "chat")]), options: plain)
            == .failure(.unexpectedSubprotocol("chat")))
        #expect(Self.validate(Self.response(Self.good + [("Sec-WebSocket-Extensions", "permessage-deflate")]), options: plain)
            == .failure(.unexpectedExtension("permessage-deflate")))
    }

    @Test("a status other than 101, or HTTP/1.0, fails")
    func statusAndVersion() {
        #expect(Self.validate(Self.response(status: 200, Self.good)) == .failure(.unexpectedStatus(200)))
        #expect(Self.validate(Self.response(status: 400, Self.good)) == .failure(.unexpectedStatus(400)))
        #expect(Self.validate(Self.response(version: Connection.HTTPVersion(major: 1, minor: 0), Self.good))
            == .failure(.unsupportedHTTPVersion))
    }
}
