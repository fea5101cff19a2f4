// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
import WebSocketAsync
import WebSocketPOSIX
import WebSocketRedis
import WebSocketTransport

/// Topics across servers through a real Redis (issue 31): two servers, each with a
/// ``RedisBackplane`` on the same Redis, act as one room per resource path; Redis restarted in the
/// middle, both reconnect and subscribe again while their clients stay connected.
@Suite("RedisBackplane: two servers, one Redis", .enabled(if: RedisTestServer.enabled), .serialized, .onTestThreads)
struct RedisBackplaneTests {
    /// A server whose connections join the room of their resource path and publish every text
    /// message they send to it (the sender gets its own too), with a Redis backplane.
    final class RoomServer: Sendable {
        let server: WebSocketServer
        let backplane: RedisBackplane
        /// The backplane's events, in order.
        let events: Locked<[RedisBackplane.Event]>

        init(redis: RedisEndpoint) throws {
            let events = Locked([RedisBackplane.Event]())
            self.events = events
            let box = Locked<WebSocketServer?>(nil)
            let server = try WebSocketServer(port: 0) { socket, event in
                switch event {
                case .open(let result): _ = try? socket.subscribe(result.resource)
                case .message(.text(let text)):
                    guard let topic = socket.subscriptions.first else { return }
                    box.withLock { $0 }?.publish(topic: topic, text: text)
                default: break
                }
            }
            self.server = server
            box.withLock { $0 = server }
            let backplane = RedisBackplane(endpoint: redis) { event in
                events.withLock { $0.append(event) }
                events.broadcast()
            }
            self.backplane = backplane
            server.attach(backplane)
        }

        /// Waits (60 s at most) until `count` events pass `isWanted`.
        func wait(for count: Int, _ what: String, _ isWanted: @escaping (RedisBackplane.Event) -> Bool) -> Bool {
            let deadline = SystemCalls.live.monotonicNow() + .seconds(60)
            return events.wait(until: { $0.filter(isWanted).count >= count }, deadline: deadline, now: SystemCalls.live.monotonicNow)
        }

        /// Waits (60 s at most) until the backplane's statistics pass `isDone`.
        func waitForStatistics(_ isDone: (RedisBackplane.Statistics) -> Bool) -> Bool {
            let deadline = SystemCalls.live.monotonicNow() + .seconds(60)
            while !isDone(backplane.statistics) {
                guard SystemCalls.live.monotonicNow() < deadline else { return false }
                usleep(5_000)
            }
            return true
        }

        static func subscriberConnected(_ event: RedisBackplane.Event) -> Bool {
            if case .connected(.subscriber, _) = event { return true }
            return false
        }
        static func publisherConnected(_ event: RedisBackplane.Event) -> Bool {
            if case .connected(.publisher, _) = event { return true }
            return false
        }
        static func subscriberCut(_ event: RedisBackplane.Event) -> Bool {
            if case .disconnected(.subscriber, _, _) = event { return true }
            return false
        }
        static func subscribed(_ topic: String) -> (RedisBackplane.Event) -> Bool {
            { if case .subscribed(let subscribed) = $0 { return subscribed == topic } else { return false } }
        }
    }

    /// Receives `count` text messages (a minute at most for each).
    static func texts(_ count: Int, from client: BlockingWebSocket) throws -> [String] {
        var texts: [String] = []
        while texts.count < count {
            guard let message = try client.receive(timeout: .seconds(60)) else { break }
            if case .text(let text) = message { texts.append(text) }
        }
        return texts
    }

    /// Both servers up with a client each in `/room`, their subscriptions confirmed by Redis.
    static func setUp(_ redis: RedisTestServer) throws -> (RoomServer, RoomServer, BlockingWebSocket, BlockingWebSocket) {
        let one = try RoomServer(redis: redis.endpoint()), two = try RoomServer(redis: redis.endpoint())
        for server in [one, two] {
            try #require(server.wait(for: 1, "connected", RoomServer.subscriberConnected), "\(server.events.withLock { $0 })")
            try #require(server.wait(for: 1, "connected", RoomServer.publisherConnected), "\(server.events.withLock { $0 })")
        }
        let a = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(one.server.port)/room")
        let b = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(two.server.port)/room")
        for server in [one, two] {
            try #require(server.wait(for: 1, "subscribed", RoomServer.subscribed("/room")), "\(server.events.withLock { $0 })")
        }
        return (one, two, a, b)
    }

    @Test("A publish on either server reaches the subscribers of both, in order per publisher, once each")
    func twoServersOneRoom() throws {
        let redis = try RedisTestServer(password: "backplane pass")
        let (one, two, a, b) = try Self.setUp(redis)
        defer { one.server.stop(closing: .goingAway); two.server.stop(closing: .goingAway) }
        let count = 50
        for index in 0..<count { try a.send(text: "a\(index)") }
        for index in 0..<count { try b.send(text: "b\(index)") }
        for client in [a, b] {
            let texts = try Self.texts(2 * count, from: client)
            #expect(texts.filter { $0.hasPrefix("a") } == (0..<count).map { "a\($0)" })
            #expect(texts.filter { $0.hasPrefix("b") } == (0..<count).map { "b\($0)" })
        }
        // Each server skipped its own messages as Redis brought them back (after its own clients had
        // them: waited for), and delivered the other's.
        for server in [one, two] {
            #expect(server.waitForStatistics { $0.ownSkipped >= count && $0.delivered >= count })
            #expect(server.backplane.statistics.ownSkipped == count && server.backplane.statistics.delivered == count)
        }
        // Nothing more arrives: no message came twice.
        #expect(throws: WebSocketError.self) { try a.receive(timeout: .milliseconds(300)) }
    }

    @Test("Redis restarted: both servers reconnect and subscribe again; their clients stay connected and the room works again")
    func redisRestarted() throws {
        let redis = try RedisTestServer()
        let (one, two, a, b) = try Self.setUp(redis)
        defer { one.server.stop(closing: .goingAway); two.server.stop(closing: .goingAway) }
        try a.send(text: "before")
        #expect(try Self.texts(1, from: b) == ["before"])
        #expect(try Self.texts(1, from: a) == ["before"])

        redis.stop()
        for server in [one, two] { #expect(server.wait(for: 1, "cut off", RoomServer.subscriberCut)) }
        // Cut off: each server's own clients still hear each other.
        try a.send(text: "local only")
        #expect(try Self.texts(1, from: a) == ["local only"])

        try redis.start()
        for server in [one, two] {
            #expect(server.wait(for: 2, "back", RoomServer.subscriberConnected), "\(server.events.withLock { $0 })")
            #expect(server.wait(for: 2, "back", RoomServer.publisherConnected), "\(server.events.withLock { $0 })")
        }
        try b.send(text: "after")
        #expect(try Self.texts(1, from: a) == ["after"], "the first server subscribed again")
        #expect(try Self.texts(1, from: b) == ["after"])
        #expect(one.backplane.statistics.subscriber.disconnections >= 1)
    }
}
