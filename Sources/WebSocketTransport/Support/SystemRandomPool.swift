// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's masking keys (RFC 6455 §5.3: a fresh, unpredictable key per frame) from the system's
/// entropy source, fetched 512 bytes at a time: the standard library's `SystemRandomNumberGenerator`
/// makes one `getrandom` call per value, so one system call per frame sent, about a seventh of the
/// system calls of a small-message round trip on loopback.
///
/// A value: a copy hands out the same words as the original. The adapter never copies its connection.
package struct SystemRandomPool: RandomNumberGenerator, Sendable {
    package static let wordCount = 64
    private var words: [UInt64] = []
    private var index = 0
    /// How many times the pool was filled, for tests.
    package private(set) var refills = 0

    package init() {}

    package mutating func next() -> UInt64 {
        if index == words.count { refill() }
        defer { index &+= 1 }
        return words[index]
    }

    private mutating func refill() {
        var fresh = [UInt64](repeating: 0, count: Self.wordCount)
        let filled = fresh.withUnsafeMutableBytes { Self.fill($0) }
        if !filled {
            // No kernel entropy call (an old kernel or a sandbox): the standard library's source.
            var system = SystemRandomNumberGenerator()
            for i in fresh.indices { fresh[i] = system.next() }
        }
        words = fresh
        index = 0
        refills += 1
    }

    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress else { return true }
#if canImport(Darwin)
        arc4random_buf(base, buffer.count)
        return true
#else
        // The Glibc module does not declare getrandom(2); /dev/urandom gives the same bytes (three
        // system calls per 64 keys).
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { _ = close(fd) }
        var done = 0
        while done < buffer.count {
            let count = read(fd, base + done, buffer.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
#endif
    }
}
