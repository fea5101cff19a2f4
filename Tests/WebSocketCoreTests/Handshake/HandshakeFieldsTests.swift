// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The request's fields are read in one walk, each name compared with the known names of its length
/// (`HandshakeFields`): these cases hold that walk to what looking each name up gave.
@Suite("The handshake's fields, read in one walk")
struct HandshakeFieldsTests {
    typealias T = ServerHandshakeTests

    private static func cased(_ headers: [(String, String)], _ transform: (String) -> String) -> [(String, String)] {
        headers.map { (transform($0.0), $0.1) }
    }

    @Test("Names match whatever their case")
    func namesInAnyCase() throws {
        for headers in [Self.cased(T.sampleHeaders) { $0.lowercased() }, Self.cased(T.sampleHeaders) { $0.uppercased() }] {
            let request = try T.validate(T.head(headers)).get()
            #expect(request.host == "server.example.com")
            #expect(request.origin == "http://example.com")
            #expect(request.key == "dGhlIHNhbXBsZSBub25jZQ==")
            #expect(request.subprotocols == ["chat", "superchat"])
        }
        // A second key in another case is still a second key (RFC 6455 §11.3.1).
        #expect(T.validate(T.head(T.sampleHeaders + [("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")])) == .failure(.invalidKey))
        #expect(T.validate(T.head(T.sampleHeaders + [("SEC-WEBSOCKET-VERSION", "13")]))
                == .failure(.unsupportedWebSocketVersion("13, 13")))
    }

    @Test("Names as long as a known one but not it are other fields")
    func lookalikesAreIgnored() throws {
        let lookalikes: [(String, String)] = [
            ("Hosx", "elsewhere"), ("Origim", "http://elsewhere"), ("Upgrada", "h2c"), ("Connectiom", "close"),
            ("Content-Lengtx", "5"), ("Transfer-Encodinz", "chunked"), ("Sec-WebSocket-Kez", "x"),
            ("Sec-WebSocket-Versiom", "8"), ("Sec-WebSocket-Protocox", "a b"), ("Sec-WebSocket-Extensiont", ";"),
        ]
        let request = try T.validate(T.head(T.sampleHeaders + lookalikes)).get()
        #expect(request.host == "server.example.com")
        #expect(request.origin == "http://example.com")
        #expect(request.subprotocols == ["chat", "superchat"])
        #expect(request.extensions == [])
    }

    @Test("Lists may come in several fields, and the first Origin is the origin")
    func repeatedFields() throws {
        let headers = T.headers(without: "Upgrade", adding: [("Upgrade", "h2c"), ("Upgrade", "WebSocket")])
            .filter { $0.0 != "Connection" } + [("Connection", "keep-alive"), ("connection", "Upgrade")]
            + [("Sec-WebSocket-Protocol", "v2"), ("Origin", "http://second.example.com")]
            + [("Sec-WebSocket-Extensions", "a"), ("Sec-WebSocket-Extensions", "b; x=1")]
        let request = try T.validate(T.head(headers)).get()
        #expect(request.subprotocols == ["chat", "superchat", "v2"])
        #expect(request.origin == "http://example.com")
        #expect(request.extensions.map(\.name) == ["a", "b"])
        // Content-Length 0, any number of times, is no body.
        #expect((try? T.validate(T.head(T.sampleHeaders + [("Content-Length", "0"), ("content-length", "0")])).get()) != nil)
    }

    /// `headers` as a request head's bytes.
    private static func wire(_ headers: [(String, String)]) -> [UInt8] {
        Array(("GET /chat HTTP/1.1\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
    }

    /// `bytes` parsed as a head of `kind`, fed in `pieces` (1: whole; 0: a byte at a time; 2: in
    /// two halves): the outcome, and the fields the parser handed over as it read them.
    private static func parse(_ bytes: [UInt8], kind: HTTPHeadParser.Kind, pieces: Int) -> (HTTPHeadParser.Outcome, HandshakeFields) {
        let split: [ArraySlice<UInt8>]
        switch pieces {
        case 0: split = bytes.indices.map { bytes[$0...$0] }
        case 2: split = [bytes[..<(bytes.count / 2)], bytes[(bytes.count / 2)...]]
        default: split = [bytes[...]]
        }
        var parser = HTTPHeadParser(kind: kind, limits: Connection.Limits())
        var gathered = HandshakeFields()
        var outcome = HTTPHeadParser.Outcome.needMore
        for piece in split {
            outcome = piece.withUnsafeBytes { parser.consume($0, fieldsTo: &gathered).outcome }
        }
        return (outcome, gathered)
    }

    @Test("The fields the parser hands over as it reads each line are those a walk over the parsed headers finds, whatever the reads")
    func gatheredWhileParsing() throws {
        let cases: [[(String, String)]] = [
            T.sampleHeaders,
            Self.cased(T.sampleHeaders) { $0.uppercased() },
            T.sampleHeaders + [("sec-websocket-key", "x"), ("SEC-WEBSOCKET-VERSION", "8"), ("Host", "b")],
            T.headers(without: "Upgrade", adding: [("Upgrade", "h2c"), ("Upgrade", "WebSocket")])
                + [("Sec-WebSocket-Extensions", "a"), ("Sec-WebSocket-Extensions", "b; x=1"), ("Origin", "http://2")],
            T.sampleHeaders + [("Content-Length", "0"), ("content-length", "00"), ("Transfer-Encoding", "chunked")],
            [("Host", ""), ("Origin", ""), ("Sec-WebSocket-Version", "13 "), ("Sec-WebSocket-Key", "  k  ")],
            [("User-Agent", "x"), ("X-Long", String(repeating: "v", count: 300)), ("Connection", "keep-alive, Upgrade")],
            [],
        ]
        for headers in cases {
            // Whole, then a byte at a time (each line stored before it is parsed), then in two pieces.
            for pieces in [1, 0, 2] {
                let (outcome, gathered) = Self.parse(Self.wire(headers), kind: .request, pieces: pieces)
                guard case .request(let head) = outcome else {
                    Issue.record("not parsed: \(headers)")
                    continue
                }
                #expect(gathered == HandshakeFields(head.headers), "\(headers), pieces \(pieces)")
                #expect(ServerHandshake.validate(request: head, fields: gathered) == ServerHandshake.validate(request: head))
            }
        }
    }

    @Test("A response's fields, handed over as the parser reads them, are those a walk finds, and validate the same")
    func responseGatheredWhileParsing() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let accept = AcceptKey.accept(forKey: key)
        let cases: [[(String, String)]] = [
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)],
            [("upgrade", "WebSocket"), ("CONNECTION", "keep-alive, upgrade"), ("sec-websocket-accept", " \(accept) ")],
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept), ("Sec-WebSocket-Accept", accept)],
            [("Upgrade", "h2c"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept)],
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "wrong")],
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept),
             ("Sec-WebSocket-Protocol", "chat"), ("Sec-WebSocket-Extensions", "x-a; p=1"), ("Sec-WebSocket-Extensions", "x-b")],
            [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept), ("Sec-WebSocket-Protocol", "chat"),
             ("Sec-WebSocket-Protocol", "other")],
            [],
        ]
        var options = Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://example.com/"))
        options.subprotocols = ["chat"]
        options.extensions = [Connection.ExtensionHeader(name: "x-a"), Connection.ExtensionHeader(name: "x-b")]
        for headers in cases {
            let bytes = Array(("HTTP/1.1 101 Switching Protocols\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
            for pieces in [1, 0, 2] {
                let (outcome, gathered) = Self.parse(bytes, kind: .response, pieces: pieces)
                guard case .response(let head) = outcome else {
                    Issue.record("not parsed: \(headers)")
                    continue
                }
                #expect(gathered == HandshakeFields(head.headers), "\(headers), pieces \(pieces)")
                #expect(ClientHandshake.validate(response: head, fields: gathered, key: key, options: options)
                        == ClientHandshake.validate(response: head, key: key, options: options))
            }
        }
    }

    @Test("A plain request reads the same fields")
    func plainRequests() {
        let plain: [(String, String)] = [("host", "server.example.com"), ("ORIGIN", "http://example.com")]
        let request = ServerHandshake.plainRequest(T.head(plain))
        #expect(request?.host == "server.example.com")
        #expect(request?.origin == "http://example.com")
        #expect(request?.kind == .plain)
        // An upgrade attempt in any case, a body, or a second Host is not a plain request.
        #expect(ServerHandshake.plainRequest(T.head(plain + [("upgrade", "WebSocket")])) == nil)
        #expect(ServerHandshake.plainRequest(T.head(plain + [("transfer-encoding", "chunked")])) == nil)
        #expect(ServerHandshake.plainRequest(T.head(plain + [("Content-Length", "3")])) == nil)
        #expect(ServerHandshake.plainRequest(T.head(plain + [("HOST", "other")])) == nil)
        // HTTP/1.0 needs no Host, but not two.
        #expect(ServerHandshake.plainRequest(T.head(version: Connection.HTTPVersion(major: 1, minor: 0), [])) != nil)
        #expect(ServerHandshake.plainRequest(T.head(version: Connection.HTTPVersion(major: 1, minor: 0),
                                                    [("Host", "a"), ("host", "b")])) == nil)
        // Another upgrade (not websocket) is still a plain request.
        #expect(ServerHandshake.plainRequest(T.head(plain + [("Upgrade", "h2c")])) != nil)
    }
}
