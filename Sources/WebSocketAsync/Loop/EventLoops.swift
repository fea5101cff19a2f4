// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CWebSocketSystem
#endif
import WebSocketTransport

/// The process's event loops: one per CPU it may run on, started on first use and running for the
/// life of the process.
enum EventLoops {
    /// The loops, or why they could not be started (no descriptor or thread left).
    static let shared: Result<[EventLoop], Errno> = {
        var loops: [EventLoop] = []
        for index in 0..<defaultCount {
            do throws(Errno) {
                loops.append(try EventLoop(index: index, backend: ReadinessBackend.selected))
            } catch {
                return loops.isEmpty ? .failure(error) : .success(loops)
            }
        }
        return .success(loops)
    }()

    /// The loops, or the error as the adapter reports it.
    static func all() throws(WebSocketError) -> [EventLoop] {
        switch shared {
        case .success(let loops): return loops
        case .failure(let error): throw .transport(error)
        }
    }

    /// The CPUs the process may run on (its affinity mask on Linux, the online CPUs elsewhere), at
    /// least 1 and at most 64.
    static var defaultCount: Int {
        #if os(Linux)
        let count = Int(cwebsocket_available_cpus())
        #else
        let count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        #endif
        return min(64, max(1, count))
    }

    private static let nextClientLoop = Locked(0)

    /// The loop for a new client: each in turn.
    static func nextForClient() throws(WebSocketError) -> EventLoop {
        let loops = try all()
        let index = nextClientLoop.withLock { next in
            defer { next = (next + 1) % loops.count }
            return next
        }
        return loops[index % loops.count]
    }

    /// Whether several listening sockets can share one port and have the kernel spread connections
    /// over them (`SO_REUSEPORT` on Linux): a listener per loop. Elsewhere one loop accepts and
    /// hands connections to the others in turn; so does Linux with the `poll(2)` backend forced, so
    /// that the adapter's second test run (`WEBSOCKET_READINESS=poll`) runs the path every other
    /// system takes.
    static var kernelBalancesListeners: Bool {
        #if os(Linux)
        return ReadinessBackend.selected == .epoll
        #else
        return false
        #endif
    }
}
