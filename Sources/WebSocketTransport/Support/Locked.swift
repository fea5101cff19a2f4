// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

/// A value behind a pthread mutex, with a condition variable to wait for changes of it.
///
/// The mutex and the condition live in allocated memory, never moved, as pthreads require. Waits
/// use the monotonic clock, like every deadline in this module.
///
/// The condition is made by the first wait, under the mutex: most values are never waited for (a
/// socket's shared state), and making and destroying a condition with its clock attribute, in an
/// allocation of its own, was about a thousand instructions of every connection. ``broadcast()``
/// takes the mutex too, so it sees the condition of any thread that waits.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Made by the first wait; read and written only under `mutex`.
    @exclusivity(unchecked) private var condition: UnsafeMutablePointer<pthread_cond_t>? = nil
    /// Touched only while `mutex` is held, which already excludes overlapping accesses: the
    /// runtime's exclusivity check on it would only add cost to every lock.
    @exclusivity(unchecked) private var value: Value

    /// `consuming`: taken as an ordinary (borrowed) argument, a connection's shared state was
    /// copied in and the caller's copy destroyed, about 450 instructions of every connection.
    ///
    /// `pinnedWords`: that many words, zeroed, kept in the mutex's allocation (``pinnedWords``), for
    /// an owner that needs atomics beside its lock: a connection's `WebSocket` allocated its two
    /// on their own, a `malloc` and a `free` more for every connection.
    package init(_ value: consuming Value, pinnedWords: Int = 0) {
        precondition(pinnedWords >= 0, "Locked: a negative count of pinned words")
        self.value = value
        let raw = PinnedMemory.allocateBytes(Self.wordsOffset + pinnedWords * MemoryLayout<Int>.stride)
        mutex = raw.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let mutexResult = pthread_mutex_init(mutex, nil)
        precondition(mutexResult == 0, "pthread_mutex_init failed")
        if pinnedWords > 0 {
            (raw + Self.wordsOffset).bindMemory(to: Int.self, capacity: pinnedWords).initialize(repeating: 0, count: pinnedWords)
        }
    }

    /// Where the pinned words start in the mutex's allocation: after the mutex, aligned for `Int`.
    private static var wordsOffset: Int {
        let alignment = MemoryLayout<Int>.alignment
        return (MemoryLayout<pthread_mutex_t>.stride + alignment - 1) / alignment * alignment
    }

    /// The words asked for at `init(_:pinnedWords:)`, zeroed then, never moved, valid as long as the
    /// lock is: what they hold and how they are read (atomically, under the lock) is the owner's.
    /// Only the count given at `init` may be used.
    package var pinnedWords: UnsafeMutablePointer<Int> {
        (UnsafeMutableRawPointer(mutex) + Self.wordsOffset).assumingMemoryBound(to: Int.self)
    }

    deinit {
        if let condition {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        PinnedMemory.deallocate(mutex)
    }

    /// (Under `mutex`) The condition, made at the first call.
    private func madeCondition() -> UnsafeMutablePointer<pthread_cond_t> {
        if let condition { return condition }
        let made = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        made.initialize(to: pthread_cond_t())
        #if canImport(Glibc)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let result = pthread_cond_init(made, &attributes)
        pthread_condattr_destroy(&attributes)
        #else
        let result = pthread_cond_init(made, nil)
        #endif
        precondition(result == 0, "pthread_cond_init failed")
        condition = made
        return made
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value if the lock is free now; `nil` (without running it) when another
    /// thread holds it.
    package func tryWithLock<Result>(_ body: (inout Value) -> Result) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }

    /// Wakes every thread waiting in ``wait(until:deadline:now:)``. Call it after changing what they
    /// wait for.
    package func broadcast() {
        pthread_mutex_lock(mutex)
        // No condition: no thread has ever waited, so none waits now.
        if let condition { pthread_cond_broadcast(condition) }
        pthread_mutex_unlock(mutex)
    }

    /// Waits until `isDone(value)` holds or the monotonic clock reaches `deadline` (`nil`: no limit).
    /// Returns whether `isDone` held.
    package func wait(until isDone: (Value) -> Bool, deadline: Connection.Instant?, now: () -> Connection.Instant) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isDone(value) {
            let condition = madeCondition()
            guard let deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let remaining = deadline - now()
            guard remaining > .zero else { return false }
            // A year at most per wait: the loop waits again, and the sums below cannot overflow.
            let seconds = min(remaining.components.seconds, 365 * 86_400)
            let attoseconds = remaining.components.attoseconds
            #if canImport(Glibc)
            var absolute = timespec()
            clock_gettime(CLOCK_MONOTONIC, &absolute)
            var nanoseconds = Int(absolute.tv_nsec) + Int(attoseconds / 1_000_000_000)
            var wholeSeconds = Int(absolute.tv_sec) + Int(seconds)
            if nanoseconds >= 1_000_000_000 {
                nanoseconds -= 1_000_000_000
                wholeSeconds += 1
            }
            absolute.tv_sec = wholeSeconds
            absolute.tv_nsec = nanoseconds
            pthread_cond_timedwait(condition, mutex, &absolute)
            #else
            var relative = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            pthread_cond_timedwait_relative_np(condition, mutex, &relative)
            #endif
        }
        return true
    }
}

// The value is only reached under the mutex.
extension Locked: @unchecked Sendable where Value: Sendable {}
