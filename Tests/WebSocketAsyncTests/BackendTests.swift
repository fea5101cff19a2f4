// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import WebSocketAsync

/// CI runs this suite twice on Linux, the second time with `WEBSOCKET_READINESS=poll`: this says the
/// loops really run on the backend asked for, so the second run is the portable code.
@Suite("Readiness backend")
struct BackendTests {
    @Test("The loops use poll(2) when WEBSOCKET_READINESS=poll, epoll otherwise on Linux, poll elsewhere")
    func backendFollowsTheEnvironment() throws {
        let asked = getenv("WEBSOCKET_READINESS").map { String(cString: $0) }
        #if os(Linux)
        let expected: ReadinessBackend = asked == "poll" ? .poll : .epoll
        #else
        let expected = ReadinessBackend.poll
        #endif
        #expect(ReadinessBackend.selected == expected)
        let loops = try EventLoops.all()
        #expect(!loops.isEmpty)
        for loop in loops {
            switch expected {
            case .poll: #expect(loop.readiness is PollReadiness)
            case .epoll:
                #if os(Linux)
                #expect(loop.readiness is EpollReadiness)
                #endif
            }
        }
        // With poll, a server accepts on one loop and hands connections out, as off Linux.
        #expect(EventLoops.kernelBalancesListeners == (expected == .epoll))
        print("readiness backend: \(ReadinessBackend.selected.rawValue), \(loops.count) loops")
    }
}
