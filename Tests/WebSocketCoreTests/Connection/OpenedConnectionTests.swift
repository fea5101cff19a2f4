// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// What one side of a scripted exchange did: bytes it wrote, events it reported, its deadline.
enum Trace: Equatable {
    case output(String, [UInt8])
    case event(String, Connection.Event)
    case deadline(String, Connection.Instant?)
    case directive(String, Connection.TransportDirective)
}

/// A client and a server that did their own handshake, and the same connections made open from what
/// that handshake agreed (the client with the generator as the handshake left it).
struct Twins {
    var client: Connection
    var server: Connection
    var openedClient: Connection
    var openedServer: Connection
}

func makeTwins(client clientConfig: Connection.Configuration = Connection.Configuration(), server serverConfig: Connection.Configuration = Connection.Configuration(),
               options: Connection.ClientOptions = clientOptions(subprotocols: ["chat", "superchat"]), seed: UInt64 = 42) throws -> Twins {
    var c = try Connection(role: .client(options), configuration: clientConfig, random: Connection.SeededGenerator(seed: seed))
    var s = try Connection(role: .server, configuration: serverConfig, random: Connection.SeededGenerator(seed: seed &+ 1))
    guard case .handshakeRequest(let request)? = pump(&c, into: &s).first else { throw TestFailure("no request") }
    try s.accept(subprotocol: request.subprotocols.last)
    guard case .handshakeCompleted(let serverResult)? = drain(&s).first else { throw TestFailure("server not open") }
    guard case .handshakeCompleted(let clientResult)? = pump(&s, into: &c).first else { throw TestFailure("client not open") }
    let oc = try Connection(openedAs: .client(options), configuration: clientConfig, subprotocol: clientResult.subprotocol,
                            extensions: clientResult.extensions, random: c.random)
    let os = try Connection(openedAs: .server, configuration: serverConfig, subprotocol: serverResult.subprotocol,
                            extensions: serverResult.extensions, random: Connection.SeededGenerator(seed: seed &+ 1))
    return Twins(client: c, server: s, openedClient: oc, openedServer: os)
}

/// Runs `script` on the handshake pair, on (handshake client, opened server) and on (opened client,
/// handshake server), and returns the three traces.
func traces(_ twins: Twins, _ script: (inout Connection, inout Connection, inout [Trace]) throws -> Void) throws -> [[Trace]] {
    var result: [[Trace]] = []
    for (client, server) in [(twins.client, twins.server), (twins.client, twins.openedServer), (twins.openedClient, twins.server)] {
        var (c, s) = (client, server)
        var trace: [Trace] = []
        try script(&c, &s, &trace)
        result.append(trace)
    }
    return result
}

/// Moves `from`'s output to `to`, recording the bytes and `to`'s events.
func move(_ from: inout Connection, _ fromName: String, to: inout Connection, _ toName: String, _ trace: inout [Trace]) {
    let bytes = from.takeOutput()
    trace.append(.output(fromName, bytes))
    to.receive(bytes)
    while let event = to.nextEvent() { trace.append(.event(toName, event)) }
}

@Suite("A connection that starts open (RFC 6455 §4 done elsewhere)")
struct OpenedConnectionTests {
    static func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }

    @Test("It is open at once, with nothing queued, no event and no handshake timer", arguments: [true, false])
    func startsOpen(client: Bool) throws {
        var connection = try Connection(openedAs: client ? .client(clientOptions()) : .server)
        #expect(connection.state == .open)
        #expect(connection.pendingOutputCount == 0)
        #expect(connection.nextEvent() == nil)
        connection.advanceTime(to: Self.at(100))
        #expect(connection.nextDeadline == nil)
        #expect(connection.transportDirective == .keepOpen)
        try connection.send(text: "at once")
        #expect(decodeFrames(connection.takeOutput()) == [DecodedFrame(fin: true, opcode: 0x1, masked: client,
                                                                        payload: Array("at once".utf8))])
    }

    @Test("Messages both ways, fragments, pings, a client close: byte for byte as after a handshake")
    func messagesAndClientClose() throws {
        var config = Connection.Configuration()
        config.fragmentationSize = 100
        let result = try traces(try makeTwins(client: config, server: config)) { c, s, trace in
            try c.send(text: "hello")
            try c.send(binary: Array(repeating: 7, count: 250))           // three frames
            move(&c, "client", to: &s, "server", &trace)
            try s.send(text: String(repeating: "κ", count: 120))          // 240 bytes, split inside characters
            try s.ping([1, 2, 3])
            move(&s, "server", to: &c, "client", &trace)                   // the client answers the ping
            move(&c, "client", to: &s, "server", &trace)
            try c.sendFragment(Array("frag".utf8), kind: .text, isFinal: false)
            try c.ping()
            try c.sendFragment(Array("ment".utf8), kind: .text, isFinal: true)
            move(&c, "client", to: &s, "server", &trace)
            move(&s, "server", to: &c, "client", &trace)                   // the pong
            try c.close(code: .normalClosure, reason: "bye")
            move(&c, "client", to: &s, "server", &trace)
            move(&s, "server", to: &c, "client", &trace)
            trace.append(.directive("client", c.transportDirective))
            trace.append(.directive("server", s.transportDirective))
        }
        #expect(result[1] == result[0])
        #expect(result[2] == result[0])
        #expect(result[0].contains(.event("server", .text("fragment"))))
        #expect(result[0].contains(.event("server", .closed(Connection.CloseStatus(code: .normalClosure, reason: "bye", wasClean: true)))))
    }

    @Test("A server close, and the client's wait for the server to close TCP")
    func serverClose() throws {
        let result = try traces(try makeTwins()) { c, s, trace in
            try s.send(text: "last")
            try s.close(code: .goingAway, reason: "restart")
            move(&s, "server", to: &c, "client", &trace)
            move(&c, "client", to: &s, "server", &trace)
            trace.append(.directive("client", c.transportDirective))
            trace.append(.directive("server", s.transportDirective))
        }
        #expect(result[1] == result[0])
        #expect(result[2] == result[0])
        #expect(result[0].contains(.directive("client", .awaitPeerClose)))
    }

    @Test("Keepalive arms one interval after the first time report, in both roles, as after a handshake")
    func keepalive() throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = .seconds(10)
        let result = try traces(try makeTwins(client: config, server: config)) { c, s, trace in
            trace.append(.deadline("client", c.nextDeadline))
            c.advanceTime(to: Self.at(1000))
            s.advanceTime(to: Self.at(1000))
            trace.append(.deadline("client", c.nextDeadline))
            trace.append(.deadline("server", s.nextDeadline))
            c.advanceTime(to: Self.at(1030))
            s.advanceTime(to: Self.at(1030))
            trace.append(.deadline("client", c.nextDeadline))
            move(&c, "client", to: &s, "server", &trace)      // the client's ping, then the server's pong
            move(&s, "server", to: &c, "client", &trace)      // the server's ping and its pong to ours
            move(&c, "client", to: &s, "server", &trace)
            // The pongs started the next pings' timers, which ask for the time at once.
            trace.append(.deadline("client", c.nextDeadline))
            trace.append(.deadline("server", s.nextDeadline))
            c.advanceTime(to: Self.at(1030))
            s.advanceTime(to: Self.at(1030))
            trace.append(.deadline("client", c.nextDeadline))
            trace.append(.deadline("server", s.nextDeadline))
            // The server stops answering: the client gives up after the keepalive timeout.
            c.advanceTime(to: Self.at(1060))
            c.advanceTime(to: Self.at(1070))
            while let event = c.nextEvent() { trace.append(.event("client", event)) }
            trace.append(.output("client", c.takeOutput()))
        }
        #expect(result[1] == result[0])
        #expect(result[2] == result[0])
        #expect(result[0][1] == .deadline("client", Self.at(1030)))
        #expect(result[0][2] == .deadline("server", Self.at(1030)))
        let deadlines = result[0].filter { if case .deadline = $0 { true } else { false } }
        #expect(Array(deadlines.suffix(4)) == [.deadline("client", Self.at(1030)), .deadline("server", Self.at(1030)),
                                               .deadline("client", Self.at(1060)), .deadline("server", Self.at(1060))])
        #expect(result[0].contains { if case .event("client", .closed(let status)) = $0 { return status.failure == .keepaliveTimeout }; return false })
    }

    @Test("Limits hold: a message over the server's limit fails with 1009 as after a handshake")
    func limits() throws {
        var server = Connection.Configuration()
        server.limits.maxMessageSize = 1000
        let result = try traces(try makeTwins(server: server)) { c, s, trace in
            try c.send(binary: Array(repeating: 1, count: 1000))
            try c.send(binary: Array(repeating: 2, count: 1001))
            move(&c, "client", to: &s, "server", &trace)
            move(&s, "server", to: &c, "client", &trace)
        }
        #expect(result[1] == result[0])
        #expect(result[2] == result[0])
        #expect(result[0].contains(.event("server", .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))))
    }

    @Test("Peer violations: an unmasked client frame, a masked server frame", arguments: [true, false])
    func violations(atServer: Bool) throws {
        var connection = try Connection(openedAs: atServer ? .server : .client(clientOptions()))
        connection.receive(frame(0x1, Array("hi".utf8), key: atServer ? nil : [1, 2, 3, 4]))
        let events = drain(&connection)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(atServer ? .unmaskedFrame : .maskedFrame)))
        #expect(closeCode(of: decodeFrames(connection.takeOutput())[0]) == 1002)
    }

    @Test("Two opened connections talk to each other, frames that came with the response included")
    func openedPair() throws {
        var client = try Connection(openedAs: .client(clientOptions(subprotocols: ["chat"])), subprotocol: "chat",
                                    random: Connection.SeededGenerator(seed: 3))
        var server = try Connection(openedAs: .server, subprotocol: "chat")
        try client.send(text: "one")
        try client.send(text: "two")
        let bytes = client.takeOutput()
        server.receive(Array(bytes.prefix(5)))   // what the HTTP server read with the request
        server.receive(Array(bytes.dropFirst(5)))
        #expect(drain(&server) == [.text("one"), .text("two")])
        try server.send(binary: [9])
        #expect(pump(&server, into: &client) == [.binary([9])])
    }

    @Test("A header-level or transforming extension, agreed elsewhere, as after a handshake")
    func xorExtension() throws {
        var config = Connection.Configuration()
        config.extensions = [XORExtension()]
        let twins = try makeTwins(client: config, server: config)
        #expect(twins.openedServer.transformBits == 0x40)
        #expect(twins.openedClient.transformBits == 0x40)
        let result = try traces(twins) { c, s, trace in
            try c.send(text: "masked and xored")
            move(&c, "client", to: &s, "server", &trace)
            try s.send(binary: [1, 2, 3])
            move(&s, "server", to: &c, "client", &trace)
        }
        #expect(result[1] == result[0])
        #expect(result[2] == result[0])
        // An element no configured extension knows stays at header level.
        let plain = try Connection(openedAs: .server, extensions: [Connection.ExtensionHeader(name: "x-other")])
        #expect(plain.transformBits == 0)
    }

    // MARK: Misuse

    @Test("Misuse throws a clear error, never traps")
    func misuse() throws {
        var xor = Connection.Configuration()
        xor.extensions = [XORExtension()]
        #expect(throws: Connection.UsageError.subprotocolNotOffered("chat")) {
            try Connection(openedAs: .client(clientOptions()), subprotocol: "chat")
        }
        #expect(throws: Connection.UsageError.extensionNotOffered("x-xor")) {
            try Connection(openedAs: .client(clientOptions()), extensions: [Connection.ExtensionHeader(name: "x-xor")])
        }
        #expect(throws: Connection.UsageError.invalidHeader("Sec-WebSocket-Protocol")) {
            try Connection(openedAs: .server, subprotocol: "two words")
        }
        #expect(throws: Connection.UsageError.invalidHeader("Sec-WebSocket-Extensions")) {
            try Connection(openedAs: .server, extensions: [Connection.ExtensionHeader(name: "x\r\ny")])
        }
        #expect(throws: Connection.UsageError.invalidExtensionAgreement("x-xor agreed twice")) {
            try Connection(openedAs: .server, configuration: xor,
                           extensions: [Connection.ExtensionHeader(name: "x-xor"), Connection.ExtensionHeader(name: "x-xor")])
        }
        #expect(throws: Connection.UsageError.invalidExtensionAgreement("x-xor accepted twice")) {
            try Connection(openedAs: .client(clientOptions()), configuration: xor,
                           extensions: [Connection.ExtensionHeader(name: "x-xor"), Connection.ExtensionHeader(name: "x-xor")])
        }
        // The default agreement check: an element the extension would not answer with itself.
        let error = #expect(throws: Connection.UsageError.self) {
            try Connection(openedAs: .server, configuration: xor,
                           extensions: [Connection.ExtensionHeader(name: "x-xor", parameters: [.init(name: "level", value: "3")])])
        }
        #expect(error == .invalidExtensionAgreement("x-xor cannot run the agreement x-xor; level=3"))
        #expect(error.map(String.init(describing:)) == "invalid extension agreement: x-xor cannot run the agreement x-xor; level=3")
    }

    // MARK: Helpers for your own HTTP server

    /// The head of a real client's request, parsed.
    static func requestHead(_ options: Connection.ClientOptions, _ configuration: Connection.Configuration = Connection.Configuration()) throws -> Connection.HTTPRequestHead {
        var client = try Connection(role: .client(options), configuration: configuration, random: Connection.SeededGenerator(seed: 9))
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        guard case .request(let head) = parser.consume(client.takeOutput()).outcome else { throw TestFailure("no head") }
        return head
    }

    @Test("Sec-WebSocket-Accept: the RFC 6455 §1.3 example")
    func acceptValue() {
        #expect(Connection.HandshakeRequest.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(Connection.HandshakeRequest.acceptValue(forKey: " dGhlIHNhbXBsZSBub25jZQ== ") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("HandshakeRequest.answer builds the response accept() sends, and opens a connection that behaves the same")
    func answerMatchesAccept() throws {
        var config = Connection.Configuration()
        config.extensions = [XORExtension()]
        let options = clientOptions(subprotocols: ["chat"])
        let head = try Self.requestHead(options, config)
        let request = try Connection.HandshakeRequest(validating: head)
        #expect(request.acceptValue == AcceptKey.accept(forKey: request.key))
        let answer = try request.answer(configuration: config, subprotocol: "chat", headers: ["Set-Cookie": "a=b"])

        var server = try Connection(role: .server, configuration: config)
        var client = try Connection(role: .client(options), configuration: config, random: Connection.SeededGenerator(seed: 9))
        server.receive(client.takeOutput())
        guard case .handshakeRequest? = server.nextEvent() else { throw TestFailure("no request") }
        try server.accept(subprotocol: "chat", headers: ["Set-Cookie": "a=b"])
        let response = server.takeOutput()
        #expect(response == answer.response)
        #expect(answer.extensions == [Connection.ExtensionHeader(name: "x-xor")])
        #expect(answer.headers.fields.map(\.name) == ["Upgrade", "Connection", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol",
                                                       "Sec-WebSocket-Extensions", "Set-Cookie"])
        #expect(answer.headers["Sec-WebSocket-Accept"] == request.acceptValue)

        // The client reads our response and opens; the opened server and the accepting one agree.
        client.receive(response)
        guard case .handshakeCompleted? = drain(&client).first else { throw TestFailure("client not open") }
        var opened = try Connection(openedAs: .server, configuration: config, subprotocol: answer.subprotocol,
                                    extensions: answer.extensions)
        var reference = server
        _ = drain(&reference)
        try client.send(text: "same")
        let bytes = client.takeOutput()
        opened.receive(bytes)
        reference.receive(bytes)
        #expect(drain(&opened) == drain(&reference))
        try opened.send(text: "back")
        try reference.send(text: "back")
        #expect(opened.takeOutput() == reference.takeOutput())
    }

    @Test("HandshakeRequest.answer refuses what accept() refuses")
    func answerMisuse() throws {
        let request = try Connection.HandshakeRequest(validating: try Self.requestHead(clientOptions(subprotocols: ["chat"])))
        #expect(throws: Connection.UsageError.subprotocolNotOffered("other")) {
            try request.answer(configuration: Connection.Configuration(), subprotocol: "other")
        }
        #expect(throws: Connection.UsageError.extensionNotOffered("x-xor")) {
            try request.answer(configuration: Connection.Configuration(), extensions: [Connection.ExtensionHeader(name: "x-xor")])
        }
        #expect(throws: Connection.UsageError.invalidHeader("Upgrade")) {
            try request.answer(configuration: Connection.Configuration(), headers: ["Upgrade": "h2c"])
        }
    }

    @Test("HandshakeRequest(validating:) reports the first problem, with its HTTP status")
    func validating() throws {
        var head = try Self.requestHead(clientOptions())
        head.method = "POST"
        #expect(throws: Connection.HandshakeError.methodNotAllowed("POST")) { try Connection.HandshakeRequest(validating: head) }
        head.method = "GET"
        head.headers.remove(name: "Sec-WebSocket-Version")
        head.headers.append(name: "Sec-WebSocket-Version", value: "8")
        let error = #expect(throws: Connection.HandshakeError.self) { try Connection.HandshakeRequest(validating: head) }
        #expect(error?.httpStatus == 426)
    }

    @Test("A request HandshakeRequest(validating:) refuses is answered with the response a server Connection sends, byte for byte",
          arguments: ["method", "version", "upgrade", "key"])
    func errorResponseMatchesConnection(_ problem: String) throws {
        var head = try Self.requestHead(clientOptions())
        switch problem {
        case "method": head.method = "POST"
        case "version":
            head.headers.remove(name: "Sec-WebSocket-Version")
            head.headers.append(name: "Sec-WebSocket-Version", value: "8")
        case "upgrade": head.headers.remove(name: "Upgrade")
        default: head.headers.remove(name: "Sec-WebSocket-Key")
        }
        let error = try #require(#expect(throws: Connection.HandshakeError.self) { try Connection.HandshakeRequest(validating: head) })

        // The same head, read by a server connection, is answered with these bytes.
        var server = try Connection(role: .server)
        server.receive(Self.serialize(head))
        _ = drain(&server)
        let written = server.takeOutput()
        #expect(written == error.response)
        // The pieces an HTTP stack writes itself: the status line, these fields, this body.
        var expected = Array("HTTP/1.1 \(error.httpStatus) ".utf8)
        #expect(written.starts(with: expected))
        expected = Array("\r\n\r\n".utf8) + error.responseBody
        #expect(written.suffix(expected.count).elementsEqual(expected))
        #expect(error.responseBody == Array((error.reason + "\n").utf8))
        #expect(error.responseHeaders["Content-Length"] == String(error.responseBody.count))
        for field in error.responseHeaders {
            #expect(String(decoding: written, as: UTF8.self).contains("\r\n\(field.name): \(field.value)\r\n"))
        }
        switch problem {
        case "method":
            #expect(error.httpStatus == 405 && error.responseHeaders["Allow"] == "GET")
        case "version":
            #expect(error.httpStatus == 426 && error.responseHeaders["Sec-WebSocket-Version"] == "13")
            #expect(error.responseHeaders["Upgrade"] == "websocket" && error.responseHeaders["Connection"] == "Upgrade, close")
        case "upgrade":
            // Not an upgrade at all: 426, which names the protocol to upgrade to.
            #expect(error.httpStatus == 426 && error.responseHeaders["Upgrade"] == "websocket")
            #expect(error.responseHeaders["Sec-WebSocket-Version"] == nil)
        default:
            #expect(error.httpStatus == 400 && error.responseHeaders["Connection"] == "close")
            #expect(error.responseHeaders["Allow"] == nil && error.responseHeaders["Upgrade"] == nil)
        }
    }

    /// `head` written back as HTTP/1.1 bytes.
    static func serialize(_ head: Connection.HTTPRequestHead) -> [UInt8] {
        var text = "\(head.method) \(head.target) HTTP/1.1\r\n"
        for field in head.headers { text += "\(field.name): \(field.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    @Test("Configuration: the offers a client sends and the answers a server chooses (RFC 8441 style)")
    func configurationHelpers() throws {
        var config = Connection.Configuration()
        config.extensions = [XORExtension()]
        #expect(config.extensionOffers == [Connection.ExtensionHeader(name: "x-xor")])
        let offers = try #require(Connection.ExtensionHeader.parseList(["x-other; a=1, x-xor"]))
        let agreed = config.negotiatedExtensions(forOffers: offers)
        #expect(agreed == [Connection.ExtensionHeader(name: "x-xor")])
        #expect(Connection.ExtensionHeader.headerValue(agreed) == "x-xor")
        #expect(Connection.Configuration().negotiatedExtensions(forOffers: offers).isEmpty)
        #expect(Connection.ExtensionHeader.parseList(["x;;"]) == nil)
    }
}
