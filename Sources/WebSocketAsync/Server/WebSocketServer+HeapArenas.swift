// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if os(Linux) && canImport(Glibc)
import CWebSocketSystem  // malloc.h, which the Glibc module does not bring
#endif

extension WebSocketServer {
    /// Has every thread of the process allocate from one heap (glibc's main malloc arena), for a
    /// process that is mostly a server: call it first thing in `main`, before any thread starts.
    ///
    /// glibc gives each thread that allocates its own arena, as many as eight per core. An event
    /// loop's connections then sit in its own arena, and what a burst of handshakes freed there
    /// stays mapped between the chunks still live: after 16 handshakes at a time on two loops, the
    /// two loops' arenas held 364 KiB, 120 KiB of it in use. With one arena the freed memory is reused
    /// by every loop, and the echo server's private memory after that workload fell from 1,012 KiB
    /// to 852 KiB (docs/performance.md, "One heap, no retain per message"). A loop allocates nothing
    /// per message in steady state, so the one arena's lock is taken per connection, not per message.
    ///
    /// The setting is the process's: a library that embeds a server leaves it to the application.
    /// The same is had without code through the environment, `MALLOC_ARENA_MAX=1`.
    ///
    /// - Returns: whether the setting took: `false` where the C library is not glibc, whose
    ///   allocators keep no per-thread arenas of this kind.
    @discardableResult
    public static func useOneHeapArena() -> Bool {
        #if os(Linux) && canImport(Glibc)
        return mallopt(M_ARENA_MAX, 1) == 1
        #else
        return false
        #endif
    }
}
