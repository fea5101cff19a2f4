// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketDeflate

/// What one side of a scripted exchange did.
enum DeflateTrace: Equatable {
    case output(String, [UInt8])
    case event(String, Connection.Event)
}

@Suite("permessage-deflate agreed elsewhere: Connection(openedAs:) (RFC 7692 §7.1)")
struct OpenedDeflateTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var offer: PerMessageDeflate.Offer
        var policy: PerMessageDeflate.ServerPolicy
        /// The response element the handshake agrees on.
        var response: String
        var agreement: PerMessageDeflate.Agreement
        var testDescription: String { name }
    }

    static var cases: [Case] {
        var cases: [Case] = []
        func add(_ name: String, _ response: String, _ agreement: PerMessageDeflate.Agreement,
                 offer: (inout PerMessageDeflate.Offer) -> Void = { _ in }, policy: (inout PerMessageDeflate.ServerPolicy) -> Void = { _ in }) {
            var o = PerMessageDeflate.Offer()
            offer(&o)
            var p = PerMessageDeflate.ServerPolicy()
            policy(&p)
            cases.append(Case(name: name, offer: o, policy: p, response: response, agreement: agreement))
        }
        add("defaults", "permessage-deflate", .init())
        add("server_no_context_takeover asked", "permessage-deflate; server_no_context_takeover",
            .init(serverNoContextTakeover: true), offer: { $0.serverNoContextTakeover = true })
        add("server_no_context_takeover imposed", "permessage-deflate; server_no_context_takeover",
            .init(serverNoContextTakeover: true), policy: { $0.noContextTakeover = true })
        add("client_no_context_takeover", "permessage-deflate; client_no_context_takeover",
            .init(clientNoContextTakeover: true), offer: { $0.clientNoContextTakeover = true })
        add("both no context takeover", "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            .init(serverNoContextTakeover: true, clientNoContextTakeover: true),
            offer: { $0.serverNoContextTakeover = true; $0.clientNoContextTakeover = true })
        add("server_max_window_bits asked", "permessage-deflate; server_max_window_bits=12",
            .init(serverMaxWindowBits: 12), offer: { $0.serverMaxWindowBits = 12 })
        add("server window by policy", "permessage-deflate; server_max_window_bits=10",
            .init(serverMaxWindowBits: 10), policy: { $0.maxWindowBits = 10 })
        add("client_max_window_bits asked of the client", "permessage-deflate; client_max_window_bits=11",
            .init(clientMaxWindowBits: 11), policy: { $0.clientMaxWindowBits = 11 })
        add("client window 8 (compressed with 9)", "permessage-deflate; client_max_window_bits=8",
            .init(clientMaxWindowBits: 8), offer: { $0.clientMaxWindowBits = .bits(8) }, policy: { $0.clientMaxWindowBits = 8 })
        // The client limits its own window and the response need not repeat it.
        add("client's own window limit", "permessage-deflate", .init(clientMaxWindowBits: 10),
            offer: { $0.clientMaxWindowBits = .bits(10) })
        add("everything, low memory", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=9",
            .init(serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 9, clientMaxWindowBits: 9),
            offer: { $0 = PerMessageDeflate.lowMemory.clientOffers[0] }, policy: { $0 = PerMessageDeflate.lowMemory.serverPolicy })
        return cases
    }

    static func configurations(_ c: Case) -> (client: Connection.Configuration, server: Connection.Configuration) {
        var client = Connection.Configuration()
        client.extensions = [PerMessageDeflate(clientOffers: [c.offer])]
        var server = Connection.Configuration()
        server.extensions = [PerMessageDeflate(serverPolicy: c.policy)]
        return (client, server)
    }

    /// The handshake pair, and the opened twins made from what it agreed (the client with the
    /// generator as its handshake left it).
    static func twins(_ c: Case) throws -> [(client: Connection, server: Connection)] {
        let (clientConfig, serverConfig) = configurations(c)
        let options = Connection.ClientOptions(url: WebSocketURL(host: "example.com", port: 9001, resource: "/"))
        var client = try Connection(role: .client(options), configuration: clientConfig, random: Connection.SeededGenerator(seed: 5))
        var server = try Connection(role: .server, configuration: serverConfig)
        guard case .handshakeRequest? = pump(&client, into: &server).first else { throw TestFailure("no request") }
        try server.accept()
        guard case .handshakeCompleted(let serverResult)? = drain(&server).first else { throw TestFailure("server") }
        guard case .handshakeCompleted(let clientResult)? = pump(&server, into: &client).first else { throw TestFailure("client") }
        #expect(Connection.ExtensionHeader.headerValue(serverResult.extensions) == c.response)
        let openedClient = try Connection(openedAs: .client(options), configuration: clientConfig,
                                          extensions: clientResult.extensions, random: client.random)
        let openedServer = try Connection(openedAs: .server, configuration: serverConfig, extensions: serverResult.extensions)
        return [(client, server), (client, openedServer), (openedClient, server), (openedClient, openedServer)]
    }

    static func move(_ from: inout Connection, _ fromName: String, to: inout Connection, _ toName: String,
                     _ trace: inout [DeflateTrace]) {
        let bytes = from.takeOutput()
        trace.append(.output(fromName, bytes))
        to.receive(bytes)
        while let event = to.nextEvent() { trace.append(.event(toName, event)) }
    }

    /// Messages that compress, repeated so that context takeover shows in the bytes, fragmented, plain,
    /// and a close.
    static func script(_ c: inout Connection, _ s: inout Connection) throws -> [DeflateTrace] {
        var trace: [DeflateTrace] = []
        let text = String(repeating: "the quick brown fox jumps over the lazy dog; ", count: 40)
        for round in 0..<3 {
            try c.send(text: text + String(round))
            try s.send(text: text + String(round))
            try s.send(binary: Array(repeating: UInt8(round), count: 5000))
            move(&c, "client", to: &s, "server", &trace)
            move(&s, "server", to: &c, "client", &trace)
        }
        try c.sendFragment(Array(text.utf8), kind: .text, isFinal: false)
        try c.ping([7])
        try c.sendFragment(Array(text.utf8), kind: .text, isFinal: true)
        try s.send(text: "plain", compress: false)
        move(&c, "client", to: &s, "server", &trace)
        move(&s, "server", to: &c, "client", &trace)
        try c.send(text: text)
        try c.close(code: .normalClosure, reason: "done")
        move(&c, "client", to: &s, "server", &trace)
        move(&s, "server", to: &c, "client", &trace)
        return trace
    }

    @Test("Each agreement: opened connections in either role send and read the same bytes as after the handshake",
          arguments: cases)
    func sameBytes(_ c: Case) throws {
        let pairs = try Self.twins(c)
        var traces: [[DeflateTrace]] = []
        for (client, server) in pairs {
            var (client, server) = (client, server)
            traces.append(try Self.script(&client, &server))
        }
        for trace in traces.dropFirst() { #expect(trace == traces[0]) }
        // Compressed, in both directions: the first message's frame has RSV1 set.
        guard case .output("client", let first) = traces[0].first, case .output("server", let reply) = traces[0][2] else {
            throw TestFailure("unexpected trace")
        }
        #expect(first[0] & 0x40 == 0x40 && reply[0] & 0x40 == 0x40)
        #expect(first.count < 600)
        #expect(traces[0].last == .event("client", .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))))
    }

    @Test("Each agreement: serverAgreement(forOffers:) gives the handshake's response and its parameters", arguments: cases)
    func serverAgreement(_ c: Case) throws {
        let deflate = PerMessageDeflate(serverPolicy: c.policy)
        let offered = Connection.ExtensionHeader.headerValue([c.offer.header])
        let answer = try #require(deflate.serverAgreement(forOffers: ["x-other", offered]))
        #expect(Connection.ExtensionHeader.headerValue([answer.response]) == c.response)
        #expect(answer.agreement == c.agreement)
        // The response element reads back as the agreement, except a client limit it need not repeat.
        let read = try PerMessageDeflate.Agreement(response: answer.response)
        var expected = c.agreement
        if !c.response.contains("client_max_window_bits") { expected.clientMaxWindowBits = 15 }
        #expect(read == expected)
        #expect(try PerMessageDeflate.Agreement(response: read.header) == read)
    }

    @Test("The server helpers and an opened server, with the handshake's client")
    func helpersEndToEnd() throws {
        var config = Connection.Configuration()
        config.extensions = [PerMessageDeflate()]
        let options = Connection.ClientOptions(url: WebSocketURL(host: "example.com", port: 9001, resource: "/"))
        var client = try Connection(role: .client(options), configuration: config, random: Connection.SeededGenerator(seed: 1))
        var parser = HTTPHeadParser(kind: .request, limits: Connection.Limits())
        guard case .request(let head) = parser.consume(client.takeOutput()).outcome else { throw TestFailure("no head") }
        let request = try Connection.HandshakeRequest(validating: head)
        let answer = try request.answer(configuration: config)
        #expect(answer.headers["Sec-WebSocket-Extensions"] == "permessage-deflate")
        client.receive(answer.response)
        guard case .handshakeCompleted? = drain(&client).first else { throw TestFailure("client not open") }
        var server = try Connection(openedAs: .server, configuration: config, extensions: answer.extensions)
        try client.send(text: String(repeating: "abc", count: 100))
        let bytes = client.takeOutput()
        #expect(bytes[0] & 0x40 == 0x40)
        server.receive(bytes)
        #expect(drain(&server) == [.text(String(repeating: "abc", count: 100))])
        // RFC 8441 style: the offers alone, parsed from the header values.
        let offers = try #require(Connection.ExtensionHeader.parseList(head.headers.values(for: "Sec-WebSocket-Extensions")))
        #expect(config.negotiatedExtensions(forOffers: offers) == answer.extensions)
        #expect(config.extensionOffers == offers)
    }

    @Test("Misuse: parameters no response may hold, or none of the client's offers fits, give a clear error",
          arguments: [
            ("permessage-deflate; client_max_window_bits", "permessage-deflate: client_max_window_bits needs a value in a response"),
            ("permessage-deflate; server_max_window_bits=16", "permessage-deflate: server_max_window_bits needs a value from 8 to 15"),
            ("permessage-deflate; client_max_window_bits=7", "permessage-deflate: client_max_window_bits must be from 8 to 15"),
            ("permessage-deflate; mystery", "permessage-deflate: unknown parameter mystery"),
            ("permessage-deflate; server_no_context_takeover; server_no_context_takeover",
             "permessage-deflate: repeated parameter server_no_context_takeover"),
            ("permessage-deflate, permessage-deflate", "permessage-deflate agreed twice"),
          ])
    func serverMisuse(_ agreed: String, _ reason: String) throws {
        let config = configuration(PerMessageDeflate())
        let elements = try #require(Connection.ExtensionHeader.parseList([agreed]))
        #expect(throws: Connection.UsageError.invalidExtensionAgreement(reason)) {
            try Connection(openedAs: .server, configuration: config, extensions: elements)
        }
    }

    @Test("Misuse, client: a response outside its offers, an extension it did not configure")
    func clientMisuse() throws {
        let options = Connection.ClientOptions(url: WebSocketURL(host: "example.com", port: 9001, resource: "/"))
        var offer = PerMessageDeflate.Offer()
        offer.clientMaxWindowBits = .unspecified
        let config = configuration(PerMessageDeflate(clientOffers: [offer]))
        #expect(throws: Connection.UsageError.invalidExtensionAgreement("permessage-deflate response fits none of the offers")) {
            try Connection(openedAs: .client(options), configuration: config,
                           extensions: [Connection.ExtensionHeader(name: "permessage-deflate", parameters: [.init(name: "client_max_window_bits", value: "10")])])
        }
        #expect(throws: Connection.UsageError.extensionNotOffered("permessage-deflate")) {
            try Connection(openedAs: .client(options), extensions: [Connection.ExtensionHeader(name: "permessage-deflate")])
        }
        #expect(throws: Connection.ExtensionNegotiationError("x-other is not permessage-deflate")) {
            try PerMessageDeflate.Agreement(response: Connection.ExtensionHeader(name: "x-other"))
        }
        #expect(PerMessageDeflate().serverAgreement(forOffers: ["permessage-deflate; mystery"]) == nil)
        #expect(PerMessageDeflate().serverAgreement(forOffers: ["bad;;"]) == nil)
    }
}
