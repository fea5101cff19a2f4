// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// The backplane seam (issue 31): servers attached to one bus act as one for topics. A publish goes
/// to the server's own subscribers and to the bus; what the bus brings goes to the server's own
/// subscribers only; the bus hears of topics as they get their first subscriber and lose their
/// last. The bus here is in memory; WebSocketRedisTests run the same against Redis.
@Suite("WebSocketAsync topics across servers (backplane)", .timeLimit(.minutes(4)))
struct BackplaneTests {
    /// Backplanes that carry each message to every other member subscribed to its topic, never back
    /// to its publisher (as a real bus's conformance must arrange).
    final class MemoryBus: Sendable {
        let members = Locked<[MemoryBackplane]>([])

        func carry(_ message: BackplaneMessage, from publisher: MemoryBackplane) {
            for member in members.withLock({ $0 }) where member !== publisher { member.bring(message) }
        }
    }

    final class MemoryBackplane: TopicBackplane {
        let bus: MemoryBus
        /// What the server called, in order: `start`, `sub T`, `unsub T`, `publish T`, `stop`.
        let calls = Watched([String]())
        let deliver = Locked<(@Sendable (BackplaneMessage) -> Void)?>(nil)
        let topics = Locked(Set<String>())

        init(bus: MemoryBus) {
            self.bus = bus
            bus.members.withLock { $0.append(self) }
        }

        func start(delivering deliver: @escaping @Sendable (BackplaneMessage) -> Void) {
            self.deliver.withLock { $0 = deliver }
            calls.update { $0.append("start") }
        }
        func subscribe(_ topic: String) {
            topics.withLock { _ = $0.insert(topic) }
            calls.update { $0.append("sub \(topic)") }
        }
        func unsubscribe(_ topic: String) {
            topics.withLock { _ = $0.remove(topic) }
            calls.update { $0.append("unsub \(topic)") }
        }
        func publish(_ message: BackplaneMessage) {
            calls.update { $0.append("publish \(message.topic)") }
            bus.carry(message, from: self)
        }
        func stop() {
            deliver.withLock { $0 = nil }
            calls.update { $0.append("stop") }
        }
        /// A message from the bus: delivered if this server wants its topic.
        func bring(_ message: BackplaneMessage) {
            guard topics.withLock({ $0.contains(message.topic) }) else { return }
            deliver.withLock { $0 }?(message)
        }
    }

    typealias TopicServer = TopicTests.TopicServer

    static func subscribe(_ client: (WebSocket, EventLog), to topic: String) async throws {
        try await TopicTests.command(client.0, client.1, "sub \(topic)", answer: "subscribed \(topic)")
    }

    @Test("Two servers on one bus: a publish on either reaches every subscriber of both once, in order, and nobody else")
    func twoServersActAsOne() async throws {
        let bus = MemoryBus()
        let (one, two) = (try TopicServer(), try TopicServer())
        defer { one.server.stop(); two.server.stop() }
        #expect(one.server.attach(MemoryBackplane(bus: bus)))
        #expect(two.server.attach(MemoryBackplane(bus: bus)))
        let a1 = try await one.connect("/a1"), b1 = try await two.connect("/b1"), b2 = try await two.connect("/b2")
        try await Self.subscribe(a1, to: "t")
        try await Self.subscribe(b1, to: "t")
        try await Self.subscribe(b2, to: "u")

        let count = 100
        for index in 0..<count { one.server.publish(topic: "t", text: "one \(index)") }
        for index in 0..<count { two.server.publish(topic: "t", binary: [UInt8(index), 2]) }
        // A client's publish on the second server (the sender excluded) reaches the first's subscriber.
        try b1.0.send(text: "say t from b1")
        let expectedText = (0..<count).map { WebSocketMessage.text("one \($0)") }
        let expectedBinary = (0..<count).map { WebSocketMessage.binary([UInt8($0), 2]) }
        // a1: its subscription's answer, both servers' publishes, b1's message; b1 the same but its own.
        for client in [a1, b1] {
            let wanted = 2 * count + (client.0 === a1.0 ? 2 : 1)
            let all = try await client.1.wait(for: "the publishes") { events in
                events.filter { if case .message = $0 { true } else { false } }.count >= wanted
            }
            let received = all.compactMap { if case .message(let message) = $0 { message } else { nil } }
                .filter { if case .text(let text) = $0 { !text.hasPrefix("subscribed") } else { true } }
            #expect(received.filter { if case .text(let text) = $0 { text.hasPrefix("one ") } else { false } } == expectedText)
            #expect(received.filter { if case .binary = $0 { true } else { false } } == expectedBinary)
            let fromB1 = received.filter { $0 == .text("from b1") }.count
            #expect(fromB1 == (client.0 === a1.0 ? 1 : 0), "the sender is excluded, the other server's subscriber gets it once")
        }
        // b2 (topic u) got nothing; a late check after everything else arrived.
        let b2Messages = b2.1.value.compactMap { if case .message(let message) = $0 { message } else { nil } }
        #expect(b2Messages == [.text("subscribed u")])
    }

    @Test("The bus hears of a topic when it gets its first subscriber on the server and loses its last")
    func interestFollowsSubscribers() async throws {
        let bus = MemoryBus()
        let server = try TopicServer()
        defer { server.server.stop() }
        let first = try await server.connect("/first")
        try await Self.subscribe(first, to: "early")
        // Attached after a subscription: told of it right after start.
        let backplane = MemoryBackplane(bus: bus)
        #expect(server.server.attach(backplane))
        #expect(backplane.calls.value == ["start", "sub early"])
        #expect(!server.server.attach(MemoryBackplane(bus: bus)), "one bus per server")

        let second = try await server.connect("/second")
        try await Self.subscribe(first, to: "t")
        try await Self.subscribe(second, to: "t")
        try await TopicTests.command(first.0, first.1, "unsub t", answer: "unsubscribed t")
        #expect(backplane.calls.value == ["start", "sub early", "sub t"], "a second subscriber, or one of two leaving, changes nothing")
        // The last subscriber of t leaves by closing; the last of early by unsubscribing.
        second.0.cancel()
        _ = try await backplane.calls.wait(for: "unsub t") { $0.contains("unsub t") }
        try await TopicTests.command(first.0, first.1, "unsub early", answer: "unsubscribed early")
        #expect(backplane.calls.value == ["start", "sub early", "sub t", "unsub t", "unsub early"])

        server.server.detachBackplane()
        #expect(backplane.calls.value.last == "stop")
        server.server.publish(topic: "early", text: "after detaching")
        #expect(!backplane.calls.value.contains("publish early"), "a detached bus gets nothing")
    }

    @Test("From the bus: text that is not UTF-8 is dropped, the rest reaches the subscribers, and nothing goes back to the bus")
    func fromTheBus() async throws {
        let bus = MemoryBus()
        let server = try TopicServer()
        defer { server.server.stop() }
        let backplane = MemoryBackplane(bus: bus)
        server.server.attach(backplane)
        let client = try await server.connect("/c")
        try await Self.subscribe(client, to: "t")
        let other = MemoryBackplane(bus: bus)   // another server's end of the bus
        other.publish(BackplaneMessage(topic: "t", kind: .text, payload: [0xC3, 0x28]))   // not UTF-8
        other.publish(BackplaneMessage(topic: "t", kind: .text, payload: Array("héllo".utf8)))
        other.publish(BackplaneMessage(topic: "t", kind: .binary, payload: [0xC3, 0x28]))
        let events = try await client.1.wait(for: "two messages from the bus") { events in
            events.filter { if case .message = $0 { true } else { false } }.count >= 3
        }
        let messages = events.compactMap { if case .message(let message) = $0 { message } else { nil } }
        #expect(messages == [.text("subscribed t"), .text("héllo"), .binary([0xC3, 0x28])])
        #expect(!backplane.calls.value.contains("publish t"), "what the bus brought did not go back to it")

        // A stop that closes the connections stops the bus.
        server.server.stop(closing: .goingAway)
        #expect(backplane.calls.value.last == "stop")
    }
}
