// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// The loop handler's binary messages come in an array the loop reuses once the handler is done
/// with it: an echo allocates nothing, and a message the handler keeps stays what it was.
@Suite("The loop handler's binary messages: one array, reused while no handler keeps it")
struct HandlerRecyclingTests {
    /// A server on `loop` whose loop handler gives every binary message to `onMessage`.
    static func server(loop: EventLoop, log: EventLog,
                       onMessage: @escaping @Sendable (WebSocket, [UInt8]) -> Void) throws -> WebSocketServer {
        try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 16,
                            configuration: testConfiguration(), options: testOptions(), loops: 1, handshake: nil,
                            face: .loopHandler({ socket, event in
            if case .message(.binary(let bytes)) = event {
                onMessage(socket, bytes)
            } else {
                log.append(event)
            }
        }), eventLoops: [loop])
    }

    @Test("A binary echo on the loop handler allocates nothing on the loop in steady state",
          .enabled(if: allocation_counting_is_available() != 0,
                   "allocation counting interposes glibc's malloc: Linux only, and off under sanitizers"))
    func noAllocationPerEcho() async throws {
        // A loop of this test's own: every allocation it counts is the echo's.
        let loop = try EventLoop(index: 91, backend: ReadinessBackend.selected)
        let probe = LendingFaceTests.AllocationProbe()
        let server = try Self.server(loop: loop, log: EventLog()) { socket, bytes in
            probe.messageArrived()
            try? socket.send(binary: bytes)
        }
        defer { server.stop() }
        #expect(await probe.echo(port: server.port) == nil)
        let (messages, allocations) = probe.outcome
        #expect(messages == probe.warm + probe.measured)
        #expect(allocations == 0, "\(allocations) allocations on the loop in \(probe.measured) echoes")
    }

    @Test("Messages a handler keeps stay what arrived, whatever comes after them; the echoes are right too")
    func keptMessagesStayIntact() async throws {
        let loop = try EventLoop(index: 92, backend: ReadinessBackend.selected)
        let seen = Locked(0)
        let kept = Locked<[[UInt8]]>([])
        // Every other message kept: the loop's array goes back to it free after one message, and
        // stays the handler's after the next.
        let server = try Self.server(loop: loop, log: EventLog()) { socket, bytes in
            let index = seen.withLock { seen in
                defer { seen += 1 }
                return seen
            }
            if index % 2 == 0 { kept.withLock { $0.append(bytes) } }
            try? socket.send(binary: bytes)
        }
        defer { server.stop() }
        // Sizes that shrink and grow, so that a reused array is both longer and shorter than the
        // next message; each payload distinct.
        let sent = (0..<300).map { index in payload([256, 17, 1_000, 0, 4_096, 300][index % 6], seed: UInt8(truncatingIfNeeded: index)) }
        let outcome: String? = await blocking {
            do {
                var client = try LendingFaceTests.RawClient(port: server.port)
                for (index, bytes) in sent.enumerated() {
                    guard try client.roundTrip(.binary(bytes)) == .binary(bytes) else { return "echo \(index) differs" }
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == nil)
        let received = kept.withLock { $0 }
        let expected = sent.indices.filter { $0 % 2 == 0 }.map { sent[$0] }
        #expect(received.count == expected.count)
        #expect(received == expected, "a kept message changed after the handler returned")
    }
}
