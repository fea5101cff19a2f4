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

/// The blocking adapter writes first and waits in `poll` only when the socket would block (EAGAIN);
/// it reads first after a read that filled its buffer (more has probably arrived), and waits first
/// otherwise (an answer to what was just sent is not there yet). Counted through the system-call shim.
@Suite("Read first, write first: poll only when the socket would block", .onTestThreads)
struct ReadFirstTests {
    /// A client through `faults` to an echo server (live system calls) whose handler first sends
    /// `burst` binary messages of `size` bytes, then reports it through `sent`, then echoes.
    static func client(_ faults: Faults, burst: Int = 0, size: Int = 500, options: TransportOptions = testOptions(),
                       sent: Mailbox<Bool> = Mailbox(), _ body: (BlockingWebSocket) throws -> Void) throws {
        try withServer(handler: { socket in
            for index in 0..<burst { try? socket.send(binary: pattern(size, seed: UInt8(truncatingIfNeeded: index))) }
            sent.put(true)
            echo(socket)
        }) { server in
            let client = try BlockingWebSocket.connect(to: WebSocketEndpoint(parsing: server.url()), subprotocols: [],
                                                       headers: [:], configuration: testConfiguration(),
                                                       options: options, system: faults.system)
            try body(client)
            #expect(try client.close().wasClean)
        }
    }

    @Test("Messages that have already arrived are read without a poll before each read")
    func burstAlreadyArrived() throws {
        let faults = Faults()
        let count = 100
        // 504-byte frames through 512-byte reads: about one read per message.
        var options = testOptions()
        options.readBufferSize = 512
        let sent = Mailbox<Bool>()
        try Self.client(faults, burst: count, options: options, sent: sent) { client in
            // Every frame is in the kernel's buffers (loopback) once the server's sends returned.
            #expect(sent.take() == true)
            let (polls, reads) = (faults.calls(.poll), faults.calls(.receive))
            for index in 0..<count {
                let message = try client.receive()
                #expect(message == .binary(pattern(500, seed: UInt8(index))))
            }
            let pollsMade = faults.calls(.poll) - polls
            let readsMade = faults.calls(.receive) - reads
            // Polling before every read made one poll per read, about 100 here: each of these reads
            // fills the buffer, so the next one is tried at once.
            #expect(readsMade >= count / 2, "\(readsMade) reads")
            #expect(pollsMade <= count / 10, "\(pollsMade) polls for \(readsMade) reads")
        }
    }

    @Test("Waiting for an answer polls first: a round trip makes one poll and one read at the client")
    func roundTripsPollFirst() throws {
        let faults = Faults()
        try Self.client(faults) { client in
            let (polls, reads) = (faults.calls(.poll), faults.calls(.receive))
            let rounds = 20
            for index in 0..<rounds {
                try client.send(text: "round \(index)")
                let message = try client.receive()
                #expect(message == .text("round \(index)"))
            }
            // Each echo is read whole by a read that does not fill the buffer, so the next wait
            // polls first instead of trying a read that would find nothing (EAGAIN).
            #expect(faults.calls(.poll) - polls == rounds)
            #expect(faults.calls(.receive) - reads == rounds)
        }
    }

    @Test("A read that would block after a wait (spurious readiness) waits again, then reads")
    func readWouldBlockWaitsAgain() throws {
        let faults = Faults()
        try Self.client(faults) { client in
            let (polls, reads) = (faults.calls(.poll), faults.calls(.receive))
            faults.plan(.receive, [.wouldBlock])
            try client.send(text: "after an EAGAIN")
            #expect(try client.receive() == .text("after an EAGAIN"))
            // poll (ready), the read that would block, poll (ready at once), the read that gets it.
            #expect(faults.calls(.poll) - polls == 2)
            #expect(faults.calls(.receive) - reads == 2)
        }
    }

    @Test("Sends write first: no poll while the socket takes the bytes, one poll per EAGAIN")
    func writesFirst() throws {
        let faults = Faults()
        try Self.client(faults) { client in
            let polls = faults.calls(.poll)
            for index in 0..<50 { try client.send(binary: pattern(256, seed: UInt8(index))) }
            #expect(faults.calls(.poll) == polls)
            faults.plan(.send, [.wouldBlock, .wouldBlock])
            try client.send(text: "after two EAGAINs")
            #expect(faults.calls(.poll) == polls + 2)
            for index in 0..<50 { #expect(try client.receive() == .binary(pattern(256, seed: UInt8(index)))) }
            #expect(try client.receive() == .text("after two EAGAINs"))
        }
    }

    @Test("Readiness that lies (poll ready, read EAGAIN): the receive timeout still ends the wait")
    func spuriousReadinessTimesOut() throws {
        let faults = Faults()
        try Self.client(faults) { client in
            faults.always(.receive, .wouldBlock)
            faults.always(.poll, .wouldBlock)
            let start = now()
            #expect(throws: WebSocketError.timedOut(.receive)) { try client.receive(timeout: .milliseconds(100)) }
            #expect(now() - start >= .milliseconds(100))
            faults.always(.receive, nil)
            faults.always(.poll, nil)
            try client.send(text: "still here")
            #expect(try client.receive() == .text("still here"))
        }
    }

    @Test("A peer that never stops sending: the receive timeout still ends receive, the connection goes on")
    func endlessInputTimesOut() throws {
        let stop = Locked(false)
        let peer = try RawPeer { socket in
            guard var connection = try? acceptHandshake(on: socket) else { return }
            // Unsolicited pongs (nothing to answer, so nothing backs up), until the client has timed out.
            let pongs = (0..<64).flatMap { _ in serverFrame(0x8A, Array("tick".utf8)) }
            while !stop.withLock({ $0 }) {
                guard (try? socket.writeAll(pongs)) != nil else { return }
            }
            try? socket.writeAll(serverFrame(0x81, Array("done".utf8)))
            // Then the closing handshake: the client's Close is answered, TCP closed.
            // A generous bound: the client reaches its Close only after reading every pong still
            // buffered on the way (megabytes on loopback), which takes seconds on a loaded machine.
            while let bytes = try? socket.readSome(timeout: .seconds(60)), !bytes.isEmpty {
                connection.receive(bytes)
                while let event = connection.nextEvent() {
                    if case .closed = event {
                        try? socket.writeAll(connection.takeOutput())
                        socket.close()
                        return
                    }
                }
            }
        }
        let client = try BlockingWebSocket.connect(to: peer.url, options: testOptions())
        let start = now()
        #expect(throws: WebSocketError.timedOut(.receive)) { try client.receive(timeout: .milliseconds(200)) }
        let elapsed = now() - start
        #expect(elapsed >= .milliseconds(200))
        #expect(elapsed < .seconds(5))
        stop.withLock { $0 = true }
        #expect(try client.receive() == .text("done"))
        #expect(try client.close().wasClean)
        #expect(peer.join())
    }
}
