// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `task-resume`: what the Swift runtime alone costs the async face per message. A task that prefers
// a one-thread executor waits on an unsafe continuation; the executor's loop resumes it, runs its
// job, and the task waits again: one suspension and one resumption, as a reader of
// `socket.messages` waits for each message of a ping-pong, with none of this library's code in the
// cycle. Its baseline is the same loop calling a closure instead (what the handler face does per
// message). `--frames N` runs N resumptions: `Benchmarks/callgrind.sh task-resume` counts the
// instructions of one cycle. The executor is the benchmark's own, not the event loop: the cycle is
// the runtime's, with nothing of this package's in it.

/// A one-thread executor: jobs enqueued on its thread go to a plain array, jobs from elsewhere (the
/// task's first, at most) under a lock. Between rounds of jobs it resumes the waiting task, as an
/// event loop resumes a reader after a read.
private final class ResumeLoop: @unchecked Sendable {
    private let thread = pthread_self()
    // Unchecked, as the event loop's own state is: one thread touches it.
    @exclusivity(unchecked) private var local: [UnownedJob] = []
    @exclusivity(unchecked) private var running: [UnownedJob] = []
    private let remote = Mutex<[UnownedJob]>([])
    /// Whether `remote` may hold a job: the loop takes the lock only then, so that the cycle counts
    /// no lock of this benchmark's own.
    private let remoteQueued = Atomic<Bool>(false)
    /// The waiting task's continuation, set and taken on the loop's thread only.
    @exclusivity(unchecked) var waiter: UnsafeContinuation<Int, Never>? = nil
    @exclusivity(unchecked) var finished = false
    /// For the baseline: called where the task would be resumed.
    @exclusivity(unchecked) var handler: ((Int) -> Void)? = nil

    func submit(_ job: UnownedJob) {
        if pthread_equal(pthread_self(), thread) != 0 {
            local.append(job)
        } else {
            remote.withLock { $0.append(job) }
            remoteQueued.store(true, ordering: .releasing)
        }
    }

    /// Resumes the task `cycles` times, each with the number of cycles left, until it has finished.
    func run(cycles: Int) {
        var left = cycles
        while !finished {
            if remoteQueued.exchange(false, ordering: .acquiring) {
                local += remote.withLock { jobs in
                    defer { jobs.removeAll() }
                    return jobs
                }
            }
            while !local.isEmpty {
                swap(&local, &running)
                for job in running { run(job) }
                running.removeAll(keepingCapacity: true)
            }
            if let waiter {
                self.waiter = nil
                left -= 1
                waiter.resume(returning: left)
            } else if let handler {
                left -= 1
                handler(left)
                if left == 0 { finished = true }
            }
        }
    }

    private func run(_ job: UnownedJob) {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension ResumeLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        submit(UnownedJob(job))
    }
}

/// Waits for the loop to resume the task: `nonisolated(nonsending)`, as the async face's waits are.
private nonisolated(nonsending) func nextResumption(_ loop: ResumeLoop) async -> Int {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Int, Never>) in loop.waiter = continuation }
}

extension Workloads {
    static func taskResume() -> Workload {
        /// `cycles` suspensions and resumptions of one task on the loop (on the calling thread).
        func resumeCycles(_ cycles: Int) {
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
            let loop = ResumeLoop()
            Task(executorPreference: loop) {
                while await nextResumption(loop) > 0 {}
                loop.finished = true
            }
            loop.run(cycles: cycles)
        }
        /// The baseline: the same loop, a closure called where the task was resumed.
        func callCycles(_ cycles: Int) -> Int {
            let loop = ResumeLoop()
            var calls = 0
            loop.handler = { calls &+= $0 & 1 }
            loop.run(cycles: cycles)
            return calls
        }
        return Workload(name: "task-resume", run: {
            let count = 20_000
            let ours = Measure.rate(work: Double(count)) { resumeCycles(count) }
            let baseline = Measure.rate(work: Double(count)) { blackHole(callCycles(count)) }
            report("task-resume", ours: "\(format3(ours / 1e6)) M resumptions/s", baselineName: "a closure called",
                   theirs: "\(format3(baseline / 1e6)) M calls/s", ratio: ours / baseline)
        }, frames: { n, _ in
            resumeCycles(n)
        })
    }
}
