// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketRedis

@Suite("Redis commands, Pub/Sub messages in RESP2 and RESP3 shapes")
struct RedisPubSubTests {
    static func command(_ command: RedisCommand) -> [UInt8] {
        var output: [UInt8] = []
        command.encode(into: &output)
        return output
    }

    static func words(_ command: RedisCommand) throws -> [String] {
        let values = try R.decodeAll(Self.command(command))
        guard values.count == 1, let elements = values[0].elements else { return [] }
        return elements.map { $0.string ?? "?" }
    }

    @Test("each command is an array of bulk strings with its words")
    func commands() throws {
        let secret = RedisCredentials(user: "app", password: "pw")
        #expect(try Self.words(.hello(protocolVersion: 3, credentials: nil)) == ["HELLO", "3"])
        #expect(try Self.words(.hello(protocolVersion: 3, credentials: secret)) == ["HELLO", "3", "AUTH", "app", "pw"])
        #expect(try Self.words(.hello(protocolVersion: 3, credentials: RedisCredentials(password: "pw")))
                == ["HELLO", "3", "AUTH", "default", "pw"])
        #expect(try Self.words(.auth(secret)) == ["AUTH", "app", "pw"])
        #expect(try Self.words(.auth(RedisCredentials(password: "pw"))) == ["AUTH", "pw"])
        #expect(try Self.words(.select(database: 12)) == ["SELECT", "12"])
        #expect(try Self.words(.subscribe(channels: ["a", "b"])) == ["SUBSCRIBE", "a", "b"])
        #expect(try Self.words(.unsubscribe(channels: [])) == ["UNSUBSCRIBE"])
        #expect(try Self.words(.shardSubscribe(channels: ["s"])) == ["SSUBSCRIBE", "s"])
        #expect(try Self.words(.shardUnsubscribe(channels: ["s"])) == ["SUNSUBSCRIBE", "s"])
        #expect(try Self.words(.ping) == ["PING"])
        #expect(Self.command(.publish(channel: "room", payload: [0, 0xFF]))
                == R.bytes("*3\r\n$7\r\nPUBLISH\r\n$4\r\nroom\r\n$2\r\n") + [0, 0xFF] + R.bytes("\r\n"))
        var direct: [UInt8] = []
        RedisCommand.appendPublish(channel: "room", payload: [0, 0xFF][...], sharded: true, to: &direct)
        #expect(direct == Self.command(.shardPublish(channel: "room", payload: [0, 0xFF])))
    }

    static let shapes: [(String, RedisPubSubMessage)] = [
        ("*3\r\n$7\r\nmessage\r\n$4\r\nroom\r\n$2\r\nhi\r\n", .message(channel: R.bytes("room"), payload: R.bytes("hi"))),
        (">3\r\n$7\r\nmessage\r\n$4\r\nroom\r\n$2\r\nhi\r\n", .message(channel: R.bytes("room"), payload: R.bytes("hi"))),
        (">3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$0\r\n\r\n", .shardMessage(channel: R.bytes("s"), payload: [])),
        ("*4\r\n$8\r\npmessage\r\n$2\r\nr*\r\n$2\r\nr1\r\n$1\r\nx\r\n",
         .patternMessage(pattern: R.bytes("r*"), channel: R.bytes("r1"), payload: R.bytes("x"))),
        ("*3\r\n$9\r\nsubscribe\r\n$4\r\nroom\r\n:1\r\n", .subscribed(kind: .channel, channel: R.bytes("room"), count: 1)),
        (">3\r\n$9\r\nsubscribe\r\n$4\r\nroom\r\n:2\r\n", .subscribed(kind: .channel, channel: R.bytes("room"), count: 2)),
        (">3\r\n$10\r\nssubscribe\r\n$1\r\ns\r\n:1\r\n", .subscribed(kind: .shardChannel, channel: R.bytes("s"), count: 1)),
        ("*3\r\n$11\r\nunsubscribe\r\n$4\r\nroom\r\n:0\r\n", .unsubscribed(kind: .channel, channel: R.bytes("room"), count: 0)),
        ("*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n", .unsubscribed(kind: .channel, channel: nil, count: 0)),
        (">3\r\n$12\r\npunsubscribe\r\n_\r\n:0\r\n", .unsubscribed(kind: .pattern, channel: nil, count: 0)),
        ("*2\r\n$4\r\npong\r\n$0\r\n\r\n", .pong([])),
    ]

    @Test("messages and confirmations, RESP2 arrays and RESP3 pushes", arguments: 0..<shapes.count)
    func classified(_ index: Int) throws {
        let (wire, expected) = Self.shapes[index]
        let value = try #require(try R.decodeOne(wire))
        #expect(try RedisPubSubMessage(value) == expected)
    }

    static let unexpected = [
        "+OK\r\n", "-ERR wrong\r\n", ":1\r\n", "*-1\r\n", "*0\r\n", "*2\r\n$7\r\nmessage\r\n$4\r\nroom\r\n",
        "*3\r\n$7\r\nMESSAGE\r\n$4\r\nroom\r\n$2\r\nhi\r\n", "*3\r\n:1\r\n$4\r\nroom\r\n$2\r\nhi\r\n",
        "*3\r\n$7\r\nmessage\r\n:4\r\n$2\r\nhi\r\n", "*3\r\n$9\r\nsubscribe\r\n$4\r\nroom\r\n$1\r\n1\r\n",
        "*3\r\n$7\r\ninvalid\r\n$4\r\nroom\r\n:1\r\n", "%1\r\n+message\r\n+x\r\n", "*4\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n",
    ]

    @Test("anything else is unexpected", arguments: unexpected)
    func unexpectedValue(_ wire: String) throws {
        let value = try #require(try R.decodeOne(wire))
        #expect(throws: RedisError.self) { try RedisPubSubMessage(value) }
        do { _ = try RedisPubSubMessage(value) } catch { #expect(error.code == .unexpectedReply) }
    }
}

@Suite("The subscriber handshake, against scripted servers")
struct RedisSubscriberHandshakeTests {
    static let ok = RESPValue.simpleString(R.bytes("OK"))
    static let helloMap = RESPValue.map([.init(key: .bulkString(R.bytes("proto")), value: .integer(3))])

    static func confirm(_ channel: String, _ count: Int64, push: Bool = true, kind: String = "subscribe") -> RESPValue {
        let elements: [RESPValue] = [.bulkString(R.bytes(kind)), .bulkString(R.bytes(channel)), .integer(count)]
        return push ? .push(elements) : .array(elements)
    }

    static func error(_ text: String) -> RESPValue { .error(R.bytes(text)) }

    @Test("RESP3 server: HELLO 3 with AUTH, SELECT, SUBSCRIBE and SSUBSCRIBE, a message before the last confirmation")
    func resp3() throws {
        let endpoint = try RedisEndpoint(parsing: "redis://app:pw@host/2")
        var handshake = RedisSubscriberHandshake(endpoint: endpoint, channels: ["a", "b"], shardChannels: ["s"])
        #expect(handshake.start() == [.hello(protocolVersion: 3, credentials: RedisCredentials(user: "app", password: "pw"))])
        #expect(handshake.start() == [])
        #expect(try handshake.receive(Self.helloMap) == .send([.select(database: 2)]))
        #expect(try handshake.receive(Self.ok) == .send([.subscribe(channels: ["a", "b"]), .shardSubscribe(channels: ["s"])]))
        #expect(try handshake.receive(Self.confirm("b", 1)) == .wait)
        let message = RESPValue.push([.bulkString(R.bytes("message")), .bulkString(R.bytes("b")), .bulkString(R.bytes("x"))])
        #expect(try handshake.receive(message) == .deliver(.message(channel: R.bytes("b"), payload: R.bytes("x"))))
        #expect(try handshake.receive(Self.confirm("a", 2)) == .wait)
        #expect(handshake.state == .awaitingSubscriptions(protocolVersion: 3, channels: [], shardChannels: [R.bytes("s")]))
        #expect(try handshake.receive(Self.confirm("s", 1, kind: "ssubscribe")) == .ready)
        #expect(handshake.state == .ready(protocolVersion: 3))
        #expect(try handshake.receive(message) == .deliver(.message(channel: R.bytes("b"), payload: R.bytes("x"))))
    }

    @Test("RESP2-only server: HELLO unknown, then AUTH and RESP2 confirmations")
    func resp2Fallback() throws {
        var handshake = RedisSubscriberHandshake(endpoint: try RedisEndpoint(parsing: "redis://:pw@host"), channels: ["a"])
        _ = handshake.start()
        #expect(try handshake.receive(Self.error("ERR unknown command 'HELLO', with args beginning with: '3'"))
                == .send([.auth(RedisCredentials(password: "pw"))]))
        #expect(handshake.state == .awaitingAuth(protocolVersion: 2))
        #expect(try handshake.receive(Self.ok) == .send([.subscribe(channels: ["a"])]))
        #expect(try handshake.receive(Self.confirm("a", 1, push: false)) == .ready)
        #expect(handshake.state == .ready(protocolVersion: 2))
    }

    @Test("HELLO answered with a RESP2 array: logged in, on RESP2, no AUTH")
    func helloAsArray() throws {
        var handshake = RedisSubscriberHandshake(endpoint: try RedisEndpoint(parsing: "redis://:pw@host"), channels: ["a"])
        _ = handshake.start()
        let reply = RESPValue.array([.bulkString(R.bytes("proto")), .integer(2)])
        #expect(try handshake.receive(reply) == .send([.subscribe(channels: ["a"])]))
        #expect(try handshake.receive(Self.confirm("a", 1, push: false)) == .ready)
        #expect(handshake.state == .ready(protocolVersion: 2))
    }

    @Test("NOPROTO and no credentials: straight to SUBSCRIBE on RESP2; usesHello false starts with AUTH")
    func noproto() throws {
        var handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .tcp(host: "h", port: 1)), channels: ["a"])
        _ = handshake.start()
        #expect(try handshake.receive(Self.error("NOPROTO unsupported protocol version")) == .send([.subscribe(channels: ["a"])]))
        var legacy = RedisSubscriberHandshake(endpoint: try RedisEndpoint(parsing: "redis://:pw@h/1"), channels: [], usesHello: false)
        #expect(legacy.start() == [.auth(RedisCredentials(password: "pw"))])
        #expect(try legacy.receive(Self.ok) == .send([.select(database: 1)]))
        #expect(try legacy.receive(Self.ok) == .ready)
    }

    @Test("wrong password: WRONGPASS to HELLO, or an error to AUTH, fails for good")
    func wrongPassword() throws {
        var handshake = RedisSubscriberHandshake(endpoint: try RedisEndpoint(parsing: "redis://u:bad@h"), channels: ["a"])
        _ = handshake.start()
        do {
            _ = try handshake.receive(Self.error("WRONGPASS invalid username-password pair or user is disabled."))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(throws: RedisError.self) { try handshake.receive(Self.ok) }
        guard case .failed(let error) = handshake.state else { Issue.record("not failed"); return }
        #expect(error.code == .authenticationFailed)

        var old = RedisSubscriberHandshake(endpoint: try RedisEndpoint(parsing: "redis://:bad@h"), channels: ["a"])
        _ = old.start()
        _ = try old.receive(Self.error("ERR unknown command 'HELLO'"))
        do {
            _ = try old.receive(Self.error("ERR invalid password"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("AUTH required and none given: NOAUTH to HELLO, or to SUBSCRIBE on an old server")
    func authRequired() throws {
        var handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r")), channels: ["a"])
        _ = handshake.start()
        do {
            _ = try handshake.receive(Self.error("NOAUTH HELLO must be called with the client already authenticated"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationRequired)
        }
        var old = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r")), channels: ["a"])
        _ = old.start()
        #expect(try old.receive(Self.error("ERR unknown command 'HELLO'")) == .send([.subscribe(channels: ["a"])]))
        do {
            _ = try old.receive(Self.error("NOAUTH Authentication required."))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationRequired)
        }
    }

    @Test("replies of the wrong shape: unexpected; another error reply: serverError")
    func unexpected() throws {
        var handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r"), database: 3), channels: ["a"])
        #expect(throws: RedisError.self) { try handshake.receive(Self.ok) }
        handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r"), database: 3), channels: ["a"])
        _ = handshake.start()
        #expect(try handshake.receive(Self.helloMap) == .send([.select(database: 3)]))
        do {
            _ = try handshake.receive(Self.error("ERR DB index is out of range"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .serverError)
        }
        handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r")), channels: ["a"])
        _ = handshake.start()
        _ = try handshake.receive(Self.helloMap)
        do {
            _ = try handshake.receive(Self.confirm("other", 1))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .unexpectedReply)
        }
        handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r")), channels: ["a"])
        _ = handshake.start()
        do {
            _ = try handshake.receive(.integer(3))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .unexpectedReply)
        }
    }
}
