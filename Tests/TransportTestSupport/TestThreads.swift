// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketTransport

/// Threads of the tests' own for synchronous tests that block, off Swift's cooperative pool.
///
/// Swift Testing runs a synchronous test on the cooperative pool, which has one thread per core
/// (two here). A test that blocks (a blocking client and server on threads of their own, waits
/// for them) holds a pool thread for as long as it blocks; with both so held, no async test of the
/// run moves on, while the timers of its sockets run on the event loops. Jobs given to this
/// executor run on two threads of their own instead, in the order they came, and the pool stays for
/// the async tests, whose jobs are short. (Tests that only compute, such as the sans-I/O ones, stay
/// on the pool: they would only wait here behind the blocking ones.)
///
/// Two threads, not one per test: under ThreadSanitizer the Swift runtime takes a lock for every
/// `swift_once` (it never marks one done, so that ThreadSanitizer sees each caller synchronize with
/// the initialization), and a debug build reaches such onces on many type-metadata lookups. With
/// more busy threads than cores, a thread preempted while it holds one of those locks stalls every
/// other thread that needs it, the event loops included.
package final class TestThreads: TaskExecutor {
    /// The one instance, shared by every suite that uses ``Testing/Trait/onTestThreads``: its
    /// threads run for the life of the process.
    package static let shared = TestThreads(width: 2)

    private let jobs = Locked<[UnownedJob]>([])

    private init(width: Int) {
        for _ in 0..<width {
            do {
                try spawnDetachedThread { [self] in run() }
            } catch {
                fatalError("TestThreads: no thread: \(error)")
            }
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        jobs.broadcast()
    }

    private func run() {
        while true {
            _ = jobs.wait(until: { !$0.isEmpty }, deadline: nil, now: now)
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite (or one test) on ``TestThreads``: see there why. For synchronous tests
/// that block; an async test would hold one of the two threads across its suspensions.
package struct OnTestThreads: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?,
                              performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
    }
}

extension Trait where Self == OnTestThreads {
    /// Runs the synchronous tests of a suite, which block, on threads of the tests' own, off the
    /// cooperative pool (``TestThreads``).
    package static var onTestThreads: Self { OnTestThreads() }
}
