// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
import WebSocketCore
import WebSocketTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `websocket serve` keeps one heap for all its loops (`WebSocketServer.useOneHeapArena()`): glibc
/// would give each loop thread an arena of its own, and what a loop's connections freed there stays
/// mapped between the chunks still live.
@Suite("serve: one heap for every loop", .onTestThreads)
struct ServeHeap_Tests {
    /// The start addresses of glibc's per-thread heaps in process `pid`'s mappings: an anonymous
    /// read-write mapping at a multiple of 64 MiB (glibc's `HEAP_MAX_SIZE`), whose reservation
    /// (the mapping itself, or it and the inaccessible mapping right after it) spans those 64 MiB.
    static func secondaryHeaps(of pid: pid_t) throws -> [UInt64] {
        let heapSize: UInt64 = 64 << 20
        let text = try TemporaryDirectory.contents(of: "/proc/\(pid)/maps").text
        let mappings = text.split(separator: "\n").compactMap { line -> (start: UInt64, end: UInt64, perms: Substring, anonymous: Bool)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16) else { return nil }
            return (start, end, fields[1], fields.count == 5)
        }
        var heaps: [UInt64] = []
        for (index, mapping) in mappings.enumerated()
        where mapping.anonymous && mapping.perms.hasPrefix("rw") && mapping.start % heapSize == 0 {
            var end = mapping.end
            if index + 1 < mappings.count, mappings[index + 1].anonymous, mappings[index + 1].perms.hasPrefix("---"),
               mappings[index + 1].start == end {
                end = mappings[index + 1].end
            }
            if end - mapping.start == heapSize { heaps.append(mapping.start) }
        }
        return heaps
    }

    @Test("After connections on every loop, serve's process has no per-thread heap",
          .enabled(if: allocation_counting_is_available() != 0,
                   "glibc's malloc must be the allocator: Linux, and not under a sanitizer, which brings its own"),
          .enabled(if: getenv("MALLOC_ARENA_MAX") == nil,
                   "MALLOC_ARENA_MAX in the environment sets the arenas of this process and of serve alike"))
    func oneHeap() throws {
        // The detector finds what it looks for: this test process, whose many threads allocate, has such heaps.
        #expect(try !Self.secondaryHeaps(of: getpid()).isEmpty, "the detector found no per-thread heap in the test process")
        let serve = try ServeProcess(["--echo"])
        // Connections come to the loops in turn: a few per loop, each echoing, all open at once.
        let clients = try (0..<8).map { index in
            let client = try serve.connect("/heap/\(index)")
            try client.send(binary: [UInt8](repeating: UInt8(index), count: 4_096))
            return client
        }
        for (index, client) in clients.enumerated() {
            #expect(try client.receive() == .binary([UInt8](repeating: UInt8(index), count: 4_096)))
        }
        let heaps = try Self.secondaryHeaps(of: serve.tool.pid)
        #expect(heaps.isEmpty, "per-thread heaps at \(heaps.map { String($0, radix: 16) })")
        for client in clients { try client.close() }
    }
}
