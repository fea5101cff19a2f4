// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

@Suite("The lending face: messages lent from the loop's read buffer")
struct LendingFaceTests {
    /// A blocking client over a raw socket, driven by a core connection: it runs on the test's own
    /// thread, so that nothing of it counts on the server's loop.
    struct RawClient {
        let socket: RawSocket
        var connection: Connection

        init(port: UInt16) throws {
            socket = try RawSocket.connect(port: port)
            connection = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
            socket.write(connection.takeOutput())
            while true {
                guard let bytes = socket.read(timeout: Harness.patience), !bytes.isEmpty else { throw TestFailure("no 101") }
                connection.receive(bytes)
                if case .handshakeCompleted? = connection.nextEvent() { return }
            }
        }

        /// Sends `message` (and what is queued already) and reads until the next message arrives.
        mutating func roundTrip(_ message: WebSocketMessage?) throws -> WebSocketMessage {
            if let message { try connection.send(message) }
            socket.write(connection.takeOutput())
            while true {
                while let event = connection.nextEvent() {
                    switch event {
                    case .text(let text): return .text(text)
                    case .binary(let bytes): return .binary(bytes)
                    default: continue
                    }
                }
                guard let bytes = socket.read(timeout: Harness.patience), !bytes.isEmpty else { throw TestFailure("no echo") }
                connection.receive(bytes)
            }
        }
    }

    /// Counts the allocations a server's loop makes over `measured` echoes of 256 B, after `warm`
    /// of them: the server's handler calls ``messageArrived()`` on its loop for each message, and
    /// ``echo(port:)`` drives a raw client from a thread of its own.
    final class AllocationProbe: Sendable {
        let warm = 200, measured = 2_000
        private let counts = Locked((messages: 0, atWarm: 0 as UInt, atEnd: 0 as UInt))

        /// (On the server's loop) One more message arrived.
        func messageArrived() {
            counts.withLock { counts in
                counts.messages += 1
                if counts.messages == warm { counts.atWarm = allocation_count_for_current_thread() }
                if counts.messages == warm + measured { counts.atEnd = allocation_count_for_current_thread() }
            }
        }

        /// Echoes every message against the server on `port`; a failure, or `nil`.
        func echo(port: UInt16) async -> String? {
            let total = warm + measured
            return await blocking {
                do {
                    var client = try RawClient(port: port)
                    let message = WebSocketMessage.binary(payload(256))
                    for _ in 0..<total {
                        guard try client.roundTrip(message) == message else { return "not echoed" }
                    }
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        }

        /// The messages the server saw, and the allocations on its loop between the warm-up's end
        /// and the last measured message.
        var outcome: (messages: Int, allocations: UInt) {
            counts.withLock { ($0.messages, $0.atEnd &- $0.atWarm) }
        }
    }

    /// A lending server that echoes every message from the view it is lent, logging the other events.
    static func echoServer(configuration: Connection.Configuration = testConfiguration(), log: EventLog,
                           eventLoops: [EventLoop]? = nil,
                           onMessage: @escaping @Sendable () -> Void = {}) throws -> WebSocketServer {
        try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 16,
                            configuration: configuration, options: testOptions(), loops: 1, handshake: nil,
                            face: .lendingHandler({ socket, event in
            switch event {
            case .binary(let bytes):
                onMessage()
                try? socket.send(binary: bytes)
            case .text(let bytes):
                onMessage()
                try? socket.send(text: String(decoding: bytes, as: UTF8.self))
            case .event(let event):
                log.append(event)
            }
        }), eventLoops: eventLoops)
    }

    @Test("Messages of every size come lent and go back whole: in place, cut across reads, fragmented on the wire")
    func echoesEverySize() async throws {
        let log = EventLog()
        let server = try Self.echoServer(log: log)
        defer { server.stop() }
        let sizes = [0, 1, 125, 126, 256, 65_535, 65_536, 200_000]
        let outcome: String? = await blocking {
            do {
                var client = try RawClient(port: server.port)
                for size in sizes {
                    let bytes = payload(size, seed: UInt8(truncatingIfNeeded: size))
                    guard try client.roundTrip(.binary(bytes)) == .binary(bytes) else { return "binary \(size) not echoed" }
                    let text = String(repeating: "é", count: size / 2)
                    guard try client.roundTrip(.text(text)) == .text(text) else { return "text \(size) not echoed" }
                }
                // A message in three frames: assembled by the connection, then lent from there.
                try client.connection.sendFragment([1, 2], kind: .binary, isFinal: false)
                try client.connection.sendFragment([3], kind: .binary, isFinal: false)
                try client.connection.sendFragment([4, 5], kind: .binary, isFinal: true)
                guard try client.roundTrip(nil) == .binary([1, 2, 3, 4, 5]) else { return "fragmented message not echoed" }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == nil)
        try await log.wait(for: "the opening") { $0.contains { if case .open = $0 { true } else { false } } }
    }

    @Test("An echo in steady state allocates nothing on the loop: read, parse, lend, send, write",
          .enabled(if: allocation_counting_is_available() != 0,
                   "allocation counting interposes glibc's malloc: Linux only, and off under sanitizers"))
    func noAllocationPerEcho() async throws {
        // A loop of this test's own: its thread serves nothing else, so every allocation it counts
        // is the echo's.
        let loop = try EventLoop(index: 90, backend: ReadinessBackend.selected)
        let probe = AllocationProbe()
        let server = try Self.echoServer(log: EventLog(), eventLoops: [loop], onMessage: { probe.messageArrived() })
        defer { server.stop() }
        #expect(await probe.echo(port: server.port) == nil)
        let (messages, allocations) = probe.outcome
        #expect(messages == probe.warm + probe.measured)
        #expect(allocations == 0, "\(allocations) allocations on the loop in \(probe.measured) echoes")
    }
}
