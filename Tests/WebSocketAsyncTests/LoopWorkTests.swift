// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
@testable import WebSocketAsync

/// Work that other threads queue on a loop (`EventLoop.execute(_:)`): a turn finds out that none
/// came without taking the queue's lock, from an atomic flag, so these check that no queued work is
/// left behind by it: not when the loop sleeps between commands, not when several threads queue at
/// once while it runs them.
@Suite("Work queued on a loop from other threads", .timeLimit(.minutes(3)))
struct LoopWorkTests {
    /// What the loop's commands saw, touched on the loop's thread only.
    private final class Seen: @unchecked Sendable {
        var next: [Int]
        var count = 0
        var outOfOrder = 0
        init(producers: Int) { next = Array(repeating: 0, count: producers) }
    }

    private static func deadline() -> Connection.Instant {
        SystemCalls.live.monotonicNow() + .seconds(60)
    }

    @Test("A command queued while the loop sleeps wakes it, every time")
    func oneAtATime() throws {
        let loop = try EventLoop(index: 95, backend: ReadinessBackend.selected)
        let ran = Locked(0)
        for round in 1...3_000 {
            loop.execute {
                ran.withLock { $0 += 1 }
                ran.broadcast()
            }
            // Waited for before the next: the loop has gone back to sleep, or is on its way.
            let arrived = ran.wait(until: { $0 >= round }, deadline: Self.deadline(), now: SystemCalls.live.monotonicNow)
            try #require(arrived, "round \(round): the command did not run")
        }
        #expect(ran.withLock { $0 } == 3_000)
    }

    @Test("Commands from several threads at once all run, each thread's in the order queued")
    func manyThreads() throws {
        let loop = try EventLoop(index: 96, backend: ReadinessBackend.selected)
        let producers = 4, each = 20_000
        let seen = Seen(producers: producers)
        let finished = Locked(false)
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<each {
                loop.execute {
                    if seen.next[producer] != index { seen.outOfOrder += 1 }
                    seen.next[producer] = index + 1
                    seen.count += 1
                    if seen.count == producers * each {
                        finished.withLock { $0 = true }
                        finished.broadcast()
                    }
                }
            }
        }
        let done = finished.wait(until: { $0 }, deadline: Self.deadline(), now: SystemCalls.live.monotonicNow)
        try #require(done, "not every command ran")
        let (count, outOfOrder, next) = try readOnLoop(loop) { (seen.count, seen.outOfOrder, seen.next) }
        #expect(count == producers * each)
        #expect(outOfOrder == 0)
        #expect(next == Array(repeating: each, count: producers))
    }

    /// Reads `body` on the loop's thread, waiting for it.
    private func readOnLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) throws -> T {
        let result = Locked<T?>(nil)
        loop.execute {
            let value = body()
            result.withLock { $0 = value }
            result.broadcast()
        }
        let read = result.wait(until: { $0 != nil }, deadline: Self.deadline(), now: SystemCalls.live.monotonicNow)
        try #require(read)
        return try #require(result.withLock { $0 })
    }
}
