// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketRedis

@Suite("RedisClient: the subscriber's and publisher's state machine, with scripted bytes")
struct RedisClientTests {
    static let endpoint = RedisEndpoint(address: .tcp(host: "redis", port: 6379))
    static let secured = RedisEndpoint(address: .tcp(host: "redis", port: 6379),
                                       credentials: RedisCredentials(user: "app", password: "pw"), database: 2)

    /// The commands in `bytes`, as words.
    static func commands(_ bytes: [UInt8]) throws -> [[String]] {
        try R.decodeAll(bytes).map { value in (value.elements ?? []).map { $0.string ?? "?" } }
    }

    static func events(_ client: inout RedisClient) -> [RedisClient.Event] {
        var events: [RedisClient.Event] = []
        while let event = client.nextEvent() { events.append(event) }
        return events
    }

    static let helloReply = "%1\r\n+proto\r\n:3\r\n"

    static func push(_ words: String...) -> String {
        ">\(words.count)\r\n" + words.map { $0.hasPrefix(":") ? "\($0)\r\n" : "$\($0.utf8.count)\r\n\($0)\r\n" }.joined()
    }

    static func array(_ words: String...) -> String {
        "*\(words.count)\r\n" + words.map { $0.hasPrefix(":") ? "\($0)\r\n" : "$\($0.utf8.count)\r\n\($0)\r\n" }.joined()
    }

    /// A subscriber to `channels`, ready on RESP3.
    static func readySubscriber(_ channels: Set<String>) throws -> RedisClient {
        var client = RedisClient(endpoint: endpoint, role: .subscriber, channels: channels)
        client.start()
        _ = client.takeOutput()
        client.receive(R.bytes(helloReply))
        _ = client.takeOutput()
        for (index, channel) in channels.sorted().enumerated() {
            client.receive(R.bytes(push("subscribe", channel, ":\(index + 1)")))
        }
        #expect(events(&client) == [.ready(protocolVersion: 3)])
        return client
    }

    @Test("RESP3: HELLO 3 with AUTH, SELECT, SUBSCRIBE; ready once every channel is confirmed")
    func handshakeRESP3() throws {
        var client = RedisClient(endpoint: Self.secured, role: .subscriber, channels: ["b", "a"])
        client.start()
        #expect(try Self.commands(client.takeOutput()) == [["HELLO", "3", "AUTH", "app", "pw"]])
        client.receive(R.bytes(Self.helloReply))
        #expect(try Self.commands(client.takeOutput()) == [["SELECT", "2"]])
        client.receive(R.bytes("+OK\r\n"))
        #expect(try Self.commands(client.takeOutput()) == [["SUBSCRIBE", "a", "b"]])
        client.receive(R.bytes(Self.push("subscribe", "a", ":1")))
        #expect(Self.events(&client) == [])
        // A message on a confirmed channel may come before the other confirmation.
        client.receive(R.bytes(Self.push("message", "a", "early") + Self.push("subscribe", "b", ":2")))
        #expect(Self.events(&client) == [.message(channel: R.bytes("a"), payload: R.bytes("early")), .ready(protocolVersion: 3)])
        #expect(client.isReady && client.protocolVersion == 3)
    }

    @Test("RESP2: HELLO unknown, then AUTH and SUBSCRIBE; messages as arrays, byte by byte")
    func handshakeRESP2() throws {
        let endpoint = RedisEndpoint(address: .unix(path: "/r"), credentials: RedisCredentials(password: "pw"))
        var client = RedisClient(endpoint: endpoint, role: .subscriber, channels: ["room"])
        client.start()
        _ = client.takeOutput()
        client.receive(R.bytes("-ERR unknown command 'HELLO'\r\n"))
        #expect(try Self.commands(client.takeOutput()) == [["AUTH", "pw"]])
        client.receive(R.bytes("+OK\r\n"))
        #expect(try Self.commands(client.takeOutput()) == [["SUBSCRIBE", "room"]])
        let script = Self.array("subscribe", "room", ":1") + Self.array("message", "room", "hello")
        for byte in R.bytes(script) { client.receive([byte]) }
        #expect(Self.events(&client) == [.ready(protocolVersion: 2), .message(channel: R.bytes("room"), payload: R.bytes("hello"))])
        try client.ping()
        #expect(try Self.commands(client.takeOutput()) == [["PING"]])
        #expect(client.unansweredPings == 1)
        client.receive(R.bytes(Self.array("pong", "")))
        #expect(Self.events(&client) == [.pong])
        #expect(client.unansweredPings == 0)
    }

    @Test("a wrong password fails with authenticationFailed; nothing is read after")
    func wrongPassword() throws {
        var client = RedisClient(endpoint: Self.secured, role: .publisher)
        client.start()
        _ = client.takeOutput()
        client.receive(R.bytes("-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n"))
        let events = Self.events(&client)
        #expect(events.count == 1)
        guard case .failed(let error)? = events.first else { Issue.record("no failure: \(events)"); return }
        #expect(error.code == .authenticationFailed)
        #expect(client.failure == error)
        #expect(throws: RedisError.self) { try client.publish(channel: "a", payload: [1]) }
    }

    @Test("subscribe and unsubscribe once ready; confirmations matched; a late message for a channel left is dropped")
    func subscriptions() throws {
        var client = try Self.readySubscriber(["a"])
        try client.subscribe("b")
        try client.unsubscribe("a")
        try client.subscribe("b")  // already wanted: nothing sent
        #expect(try Self.commands(client.takeOutput()) == [["SUBSCRIBE", "b"], ["UNSUBSCRIBE", "a"]])
        #expect(client.subscriptions == ["b"])
        client.receive(R.bytes(Self.push("subscribe", "b", ":2") + Self.push("message", "a", "late")
                               + Self.push("unsubscribe", "a", ":1") + Self.push("message", "b", "x")))
        #expect(Self.events(&client) == [.subscribed(channel: R.bytes("b")), .unsubscribed(channel: R.bytes("a")),
                                         .message(channel: R.bytes("b"), payload: R.bytes("x"))])
        #expect(client.pendingReplyCount == 0)
    }

    @Test("channels changed during the handshake are brought in line once ready")
    func changedDuringHandshake() throws {
        var client = RedisClient(endpoint: Self.endpoint, role: .subscriber, channels: ["a"])
        client.start()
        _ = client.takeOutput()
        try client.subscribe("c")
        try client.unsubscribe("a")
        client.receive(R.bytes(Self.helloReply))
        #expect(try Self.commands(client.takeOutput()) == [["SUBSCRIBE", "a"]])
        client.receive(R.bytes(Self.push("subscribe", "a", ":1")))
        #expect(try Self.commands(client.takeOutput()) == [["SUBSCRIBE", "c"], ["UNSUBSCRIBE", "a"]])
        #expect(Self.events(&client) == [.ready(protocolVersion: 3)])
    }

    @Test("publisher: replies matched in order, publishes refused before ready and past the limit")
    func publisher() throws {
        var limits = RedisClient.Limits(maxPendingReplies: 3)
        limits.maxOutputBytes = 1 << 20
        var client = RedisClient(endpoint: Self.endpoint, role: .publisher, limits: limits)
        client.start()
        _ = client.takeOutput()
        do {
            try client.publish(channel: "a", payload: [1])
            Issue.record("published before ready")
        } catch {
            #expect(error.code == .notReady)
        }
        client.receive(R.bytes(Self.helloReply))
        #expect(Self.events(&client) == [.ready(protocolVersion: 3)])
        try client.publish(channel: "a", payload: [0, 0xFF])
        try client.ping()
        try client.publish(channel: "b", payload: [])
        do {
            try client.publish(channel: "c", payload: [])
            Issue.record("a fourth reply awaited past maxPendingReplies 3")
        } catch {
            #expect(error.code == .limitExceeded)
        }
        #expect(try Self.commands(client.takeOutput()).map { $0.first } == ["PUBLISH", "PING", "PUBLISH"])
        client.receive(R.bytes(":2\r\n+PONG\r\n:0\r\n"))
        #expect(Self.events(&client) == [.published(receivers: 2), .pong, .published(receivers: 0)])
    }

    @Test("output past maxOutputBytes is refused, not queued")
    func outputLimit() throws {
        var client = RedisClient(endpoint: Self.endpoint, role: .publisher, usesHello: false,
                                 limits: RedisClient.Limits(maxOutputBytes: 1000))
        client.start()
        #expect(client.isReady)
        try client.publish(channel: "a", payload: [UInt8](repeating: 1, count: 500))
        #expect(throws: RedisError.self) { try client.publish(channel: "a", payload: [UInt8](repeating: 1, count: 500)) }
        #expect(client.pendingOutputCount < 1000)
    }

    static let garbage: [(String, String, RedisError.Code)] = [
        ("not RESP", "HTTP/1.1 400 Bad Request\r\n", .malformedReply),
        ("a bulk string over the limit", "$999999999\r\n", .malformedReply),
        ("an unexpected integer", ":5\r\n", .unexpectedReply),
        ("a message on a channel never subscribed", push("message", "other", "x"), .unexpectedReply),
        ("a confirmation not asked for", push("subscribe", "other", ":2"), .unexpectedReply),
        ("an unsubscription not asked for (a shard moved)", push("unsubscribe", "a", ":0"), .unexpectedReply),
        ("a pattern message", push("pmessage", "*", "a", "x"), .unexpectedReply),
        ("a pong without a ping", array("pong", ""), .unexpectedReply),
        ("an error reply", "-ERR something\r\n", .serverError),
    ]

    @Test("garbage from a ready subscriber's server ends in one clear error", arguments: 0..<garbage.count)
    func garbageToSubscriber(_ index: Int) throws {
        let (name, script, code) = Self.garbage[index]
        var client = try Self.readySubscriber(["a"])
        client.receive(R.bytes(script))
        let events = Self.events(&client)
        guard case .failed(let error)? = events.last, events.count == 1 else {
            Issue.record("\(name): \(events)")
            return
        }
        #expect(error.code == code, "\(name): \(error)")
        // Nothing after a failure: more input is ignored, no output is queued.
        client.receive(R.bytes(Self.push("message", "a", "x")))
        #expect(Self.events(&client).isEmpty)
        #expect(client.pendingOutputCount == 0)
    }

    @Test("publisher: a reply with no command, a wrong shape, an end of stream")
    func garbageToPublisher() throws {
        for (script, code) in [(":1\r\n", RedisError.Code.unexpectedReply), (">2\r\n+a\r\n+b\r\n", .unexpectedReply)] {
            var client = RedisClient(endpoint: Self.endpoint, role: .publisher)
            client.start()
            client.receive(R.bytes(Self.helloReply))
            _ = Self.events(&client)
            client.receive(R.bytes(script))
            let events = Self.events(&client)
            #expect(events.count == 1 && client.failure?.code == code, "\(script): \(events)")
        }
        var client = RedisClient(endpoint: Self.endpoint, role: .publisher)
        client.start()
        client.receive(R.bytes("%1\r\n+proto"))
        client.receiveEOF()
        #expect(client.failure?.code == .connectionClosed)
        #expect(client.failure?.reason.contains("middle of a reply") == true)
    }

    @Test("sharded: SSUBSCRIBE at the start and after, smessage delivered, SPUBLISH")
    func sharded() throws {
        var client = RedisClient(endpoint: Self.endpoint, role: .subscriber, channels: ["s"], sharded: true)
        client.start()
        client.receive(R.bytes(Self.helloReply))
        _ = client.takeOutput()
        client.receive(R.bytes(Self.push("ssubscribe", "s", ":1") + Self.push("smessage", "s", "x")))
        #expect(Self.events(&client) == [.ready(protocolVersion: 3), .message(channel: R.bytes("s"), payload: R.bytes("x"))])
        try client.subscribe("t")
        #expect(try Self.commands(client.takeOutput()) == [["SSUBSCRIBE", "t"]])
        var publisher = RedisClient(endpoint: Self.endpoint, role: .publisher, sharded: true, usesHello: false)
        publisher.start()
        try publisher.publish(channel: "s", payload: [1])
        #expect(try Self.commands(publisher.takeOutput()).first?.first == "SPUBLISH")
    }

    @Test("the envelope: text and binary, the origin, and bytes that are no envelope")
    func envelope() {
        let envelope = BackplaneEnvelope(origin: R.bytes("srv-1"), kind: .binary, payload: [0, 1, 0xFF])
        let bytes = envelope.encoded()
        #expect(bytes == [1, 2, 5] + R.bytes("srv-1") + [0, 1, 0xFF])
        #expect(BackplaneEnvelope(decoding: bytes) == envelope)
        #expect(BackplaneEnvelope(decoding: [1, 1, 0])?.payload == [])
        #expect(BackplaneEnvelope(decoding: [1, 1, 0])?.kind == .text)
        for bad: [UInt8] in [[], [1, 1], [2, 1, 0], [1, 3, 0], [1, 1, 4, 65]] {
            #expect(BackplaneEnvelope(decoding: bad) == nil, "\(bad)")
        }
        #expect(BackplaneEnvelope(origin: [UInt8](repeating: 7, count: 300), kind: .text, payload: []).origin.count == 255)
    }
}
