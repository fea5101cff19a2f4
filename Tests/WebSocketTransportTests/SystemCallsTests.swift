// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SystemCalls: one shared table, copied on write")
struct SystemCallsTests {
    static let first = Connection.Instant(sinceOrigin: .seconds(1))
    static let second = Connection.Instant(sinceOrigin: .seconds(2))

    @Test("A call replaced in a copy changes that copy only: not the live calls, not the copy it came from")
    func replacedInACopyOnly() {
        var changed = SystemCalls.live
        changed.monotonicNow = { Self.first }
        var later = changed
        later.monotonicNow = { Self.second }

        #expect(changed.monotonicNow() == Self.first)
        #expect(later.monotonicNow() == Self.second)
        // The live clock is the system's monotonic clock, past both fixed instants after boot.
        #expect(SystemCalls.live.monotonicNow() != Self.first)
        #expect(SystemCalls.live.monotonicNow() != Self.second)
    }

    @Test("A socket reads and writes through the calls it was given, replaced ones included")
    func socketUsesItsCalls() throws {
        let counts = Counts()
        var system = SystemCalls.live
        let receive = system.receive
        let send = system.send
        system.receive = { fd, buffer, count in
            counts.add(received: 1)
            return receive(fd, buffer, count)
        }
        system.send = { fd, buffer, count in
            counts.add(sent: 1)
            return send(fd, buffer, count)
        }
        var fds: [Int32] = [0, 0]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        try #require(socketpair(AF_UNIX, type, 0, &fds) == 0)
        let writer = Socket(adopting: fds[0], system: system)
        let reader = Socket(adopting: fds[1], system: system)
        let message: [UInt8] = [1, 2, 3]
        let wrote = try message.withUnsafeBytes { bytes throws(Errno) in try writer.writeSome(bytes) }
        #expect(wrote == 3)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        let outcome = try reader.read(into: buffer)
        #expect(outcome == .bytes(3))
        #expect(counts.values.received == 1)
        #expect(counts.values.sent == 1)
    }
}

/// Calls counted from the replaced closures (which are `@Sendable`).
private final class Counts: Sendable {
    private let counts = Locked((received: 0, sent: 0))

    func add(received: Int = 0, sent: Int = 0) {
        counts.withLock {
            $0.received += received
            $0.sent += sent
        }
    }

    var values: (received: Int, sent: Int) { counts.withLock { $0 } }
}
