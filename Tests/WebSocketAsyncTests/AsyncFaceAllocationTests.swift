// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// The async face hands each message over as the reader's own value: its bytes are allocated once,
/// and no array carries a lone message across (a release build makes about 1.1 allocations per
/// echo in all, counted under callgrind).
@Suite("The async face's echo: a message's own bytes are its only allocation")
struct AsyncFaceAllocationTests {
    @Test("A binary echo through `messages` allocates no array per message on the loop, in steady state",
          .enabled(if: allocation_counting_is_available() != 0,
                   "allocation counting interposes glibc's malloc: Linux only, and off under sanitizers"))
    func oneAllocationPerEcho() async throws {
        // A loop of this test's own: every allocation it counts is the echo's (the reading task
        // runs there too, its executor preference).
        let loop = try EventLoop(index: 93, backend: ReadinessBackend.selected)
        let probe = LendingFaceTests.AllocationProbe()
        let server = try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil,
                                         backlog: 16, configuration: testConfiguration(), options: testOptions(), loops: 1,
                                         handshake: nil, face: .async(ConnectionQueue(limit: 16)), eventLoops: [loop])
        let serving = Task {
            await server.run { socket in
                do {
                    for try await message in socket.messages {
                        probe.messageArrived()
                        try await socket.send(message)
                    }
                } catch {
                    // The client's end: the socket is closed already.
                }
            }
        }
        #expect(await probe.echo(port: server.port) == nil)
        server.stop()
        await serving.value
        let (messages, allocations) = probe.outcome
        #expect(messages == probe.warm + probe.measured)
        // One per message for its bytes, and in this test's debug build one more that only the
        // debug build makes. A message taken in an array of its own costs one more: 3 per echo
        // here (dcb25ce's code), which fails this.
        #expect(allocations <= 2 * UInt(probe.measured), "\(allocations) allocations on the loop in \(probe.measured) echoes")
    }
}
