// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

/// `Locked`: a value behind a mutex, and the words an owner may keep pinned beside the mutex, in its
/// allocation (a connection's atomics, `init(_:pinnedWords:)`).
@Suite("Locked: a value behind a mutex, words pinned beside it")
struct LockedTests {
    @Test("Pinned words start zeroed, keep what is stored, belong to their lock alone, and stay where they are")
    func pinnedWords() {
        let locks = (0..<8).map { Locked($0, pinnedWords: 3) }
        for lock in locks {
            let words = lock.pinnedWords
            #expect((0..<3).map { words[$0] } == [0, 0, 0])
        }
        for (index, lock) in locks.enumerated() {
            for word in 0..<3 { lock.pinnedWords[word] = 100 * index + word }
        }
        // The value behind the mutex is untouched by the words beside it, and each lock's words are its own.
        for (index, lock) in locks.enumerated() {
            #expect(lock.withLock { $0 } == index)
            #expect((0..<3).map { lock.pinnedWords[$0] } == [100 * index, 100 * index + 1, 100 * index + 2])
        }
        // Locking and changing the value moves neither the words nor what they hold.
        let lock = locks[5]
        let before = lock.pinnedWords
        lock.withLock { $0 += 1000 }
        #expect(lock.pinnedWords == before)
        #expect(lock.withLock { $0 } == 1005)
        #expect((0..<3).map { lock.pinnedWords[$0] } == [500, 501, 502])
    }

    @Test("A lock without pinned words, and one waited on, work as before")
    func withoutPinnedWords() {
        let flag = Locked(false)
        #expect(flag.withLock { $0 } == false)
        flag.withLock { $0 = true }
        // The condition is made by the first wait; the value is already what is waited for.
        #expect(flag.wait(until: { $0 }, deadline: nil, now: { .zero }))
        let timedOut = Locked(0, pinnedWords: 1)
        #expect(!timedOut.wait(until: { $0 > 0 }, deadline: Connection.Instant(sinceOrigin: .zero), now: { Connection.Instant(sinceOrigin: .seconds(1)) }))
        #expect(timedOut.pinnedWords[0] == 0)
    }
}
