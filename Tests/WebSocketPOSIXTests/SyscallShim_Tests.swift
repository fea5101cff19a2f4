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
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

/// The socket layer under forced EINTR, EAGAIN and short writes (swift-system style mocking).
@Suite("System call shim: EINTR retried, EAGAIN waited for, short writes completed", .onTestThreads)
struct SyscallShimTests {
    @Test("EINTR on read is retried")
    func readInterrupted() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        try peer.writeAll(Array("abc".utf8))
        faults.plan(.receive, [.interrupt, .interrupt])
        #expect(try socket.readSome() == Array("abc".utf8))
        #expect(faults.calls(.receive) == 3)
    }

    @Test("EINTR and short writes: every byte arrives, in order")
    func writeInterruptedAndShort() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.send, [.interrupt, .short(1), .interrupt, .short(7), .short(1000), .wouldBlock, .short(3)])
        let payload = pattern(200_000, seed: 3)
        let reader = Mailbox<[UInt8]>()
        try spawnDetachedThread {
            var received: [UInt8] = []
            while received.count < payload.count, let bytes = try? peer.readSome(), !bytes.isEmpty { received += bytes }
            reader.put(received)
        }
        try socket.writeAll(payload)
        #expect(reader.take() == payload)
        #expect(faults.calls(.send) > 7)
    }

    @Test("EAGAIN on a timed read: the read waits again, and reports a timeout at the deadline")
    func readWouldBlockTimesOut() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        try peer.writeAll([1])
        // Readiness that lies: poll says readable, recv says EAGAIN, until the deadline.
        faults.always(.receive, .wouldBlock)
        faults.always(.poll, .wouldBlock)
        let start = now()
        #expect(try socket.readSome(timeout: .milliseconds(50)) == nil)
        #expect(now() - start >= .milliseconds(50))
        faults.always(.receive, nil)
        faults.always(.poll, nil)
        #expect(try socket.readSome() == [1])
    }

    @Test("EAGAIN then data: a spurious wake-up is waited out")
    func readWouldBlockThenData() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.receive, [.wouldBlock, .wouldBlock])
        try peer.writeAll([7, 8])
        #expect(try socket.readSome() == [7, 8])
    }

    @Test("EINTR on poll is retried with the time that remains")
    func pollInterrupted() throws {
        let faults = Faults()
        let (socket, peer) = try socketPair(system: faults.system)
        faults.plan(.poll, [.interrupt, .interrupt, .interrupt])
        let start = now()
        #expect(try socket.readSome(timeout: .milliseconds(80)) == nil)
        withExtendedLifetime(peer) {}
        let elapsed = now() - start
        #expect(elapsed >= .milliseconds(80))
        #expect(elapsed < .seconds(2))
    }

    @Test("EINTR on connect: the connect goes on in the background and is waited for, not retried")
    func connectInterrupted() throws {
        let faults = Faults()
        faults.plan(.connect, [.interrupt])
        try withServer { server in
            let endpoint = try WebSocketEndpoint(parsing: server.url())
            let client = try BlockingWebSocket.connect(to: endpoint, subprotocols: [], headers: [:],
                                                       configuration: testConfiguration(), options: testOptions(),
                                                       system: faults.system)
            #expect(faults.calls(.connect) == 1)
            try client.send(text: "after EINTR")
            #expect(try client.receive() == .text("after EINTR"))
            try client.close()
        }
    }

    @Test("A connect that never completes: the connect timeout")
    func connectTimesOut() throws {
        let faults = Faults()
        faults.always(.connect, .stall)
        faults.always(.poll, .stall)
        var options = testOptions()
        options.connectTimeout = .milliseconds(100)
        let start = now()
        let failure = error {
            try BlockingWebSocket.connect(to: WebSocketEndpoint(parsing: "ws://127.0.0.1:9/"), subprotocols: [], headers: [:],
                                          configuration: testConfiguration(), options: options, system: faults.system)
        }
        #expect(failure == .timedOut(.connect))
        #expect(now() - start >= .milliseconds(100))
    }

    @Test("EINTR on accept is retried by the server")
    func acceptInterrupted() throws {
        let faults = Faults()
        faults.plan(.accept, [.interrupt, .interrupt])
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            Issue.record("no 127.0.0.1")
            return
        }
        let server = try BlockingWebSocketServer(addresses: addresses, unixSocketPath: nil, configuration: testConfiguration(),
                                                 options: serverOptions(), backlog: 8, system: faults.system)
        let running = try RunningServer(server)
        defer { #expect(running.stop()) }
        let client = try BlockingWebSocket.connect(to: running.url(), options: testOptions())
        try client.send(text: "accepted")
        #expect(try client.receive() == .text("accepted"))
        try client.close()
        #expect(faults.calls(.accept) >= 3)
    }

    @Test("The whole stack under a storm of EINTR, EAGAIN and short writes: a 1 MiB echo arrives intact")
    func storm() throws {
        let faults = Faults()
        // Every call of each kind draws from a long, seeded plan.
        var generator = Connection.SeededGenerator(seed: 6455)
        for call in [Faults.Call.receive, .send] {
            let plan: [Faults.Fault] = (0..<5000).compactMap { _ in
                switch generator.next() % 4 {
                case 0: return .interrupt
                case 1: return .wouldBlock
                case 2: return .short(Int(generator.next() % 100) + 1)
                default: return nil
                }
            }
            faults.plan(call, plan)
        }
        faults.plan(.poll, (0..<200).map { _ in .interrupt })
        try withServer { server in
            let endpoint = try WebSocketEndpoint(parsing: server.url())
            let client = try BlockingWebSocket.connect(to: endpoint, subprotocols: [], headers: [:],
                                                       configuration: testConfiguration(), options: testOptions(),
                                                       system: faults.system)
            let payload = pattern(1 << 20, seed: 9)
            try client.send(binary: payload)
            #expect(try client.receive() == .binary(payload))
            try client.send(text: "small")
            #expect(try client.receive() == .text("small"))
            #expect(try client.close().wasClean)
        }
        #expect(faults.calls(.send) > 100)
        #expect(faults.calls(.receive) > 100)
    }
}

/// The blocking adapter under the shim with peers that misbehave: the same cases as the Dispatch
/// adapter's, each ending in the documented state and close code with every descriptor closed.
@Suite("POSIX adapter under the system-call shim: resets, broken pipes, stalls", .onTestThreads)
struct POSIXShimFailureTests {
    /// A client through `faults` to a raw peer that runs `body` after the opening handshake.
    static func client(_ faults: Faults, configuration: Connection.Configuration = testConfiguration(),
                       options: TransportOptions = testOptions(),
                       peer body: @escaping @Sendable (Socket) -> Void) throws -> (BlockingWebSocket, RawPeer) {
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            body(socket)
        }
        let client = try BlockingWebSocket.connect(to: WebSocketEndpoint(parsing: peer.url), subprotocols: [], headers: [:],
                                                   configuration: configuration, options: options, system: faults.system)
        return (client, peer)
    }

    @Test("ECONNRESET in the middle of a frame: 1006 (aborted), the reset is the transport failure")
    func resetMidFrame() throws {
        let faults = Faults()
        let go = Mailbox<Bool>()
        do {  // the client (and its wake-up pipe) goes before the count
            let (client, peer) = try Self.client(faults) { socket in
                try? socket.writeAll(serverFrame(0x82, pattern(10), announcedLength: 1000))
                _ = go.take()
                try? socket.writeAll(pattern(10))
                _ = try? socket.readToEnd()
            }
            // Nothing arrives whole before the reset: the receive times out.
            #expect(throws: WebSocketError.timedOut(.receive)) { try client.receive(timeout: .milliseconds(200)) }
            faults.always(.receive, .error(.connectionReset))
            go.put(true)
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .abnormalClosure)
            #expect(client.closeStatus?.failure == .aborted)
            #expect(client.transportFailure == .transport(.connectionReset))
            #expect(peer.join())
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("EPIPE on a write: the send throws it, 1006 (aborted)")
    func brokenPipe() throws {
        let faults = Faults()
        do {  // the client (and its wake-up pipe) goes before the count
            let (client, peer) = try Self.client(faults) { socket in _ = try? socket.readToEnd() }
            faults.always(.send, .error(.brokenPipe))
            #expect(throws: WebSocketError.transport(.brokenPipe)) { try client.send(text: "into a broken pipe") }
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.failure == .aborted)
            #expect(client.transportFailure == .transport(.brokenPipe))
            #expect(peer.join())
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("A peer that sends half a frame and stalls: the close timeout ends it (1006), the socket is closed")
    func halfFrameStall() throws {
        let faults = Faults()
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(300)
        let sawEnd = Mailbox<Bool>()
        do {  // the client (and its wake-up pipe) goes before the count
            let (client, peer) = try Self.client(faults, configuration: configuration) { socket in
                try? socket.writeAll(serverFrame(0x82, pattern(50), announcedLength: 256))
                sawEnd.put((try? socket.readToEnd(timeout: .seconds(10)).sawEnd) ?? false)
            }
            let status = try client.close()
            #expect(status.code == .abnormalClosure)
            #expect(status.failure == .closeTimeout)
            #expect(sawEnd.take() == true)
            #expect(peer.join())
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("A peer that vanishes with a reset: 1006, not clean, nothing leaked")
    func peerVanishes() throws {
        let faults = Faults()
        do {  // the client (and its wake-up pipe) goes before the count
            let (client, peer) = try Self.client(faults) { socket in
                var option = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                socket.close()
            }
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .abnormalClosure)
            #expect(client.closeStatus?.wasClean == false)
            #expect(peer.join())
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("The storm's client leaves no descriptor open")
    func stormLeavesNothing() throws {
        let faults = Faults()
        var generator = Connection.SeededGenerator(seed: 77)
        for call in [Faults.Call.receive, .send] {
            faults.plan(call, (0..<2000).compactMap { _ in
                switch generator.next() % 3 {
                case 0: return .interrupt
                case 1: return .short(Int(generator.next() % 50) + 1)
                default: return nil
                }
            })
        }
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: WebSocketEndpoint(parsing: server.url()), subprotocols: [],
                                                       headers: [:], configuration: testConfiguration(),
                                                       options: testOptions(), system: faults.system)
            try client.send(binary: pattern(200_000, seed: 1))
            #expect(try client.receive() == .binary(pattern(200_000, seed: 1)))
            #expect(try client.close().wasClean)
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }
}
