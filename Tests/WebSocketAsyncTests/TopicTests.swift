// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// Topics: a server's connections subscribe and unsubscribe; a publish reaches every subscriber (on
/// every loop), in order, and nobody else; a subscriber that cannot keep up is closed with 1013
/// while the others go on; a connection that ends leaves every topic.
@Suite("WebSocketAsync topics", .timeLimit(.minutes(4)))
struct TopicTests {
    /// A server whose connections obey text commands from their clients: `sub T` and `unsub T`
    /// (answered `subscribed T`, `unsubscribed T`, or `refused T`), `say T TEXT` (published to T,
    /// the sender excluded: a publish on the loop). Its open sockets are kept by resource path.
    final class TopicServer: Sendable {
        let server: WebSocketServer
        let sockets = Watched([String: WebSocket]())
        let closed = Watched([String]())

        init(configuration: Connection.Configuration = testConfiguration(), system: SystemCalls = .live) throws {
            let box = Locked<WebSocketServer?>(nil)
            let (sockets, closed) = (self.sockets, self.closed)
            server = try shimServer(system, configuration: configuration, handler: { socket, event in
                switch event {
                case .open(let result):
                    sockets.update { $0[result.resource] = socket }
                case .message(.text(let text)):
                    let words = text.split(separator: " ", maxSplits: 2).map(String.init)
                    guard words.count >= 2 else { return }
                    switch words[0] {
                    case "sub":
                        let done = (try? socket.subscribe(words[1])) != nil
                        try? socket.send(text: done ? "subscribed \(words[1])" : "refused \(words[1])")
                    case "unsub":
                        socket.unsubscribe(words[1])
                        try? socket.send(text: "unsubscribed \(words[1])")
                    case "say":
                        box.withLock { $0 }?.publish(topic: words[1], Connection.PreparedMessage(text: words.count > 2 ? words[2] : ""),
                                                     excluding: socket)
                    default:
                        break
                    }
                case .closed:
                    let path = sockets.value.first { $0.value === socket }?.key ?? "?"
                    closed.update { $0.append(path) }
                default:
                    break
                }
            })
            box.withLock { $0 = server }
        }

        /// A client at `path`, its events in the returned log.
        func connect(_ path: String) async throws -> (WebSocket, EventLog) {
            let log = EventLog()
            let client = try shimClient(.live, port: server.port, path: path, log: log)
            try await log.waitForOpen()
            _ = try await sockets.wait(for: "the server's socket for \(path)") { $0[path] != nil }
            return (client, log)
        }

        /// Runs `body` on every loop of the server with its topic table; the results in loop order.
        func tables<T: Sendable>(_ body: @escaping @Sendable (TopicTable) -> T) async -> [T] {
            var results: [T] = []
            for (loop, table) in zip(server.core.loops, server.core.topicTables) {
                results.append(await withCheckedContinuation { continuation in
                    loop.execute { continuation.resume(returning: body(table)) }
                })
            }
            return results
        }
    }

    /// Sends `command` and waits for its answer.
    static func command(_ client: WebSocket, _ log: EventLog, _ command: String, answer: String) async throws {
        try client.send(text: command)
        try await log.wait(for: "\(answer)") { $0.contains { $0 == .message(.text(answer)) } }
    }

    @Test("Publish from another thread: each subscriber gets its topics' messages, in order, and nothing else")
    func deliveryAndOrder() async throws {
        let topics = try TopicServer()
        defer { topics.server.stop() }
        var clients: [(WebSocket, EventLog)] = []
        for index in 0..<6 { clients.append(try await topics.connect("/c\(index)")) }
        // c0, c1: a; c2, c3: b; c4: a and b; c5: nothing.
        let plan: [[String]] = [["a"], ["a"], ["b"], ["b"], ["a", "b"], []]
        for (index, wanted) in plan.enumerated() {
            for topic in wanted { try await Self.command(clients[index].0, clients[index].1, "sub \(topic)", answer: "subscribed \(topic)") }
        }
        #expect(topics.sockets.value["/c4"]?.subscriptions == ["a", "b"])
        let count = 200
        for index in 0..<count {
            topics.server.publish(topic: "a", text: "a\(index)")
            topics.server.publish(topic: "b", binary: [UInt8(truncatingIfNeeded: index), 0xB])
            topics.server.publish(topic: "nobody", text: "lost \(index)")
        }
        let aTexts = (0..<count).map { "a\($0)" }
        let bBinaries = (0..<count).map { [UInt8(truncatingIfNeeded: $0), 0xB] }
        for (index, wanted) in plan.enumerated() {
            let log = clients[index].1
            let expected = (wanted.contains("a") ? count : 0) + (wanted.contains("b") ? count : 0)
            let events = try await log.wait(for: "\(expected) messages at c\(index)") { events in
                events.filter { if case .message(let message) = $0 { message.isData } else { false } }.count >= expected + wanted.count
            }
            let texts = events.compactMap { if case .message(.text(let text)) = $0, !text.hasPrefix("subscribed") { text } else { nil } }
            #expect(texts == (wanted.contains("a") ? aTexts : []), "c\(index)")
            #expect(log.binaries == (wanted.contains("b") ? bBinaries : []), "c\(index)")
        }
        // Nothing more arrives: c5, subscribed to nothing, is asked something and answers only that.
        try await Self.command(clients[5].0, clients[5].1, "unsub a", answer: "unsubscribed a")
        #expect(clients[5].1.all.filter { if case .message = $0 { true } else { false } }.count == 1)
        for (client, _) in clients { try client.sendClose() }
        for (_, log) in clients { try await log.waitForEnd() }
    }

    @Test("No delivery after unsubscribe, and none after the connection closed; a closed socket leaves every topic")
    func unsubscribeAndClose() async throws {
        let topics = try TopicServer()
        defer { topics.server.stop() }
        let (leaver, leaverLog) = try await topics.connect("/leaver")
        let (stayer, stayerLog) = try await topics.connect("/stayer")
        for topic in ["news", "marker", "t1", "t2", "t3"] {
            try await Self.command(leaver, leaverLog, "sub \(topic)", answer: "subscribed \(topic)")
        }
        try await Self.command(stayer, stayerLog, "sub news", answer: "subscribed news")
        topics.server.publish(topic: "news", text: "before")
        try await leaverLog.wait(for: "before") { $0.contains { $0 == .message(.text("before")) } }
        try await Self.command(leaver, leaverLog, "unsub news", answer: "unsubscribed news")
        #expect(topics.sockets.value["/leaver"]?.subscriptions == ["marker", "t1", "t2", "t3"])
        // Published after the unsubscription, then a marker behind it from the same thread: once the
        // marker is there, "after" would have been too.
        topics.server.publish(topic: "news", text: "after")
        topics.server.publish(topic: "marker", text: "marker")
        try await leaverLog.wait(for: "the marker") { $0.contains { $0 == .message(.text("marker")) } }
        try await stayerLog.wait(for: "after at the stayer") { $0.contains { $0 == .message(.text("after")) } }
        #expect(!leaverLog.texts.contains("after"))

        let subscribed = await topics.tables { table in ["news", "marker", "t1"].map { table.subscriberCount(of: $0) }.reduce(0, +) }
        #expect(subscribed.reduce(0, +) == 3)  // the leaver in marker and t1, the stayer in news
        try leaver.sendClose()
        try await leaverLog.waitForEnd()
        _ = try await topics.closed.wait(for: "the leaver's end at the server") { $0.contains("/leaver") }
        // Every topic left: only the stayer's "news" remains, on its loop.
        let remaining = await topics.tables { table in table.topicCount }
        #expect(remaining.reduce(0, +) == 1)
        #expect(topics.sockets.value["/leaver"]?.subscriptions == [])
        // A subscription once ended is refused quietly, and the table stays as it is.
        #expect(try topics.sockets.value["/leaver"]?.subscribe("late") == false)
        topics.server.publish(topic: "t1", text: "to nobody")
        topics.server.publish(topic: "news", text: "last")
        try await stayerLog.wait(for: "last") { $0.contains { $0 == .message(.text("last")) } }
        #expect(await topics.tables { table in table.topicCount }.reduce(0, +) == 1)
        try stayer.sendClose()
        try await stayerLog.waitForEnd()
    }

    @Test("A publish on the loop (from a handler) reaches the subscribers on every loop but the sender; publishes from four threads each arrive in order")
    func publishFromLoopAndThreads() async throws {
        let topics = try TopicServer()
        defer { topics.server.stop() }
        var clients: [(WebSocket, EventLog)] = []
        // Enough connections that both loops (where there are two) have subscribers.
        for index in 0..<8 {
            let client = try await topics.connect("/c\(index)")
            try await Self.command(client.0, client.1, "sub room", answer: "subscribed room")
            clients.append(client)
        }
        try clients[0].0.send(text: "say room hello from c0")
        for (index, (_, log)) in clients.enumerated() where index > 0 {
            try await log.wait(for: "the chat line at c\(index)") { $0.contains { $0 == .message(.text("hello from c0")) } }
        }
        let perThread = 100
        let threads = 4
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await blocking {
                        for index in 0..<perThread { topics.server.publish(topic: "room", text: "t\(thread) \(index)") }
                    }
                }
            }
        }
        for (index, (_, log)) in clients.enumerated() {
            let events = try await log.wait(for: "every publish at c\(index)") { events in
                events.filter { if case .message(.text(let text)) = $0 { text.hasPrefix("t") } else { false } }.count >= threads * perThread
            }
            let texts = events.compactMap { if case .message(.text(let text)) = $0, text.hasPrefix("t") { text } else { nil } }
            for thread in 0..<threads {
                #expect(texts.filter { $0.hasPrefix("t\(thread) ") } == (0..<perThread).map { "t\(thread) \($0)" }, "c\(index)")
            }
        }
        #expect(!clients[0].1.texts.contains("hello from c0"))
        for (client, _) in clients { try client.sendClose() }
        for (_, log) in clients { try await log.waitForEnd() }
    }

    @Test("Many topics: 300 topics over 30 connections, each message to exactly its topic's subscribers; the per-socket limit refuses one too many")
    func manyTopics() async throws {
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = 8 << 20
        let topics = try TopicServer(configuration: configuration)
        defer { topics.server.stop() }
        var clients: [(WebSocket, EventLog)] = []
        for index in 0..<30 { clients.append(try await topics.connect("/c\(index)")) }
        // Connection i subscribes to the topics k with k % 30 == i, and k % 7 == i % 7: some topics
        // have one subscriber, some several.
        let topicCount = 300
        func subscribers(_ topic: Int) -> [Int] { (0..<30).filter { topic % 30 == $0 || topic % 7 == $0 % 7 } }
        for topic in 0..<topicCount {
            for index in subscribers(topic) { try topics.sockets.value["/c\(index)"]!.subscribe("topic-\(topic)") }
        }
        // Subscriptions from another thread reach the loop before a later publish from that thread.
        for topic in 0..<topicCount { topics.server.publish(topic: "topic-\(topic)", text: "\(topic)") }
        for index in 0..<30 {
            let expected = (0..<topicCount).filter { subscribers($0).contains(index) }.map { "\($0)" }
            let events = try await clients[index].1.wait(for: "\(expected.count) messages at c\(index)") { events in
                events.filter { if case .message = $0 { true } else { false } }.count >= expected.count
            }
            let texts = events.compactMap { if case .message(.text(let text)) = $0 { text } else { nil } }
            #expect(texts == expected, "c\(index)")
        }
        let total = await topics.tables { $0.topicCount }.reduce(0, +)
        #expect(total >= topicCount)

        // The limit: maxSubscriptions (256 by default) and maxTopicLength (512 bytes).
        let socket = topics.sockets.value["/c0"]!
        let held = socket.subscriptions.count
        for index in held..<256 { try socket.subscribe("extra-\(index)") }
        #expect(throws: WebSocketError.self) { try socket.subscribe("one too many") }
        #expect(try socket.subscribe("extra-\(held)") == false)  // already: no new subscription, no refusal
        #expect(socket.unsubscribe("extra-\(held)"))
        #expect(throws: WebSocketError.self) { try socket.subscribe(String(repeating: "x", count: 513)) }
        #expect(try socket.subscribe(String(repeating: "x", count: 512)))
        // A client's socket has no server: it cannot subscribe.
        #expect(throws: WebSocketError.self) { try clients[0].0.subscribe("client side") }
        for (client, _) in clients { try client.sendClose() }
        for (_, log) in clients { try await log.waitForEnd() }
        // A client ends once the server closed TCP, which may come before the server's socket ends.
        _ = try await topics.closed.wait(for: "every end at the server") { $0.count == 30 }
        #expect(await topics.tables { $0.topicCount }.reduce(0, +) == 0)
    }

    @Test("Leaving in any order (unsubscribes from the middle of lists, from the loop and from other threads, connections closing) keeps each topic's list and its subscribers' places in agreement; a publish reaches exactly those left")
    func leavingInAnyOrder() async throws {
        let topics = try TopicServer()
        defer { topics.server.stop() }
        let count = 12, topicCount = 6
        var clients: [(WebSocket, EventLog)] = []
        for index in 0..<count { clients.append(try await topics.connect("/c\(index)")) }
        func socket(_ index: Int) -> WebSocket { topics.sockets.value["/c\(index)"]! }
        // Everyone in every topic: half subscribe on the loop (their handler), half from here.
        for index in 0..<count {
            for topic in 0..<topicCount {
                if index % 2 == 0 {
                    try await Self.command(clients[index].0, clients[index].1, "sub t\(topic)", answer: "subscribed t\(topic)")
                } else {
                    try socket(index).subscribe("t\(topic)")
                }
            }
        }
        #expect(await topics.tables { $0.isConsistent } == topics.server.core.loops.map { _ in true })
        #expect(await topics.tables { table in (0..<topicCount).map { table.subscriberCount(of: "t\($0)") } }
            .reduce(into: [Int](repeating: 0, count: topicCount)) { sums, counts in for (i, c) in counts.enumerated() { sums[i] += c } }
            == [Int](repeating: count, count: topicCount))
        // Leaving from the middle of the lists: connection i leaves topic t when (i + t) % 3 == 0,
        // on the loop for odd i, from here for even i.
        func stays(_ index: Int, _ topic: Int) -> Bool { (index + topic) % 3 != 0 }
        for index in 0..<count {
            for topic in 0..<topicCount where !stays(index, topic) {
                if index % 2 == 1 {
                    try await Self.command(clients[index].0, clients[index].1, "unsub t\(topic)", answer: "unsubscribed t\(topic)")
                } else {
                    #expect(socket(index).unsubscribe("t\(topic)"))
                }
            }
        }
        #expect(await topics.tables { $0.isConsistent } == topics.server.core.loops.map { _ in true })
        // Connections 1, 5 and 9 close: they leave the rest of their topics.
        let closing = [1, 5, 9]
        for index in closing { try clients[index].0.sendClose() }
        for index in closing { try await clients[index].1.waitForEnd() }
        _ = try await topics.closed.wait(for: "the ends at the server") { $0.count == closing.count }
        #expect(await topics.tables { $0.isConsistent } == topics.server.core.loops.map { _ in true })
        for topic in 0..<topicCount { topics.server.publish(topic: "t\(topic)", text: "\(topic)") }
        for index in 0..<count where !closing.contains(index) {
            let expected = (0..<topicCount).filter { stays(index, $0) }.map { "\($0)" }
            let events = try await clients[index].1.wait(for: "\(expected.count) publishes at c\(index)") { events in
                events.compactMap { if case .message(.text(let text)) = $0, Int(text) != nil { text } else { nil } }.count >= expected.count
            }
            #expect(events.compactMap { if case .message(.text(let text)) = $0, Int(text) != nil { text } else { nil } } == expected, "c\(index)")
        }
        for (index, client) in clients.enumerated() where !closing.contains(index) { try client.0.sendClose() }
        for (index, client) in clients.enumerated() where !closing.contains(index) { try await client.1.waitForEnd() }
        _ = try await topics.closed.wait(for: "every end at the server") { $0.count == count }
        #expect(await topics.tables { $0.topicCount }.reduce(0, +) == 0)
    }

    @Test("A subscriber that stops reading is closed with 1013 at its buffer limit; the others keep receiving every message")
    func slowSubscriberClosed() async throws {
        let limit = 256 << 10
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = limit
        // Small kernel buffers on the server's sockets: what the slow client does not read stays in
        // the server's own buffer, where the limit counts it.
        let probe = Probe(.live, socketBuffer: 16 << 10)
        let topics = try TopicServer(configuration: configuration, system: probe.system)
        defer { topics.server.stop() }
        let (fast, fastLog) = try await topics.connect("/fast")
        try await Self.command(fast, fastLog, "sub feed", answer: "subscribed feed")

        // The slow one: a raw client that opens, subscribes, then reads nothing until the end.
        let slow = try RawSocket.connect(port: topics.server.port)
        var starting = try Connection(role: .client(Connection.ClientOptions(
            url: WebSocketURL(host: "127.0.0.1", port: topics.server.port, resource: "/slow"))))
        slow.write(starting.takeOutput())
        let handshaking = starting
        let opened = await blocking { () -> Connection? in
            var client = handshaking
            while let bytes = slow.read(timeout: Harness.patience), !bytes.isEmpty {
                client.receive(bytes)
                if case .handshakeCompleted? = client.nextEvent() { return client }
            }
            return nil
        }
        guard let slowClient = opened else { throw TestFailure("the slow client did not open") }
        try await topics.sockets.wait(for: "the slow socket") { $0["/slow"] != nil }
        let slowSocket = topics.sockets.value["/slow"]!
        try slowSocket.subscribe("feed")

        // Publish 16 KiB messages, each once the fast client has the one before (so that only the
        // slow one falls behind), until the server gives up on the slow one.
        let size = 16 << 10
        func message(_ index: Int) -> [UInt8] {
            var bytes = payload(size, seed: UInt8(truncatingIfNeeded: index))
            bytes[0] = UInt8(truncatingIfNeeded: index >> 8)
            bytes[1] = UInt8(truncatingIfNeeded: index)
            return bytes
        }
        var published = 0
        while published < 2000, case .open = slowSocket.state {
            topics.server.publish(topic: "feed", binary: message(published))
            published += 1
            let count = published
            try await fastLog.wait(for: "message \(count - 1) at the fast client") { $0.count { if case .message(.binary) = $0 { true } else { false } } >= count }
        }
        #expect(published < 2000, "the slow subscriber was never closed")
        #expect(slowSocket.subscriptions.isEmpty)
        // Memory stayed bounded: the slow socket held its limit, one message (with its header) and
        // the Close at most.
        #expect(slowSocket.bufferedAmount <= limit + size + 64)
        // The others go on (paced too: a burst over the limit, 16 of these, would close any of them).
        let total = published + 20
        for index in published..<total {
            topics.server.publish(topic: "feed", binary: message(index))
            try await fastLog.wait(for: "message \(index) at the fast client") { $0.count { if case .message(.binary) = $0 { true } else { false } } > index }
        }
        #expect(fastLog.binaries == (0..<total).map(message))

        // The slow client reads at last: a prefix of the messages, in order, then the Close: 1013.
        let (received, close) = await blocking { () -> ([[UInt8]], Connection.CloseFrame?) in
            var client = slowClient
            var received: [[UInt8]] = []
            while let bytes = slow.read(timeout: Harness.patience), !bytes.isEmpty {
                client.receive(bytes)
                while let event = client.nextEvent() {
                    switch event {
                    case .binary(let bytes): received.append(bytes)
                    case .closeReceived(let frame): return (received, frame)
                    default: break
                    }
                }
            }
            return (received, nil)
        }
        #expect(close?.code == .tryAgainLater)
        #expect(!received.isEmpty)
        #expect(received == (0..<received.count).map(message))
        slow.close()
        try fast.sendClose()
        try await fastLog.waitForEnd()
        // Counted as dropped for backpressure once its connection ended.
        _ = try await topics.closed.wait(for: "the slow socket's end") { $0.contains("/slow") }
        #expect(topics.server.metrics.droppedForBackpressure == 1)
    }

    @Test("A publisher faster than the loops: publishes past maxPublishBacklog are refused, those before delivered, and room comes back")
    func publishBacklogBounded() async throws {
        var options = testOptions()
        options.maxPublishBacklog = 64 << 10
        let (entered, gate) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        // One loop, which a client's "block" holds in its handler until the test opens the gate.
        let server = try shimServer(options: options, loops: 1, handler: { socket, event in
            switch event {
            case .open: _ = try? socket.subscribe("t")
            case .message(.text("block")):
                entered.signal()
                gate.wait()
            default: break
            }
        })
        defer { server.stop() }
        let log = EventLog()
        let client = try shimClient(.live, port: server.port, log: log)
        try await log.waitForOpen()
        try client.send(text: "block")
        await blocking { entered.wait() }

        // Each 1 KiB message is 1,028 bytes framed: 63 fit in 64 KiB while the loop is held.
        func message(_ index: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: index)] + payload(1023, seed: UInt8(truncatingIfNeeded: index)) }
        var results: [Bool] = []
        for index in 0..<80 { results.append(server.publish(topic: "t", binary: message(index))) }
        #expect(results == Array(repeating: true, count: 63) + Array(repeating: false, count: 17))
        #expect(server.core.publishBacklog.reserved == 63 * 1028)

        gate.signal()
        _ = try await log.wait(for: "the 63 messages") { $0.count { if case .message(.binary) = $0 { true } else { false } } >= 63 }
        #expect(log.binaries == (0..<63).map(message))
        // Delivered: the backlog is empty again, and a publish goes through.
        #expect(server.publish(topic: "t", binary: message(100)))
        _ = try await log.wait(for: "the next message") { $0.count { if case .message(.binary) = $0 { true } else { false } } >= 64 }
        #expect(log.binaries.last == message(100))
        #expect(server.core.publishBacklog.reserved == 0)
        try client.sendClose()
        try await log.waitForEnd()
    }

    @Test("The queue face and the async face: a socket subscribed from its queue's handler, or from its task, gets every publish in order")
    func otherFaces() async throws {
        let queueServer = try shimServer(queue: DispatchQueue(label: "topics"), handler: { socket, event in
            if case .open = event {
                _ = try? socket.subscribe("news")
                try? socket.send(text: "subscribed")
            }
        })
        defer { queueServer.stop() }
        let asyncServer = try shimAsyncServer()
        defer { asyncServer.stop() }
        let serving = Task {
            await asyncServer.run { socket in
                do {
                    try socket.subscribe("news")
                    try await socket.send(.text("subscribed"))
                    for try await _ in socket.messages {}
                } catch {
                    // The connection ended.
                }
            }
        }
        for server in [queueServer, asyncServer] {
            let log = EventLog()
            let client = try shimClient(.live, port: server.port, log: log)
            try await log.wait(for: "the subscription") { $0.contains { $0 == .message(.text("subscribed")) } }
            for index in 0..<50 { server.publish(topic: "news", text: "n\(index)") }
            let expected = ["subscribed"] + (0..<50).map { "n\($0)" }
            try await log.wait(for: "every publish") { $0.count { if case .message = $0 { true } else { false } } >= expected.count }
            #expect(log.texts == expected)
            try client.sendClose()
            try await log.waitForEnd()
        }
        asyncServer.stop()
        await serving.value
    }
}
