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
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// The queue face hands a socket's events to the queue you name through the socket's mailbox: one
/// drain at a time, so that the handler's calls for one socket never overlap and keep their order,
/// even on a concurrent queue; what arrives while the handler runs waits in the mailbox.
@Suite("The queue face's mailbox")
struct QueueFaceTests {
    /// Counts the handler's calls that ran while another call for the same socket was running.
    final class OverlapProbe: Sendable {
        private let inside = Locked(0)
        private let overlaps = Locked(0)

        func enter() {
            let depth = inside.withLock { depth in
                depth += 1
                return depth
            }
            if depth > 1 { overlaps.withLock { $0 += 1 } }
        }

        func leave() { inside.withLock { $0 -= 1 } }

        var count: Int { overlaps.withLock { $0 } }
    }

    /// Waits (on the handler's thread, as a slow handler would) until `socket`'s mailbox holds at
    /// least `count` deliveries: the loop went on reading while the handler was busy. At most 60 s.
    static func waitForMailbox(of socket: WebSocket, toHold count: Int) -> Bool {
        let deadline = DispatchTime.now() + .seconds(60)
        while socket.shared.withLock({ $0.mailbox.count }) < count {
            if DispatchTime.now() > deadline { return false }
            sched_yield()
        }
        return true
    }

    @Test("A burst to a client on a concurrent queue: the handler's calls never overlap, every message comes in order, after piling up in the mailbox")
    func burstOnConcurrentQueue() async throws {
        try await withServer(.loop) { server in
            let count = 3_000
            let queue = DispatchQueue(label: "mailbox burst", attributes: .concurrent)
            let probe = OverlapProbe()
            let log = Transcript()
            let piledUp = Locked<Bool?>(nil)
            let socket = try WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                               options: Harness.options(), queue: queue) { socket, event in
                probe.enter()
                defer { probe.leave() }
                switch event {
                case .open:
                    for index in 0..<20 { try? socket.send(text: "\(index)") }
                case .message(.text("10")):
                    // A slow handler: the echoes of what it sends now pile up in the mailbox
                    // meanwhile (more than the rounds of one drain), and are handed out in later
                    // rounds.
                    for index in 20..<count { try? socket.send(text: "\(index)") }
                    piledUp.withLock { $0 = QueueFaceTests.waitForMailbox(of: socket, toHold: 200) }
                default:
                    break
                }
                log.append(event)
            }
            let events = try await log.wait(for: "\(count) echoes") { events in
                events.count { if case .message = $0 { true } else { false } } >= count
            }
            let texts = events.compactMap { event -> String? in
                if case .message(.text(let text)) = event { text } else { nil }
            }
            #expect(texts == (0..<count).map { "\($0)" })
            #expect(piledUp.withLock { $0 } == true)
            #expect(probe.count == 0)
            // The pile-up left no peak allocated: the mailbox's arrays keep room for a few hundred.
            let kept = await socket.onLoopAwaited { [socket] in
                max(socket.queueBatch.capacity, socket.outboxTaken.capacity, socket.shared.withLock { $0.mailbox.capacity })
            }
            #expect(kept <= WebSocket.keptCapacity)
            try socket.sendClose()
            try await log.wait(for: "the close") { $0.contains(where: Harness.isEnd) }
            #expect(probe.count == 0)
        }
    }

    @Test("An awaited ping's answer comes through the mailbox, in order with the messages around it")
    func pongInOrder() async throws {
        try await withServer(.loop) { server in
            let queue = DispatchQueue(label: "mailbox pong", attributes: .concurrent)
            let probe = OverlapProbe()
            let log = Transcript()
            let socket = try WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                               options: Harness.options(), queue: queue) { socket, event in
                probe.enter()
                defer { probe.leave() }
                log.append(event)
                switch event {
                case .open:
                    try? socket.send(text: "before")
                case .message(.text("before")):
                    // The server reads the ping before "after": its pong comes back first.
                    socket.ping(timeout: .seconds(60)) { result in
                        probe.enter()
                        defer { probe.leave() }
                        log.append(.message(.text(result.isSuccess ? "pong" : "no pong: \(result)")))
                    }
                    try? socket.send(text: "after")
                default:
                    break
                }
            }
            let events = try await log.wait(for: "the pong and the echo after it") { events in
                events.contains(.message(.text("after")))
            }
            let texts = events.compactMap { event -> String? in
                if case .message(.text(let text)) = event { text } else { nil }
            }
            #expect(texts == ["before", "pong", "after"])
            #expect(probe.count == 0)
            try socket.sendClose()
            try await log.wait(for: "the close") { $0.contains(where: Harness.isEnd) }
        }
    }

    @Test("A queue-face server without a handshake closure accepts on the loop: a client opens while the queue is held, the open event waits for the queue")
    func handshakeWithoutTheQueue() async throws {
        let queue = DispatchQueue(label: "held")
        queue.suspend()
        let serverLog = Transcript()
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options(), queue: queue) { _, event in
            serverLog.append(event)
        }
        defer { server.stop() }
        let client = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                 options: Harness.options())
        #expect(client.state == .open)
        #expect(serverLog.events.isEmpty)
        queue.resume()
        try await serverLog.wait(for: "the open event") { $0.contains { if case .open = $0 { true } else { false } } }
        _ = try await client.close()
    }

    @Test("A ping asked for after the end is answered: on the queue, through the mailbox, for a queue-face socket; on the loop, from the loop")
    func pingAfterTheEnd() async throws {
        try await withServer(.loop) { server in
            let queue = DispatchQueue(label: "late pong")
            let key = DispatchSpecificKey<Int>()
            queue.setSpecific(key: key, value: 1)
            let log = Transcript()
            let onQueue = try WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                options: Harness.options(), queue: queue) { socket, event in
                log.append(event)
                if case .open = event { try? socket.sendClose() }
            }
            try await log.wait(for: "the end") { $0.contains(where: Harness.isEnd) }
            let answers = Transcript()
            onQueue.ping(timeout: .seconds(60)) { result in
                let ranOnQueue = DispatchQueue.getSpecific(key: key) == 1
                answers.append(.message(.text(ranOnQueue && !result.isSuccess ? "queue: refused" : "queue: \(ranOnQueue) \(result)")))
            }
            try await answers.wait(for: "the queue face's answer") { !$0.isEmpty }
            #expect(answers.messages == [.text("queue: refused")])

            // On the loop (a handler or a task there asks): the answer comes from the loop too.
            let onLoop = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                     options: Harness.options())
            _ = try await onLoop.close()
            let loopAnswers = Transcript()
            await onLoop.onLoopAwaited { [onLoop] in
                onLoop.ping(timeout: .seconds(60)) { result in
                    loopAnswers.append(.message(.text(onLoop.loop.inLoop && !result.isSuccess ? "loop: refused" : "loop: \(result)")))
                }
            }
            try await loopAnswers.wait(for: "the loop's answer") { !$0.isEmpty }
            #expect(loopAnswers.messages == [.text("loop: refused")])
        }
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
