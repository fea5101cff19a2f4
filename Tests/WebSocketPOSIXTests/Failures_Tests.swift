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

/// Peers that vanish, stall or never answer: every wait ends, by the connection's timers or the
/// socket options, with a defined report.
@Suite("Failures: vanishing, stalled and silent peers", .onTestThreads)
struct FailuresTests {
    @Test("A server that vanishes mid-message: the client reports 1006 (unexpected end of stream)")
    func peerVanishesMidMessage() throws {
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            // A binary frame announcing 1000 bytes, 10 of them sent, then the connection is gone.
            try? socket.writeAll(serverFrame(0x82, pattern(10), announcedLength: 1000))
            socket.close()
        }
        let client = try BlockingWebSocket.connect(to: peer.url, options: testOptions())
        #expect(try client.receive() == nil)
        let status = try #require(client.closeStatus)
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
        #expect(status.failure == .unexpectedEndOfStream)
        #expect(peer.join())
    }

    @Test("A server that resets the connection: 1006 (aborted), and the reset is reported as the transport failure")
    func peerResets() throws {
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            try? socket.writeAll(serverFrame(0x81, Array("partial".utf8), announcedLength: 100))
            // SO_LINGER with a zero timeout: close sends a reset instead of a FIN.
            var option = linger()
            option.l_onoff = 1
            option.l_linger = 0
            _ = setsockopt(socket.descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
            socket.close()
        }
        let client = try BlockingWebSocket.connect(to: peer.url, options: testOptions())
        #expect(try client.receive() == nil)
        #expect(client.closeStatus?.code == .abnormalClosure)
        #expect(client.closeStatus?.failure == .aborted)
        #expect(client.transportFailure == .transport(.connectionReset))
        #expect(throws: WebSocketError.transport(.connectionReset)) { try client.send(text: "too late") }
        #expect(peer.join())
    }

    @Test("A peer that stops reading: with a write timeout, send fails with .timedOut(.write) and the connection is aborted (1006)")
    func backpressureTimesOut() throws {
        let release = Mailbox<Bool>()
        try withServer(handler: { _ in _ = release.take(timeout: .seconds(20)) }) { server in
            var options = testOptions()
            options.writeTimeout = .milliseconds(300)
            let client = try BlockingWebSocket.connect(to: server.url(), options: options)
            defer { release.put(true) }
            let chunk = [UInt8](repeating: 0xAB, count: 1 << 20)
            var failure: WebSocketError? = nil
            var sent = 0
            let start = now()
            // The kernel buffers a few MiB each way on loopback; 256 MiB is far beyond them.
            while sent < 256, failure == nil {
                do throws(WebSocketError) {
                    try client.send(binary: chunk)
                    sent += 1
                } catch {
                    failure = error
                }
            }
            #expect(failure == .timedOut(.write))
            #expect(now() - start >= .milliseconds(300))
            #expect(client.transportFailure == .timedOut(.write))
            #expect(throws: WebSocketError.timedOut(.write)) { try client.send(text: "after") }
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .abnormalClosure)
            #expect(client.closeStatus?.failure == .aborted)
        }
    }

    @Test("A peer that stops reading: without a write timeout, send blocks until the peer reads again")
    func backpressureBlocks() throws {
        let release = Mailbox<Bool>()
        let received = Mailbox<Int>()
        try withServer(handler: { socket in
            _ = release.take(timeout: .seconds(20))
            var total = 0
            while case .binary(let bytes)? = try? socket.receive() {
                total += bytes.count
                if total == 32 << 20 { received.put(total) }
            }
        }) { server in
            var options = testOptions()
            options.writeTimeout = nil
            let client = try BlockingWebSocket.connect(to: server.url(), options: options)
            let sendReturned = Mailbox<Bool>()
            try spawnDetachedThread {
                let chunk = [UInt8](repeating: 0xCD, count: 1 << 20)
                var ok = true
                for _ in 0..<32 where ok { ok = (try? client.send(binary: chunk)) != nil }
                sendReturned.put(ok)
            }
            // 32 MiB do not fit the loopback buffers: the sender is blocked while the server sleeps.
            #expect(sendReturned.take(timeout: .milliseconds(500)) == nil)
            release.put(true)
            #expect(sendReturned.take() == true)
            #expect(received.take() == 32 << 20)
            try client.close()
        }
    }

    @Test("A server that accepts TCP but never answers: the handshake timeout fires")
    func handshakeNeverCompletes() throws {
        let peer = try RawPeer { socket in
            _ = try? socket.readToEnd(timeout: .seconds(5))   // reads the request, answers nothing
        }
        var configuration = testConfiguration()
        configuration.timeouts.handshake = .milliseconds(300)
        let start = now()
        let failure = error { try BlockingWebSocket.connect(to: peer.url, configuration: configuration, options: testOptions()) }
        let elapsed = now() - start
        #expect(failure == .handshakeFailed(.timedOut))
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(3))
        #expect(peer.join())   // the client closed the socket: the peer saw the end of the stream
    }

    @Test("A client that connects and sends nothing: the server's handshake timeout closes it")
    func serverHandshakeTimeout() throws {
        var configuration = testConfiguration()
        configuration.timeouts.handshake = .milliseconds(300)
        try withServer(configuration: configuration) { server in
            let socket = try rawConnect(port: server.port)
            try socket.writeAll(Array("GET / HTTP/1.1\r\n".utf8))   // and nothing more
            let start = now()
            let (bytes, sawEnd) = try socket.readToEnd(timeout: .seconds(5))
            #expect(sawEnd)
            #expect(bytes.isEmpty)
            #expect(now() - start >= .milliseconds(250))
        }
    }

    @Test("An invalid request is answered by the connection (426) and closed")
    func invalidRequest() throws {
        try withServer { server in
            let socket = try rawConnect(port: server.port)
            try socket.writeAll(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let (bytes, sawEnd) = try socket.readToEnd()
            #expect(sawEnd)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 426 "))
        }
    }

    @Test("A server that never answers the Close: the close timeout fires and the socket is closed")
    func closeNeverAnswered() throws {
        let peerSawEnd = Mailbox<(bytes: Int, sawEnd: Bool)>()
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil,
                  let result = try? socket.readToEnd(timeout: .seconds(5)) else { return }
            peerSawEnd.put((result.bytes.count, result.sawEnd))
        }
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(300)
        let client = try BlockingWebSocket.connect(to: peer.url, configuration: configuration, options: testOptions())
        let start = now()
        let status = try client.close(code: .normalClosure, reason: "bye")
        let elapsed = now() - start
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .closeTimeout)
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(3))
        let seen = try #require(peerSawEnd.take())
        #expect(seen.sawEnd)                      // the client closed the socket
        #expect(seen.bytes == 2 + 4 + 2 + 3)     // its Close frame: header, mask, code, "bye"
        #expect(peer.join())
    }

    @Test("A server that answers the Close but keeps TCP open: the client closes it at the close timeout (RFC 6455 §7.1.1)")
    func serverKeepsTCPOpen() throws {
        let peerSawEnd = Mailbox<Bool>()
        let peer = try RawPeer { socket in
            guard var connection = try? acceptHandshake(on: socket) else { return }
            let deadline = now() + .seconds(5)
            while now() < deadline, case .open = connection.state, let bytes = try? socket.readSome(), !bytes.isEmpty {
                connection.receive(bytes)
                while connection.nextEvent() != nil {}
                try? socket.writeAll(connection.takeOutput())   // the Close reply
            }
            // The core says to close now; this peer does not, and waits for the client instead.
            peerSawEnd.put((try? socket.readToEnd(timeout: .seconds(5)))?.sawEnd == true)
        }
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(300)
        let client = try BlockingWebSocket.connect(to: peer.url, configuration: configuration, options: testOptions())
        let start = now()
        let status = try client.close()
        #expect(status == Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))
        #expect(now() - start >= .milliseconds(300))
        #expect(peerSawEnd.take() == true)
        #expect(peer.join())
    }

    @Test("A server's protocol violation: the client sends 1002 and reports it")
    func serverViolatesProtocol() throws {
        let peerGot = Mailbox<[UInt8]>()
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            // A masked frame from a server (RFC 6455 §5.1: the client must fail the connection).
            try? socket.writeAll([0x81, 0x81, 1, 2, 3, 4, 0x61])
            peerGot.put((try? socket.readToEnd())?.bytes ?? [])
        }
        let client = try BlockingWebSocket.connect(to: peer.url, options: testOptions())
        #expect(try client.receive() == nil)
        #expect(client.closeStatus?.code == .protocolError)
        #expect(client.closeStatus?.failure == .protocolViolation(Connection.ProtocolViolation(.maskedFrame)))
        // The Close frame with 1002 reached the peer: opcode 8, masked, code 1002 under the mask.
        let bytes = try #require(peerGot.take())
        #expect(bytes.count >= 8)
        #expect(bytes.first == 0x88)
        if bytes.count >= 8 {
            #expect([bytes[6] ^ bytes[2], bytes[7] ^ bytes[3]] == [0x03, 0xEA])
        }
        #expect(peer.join())
    }

    @Test("Connection refused: a one-line error naming the address")
    func refused() throws {
        // A port bound and never listened on, held for the whole test (a port that was free a moment
        // ago could be given to a test running beside this one).
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let failure = error { try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(port)/", options: testOptions()) }
        guard case .connectFailed(let address, let errno)? = failure else {
            Issue.record("expected connectFailed, got \(String(describing: failure))")
            return
        }
        #expect(errno == .connectionRefused)
        #expect(address.description == "127.0.0.1:\(port)")
        #expect(failure?.description == "cannot connect to 127.0.0.1:\(port): Connection refused")
    }

    @Test("A Unix socket path with no server: connectFailed with ENOENT")
    func unixSocketMissing() throws {
        let failure = error {
            try BlockingWebSocket.connect(to: "ws+unix://\(temporarySocketPath("missing")):/", options: testOptions())
        }
        guard case .connectFailed(_, let errno)? = failure else {
            Issue.record("expected connectFailed, got \(String(describing: failure))")
            return
        }
        #expect(errno == .noSuchFile)
    }

    @Test("Bad URLs, wss and unknown hosts give one-line errors")
    func badURLs() throws {
        #expect(error { try BlockingWebSocket.connect(to: "http://example.com/") } == .invalidURL("unsupported scheme \"http\": expected ws or wss"))
        #expect(error { try BlockingWebSocket.connect(to: "wss://example.com/") } == .tlsUnavailable)  // never downgraded to ws
        #expect(error { try BlockingWebSocket.connect(to: "ws://exa mple.com/") }?.description.hasPrefix("invalid URL: ") == true)
        let unknown = error { try BlockingWebSocket.connect(to: "ws://no-such-host.invalid/", options: testOptions()) }
        guard case .addressResolutionFailed(let host, _)? = unknown else {
            Issue.record("expected addressResolutionFailed, got \(String(describing: unknown))")
            return
        }
        #expect(host == "no-such-host.invalid")
    }

    @Test("A receive timeout is not fatal: the connection goes on")
    func receiveTimeout() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            let start = now()
            #expect(throws: WebSocketError.timedOut(.receive)) { try client.receive(timeout: .milliseconds(100)) }
            #expect(now() - start >= .milliseconds(100))
            try client.send(text: "still here")
            #expect(try client.receive() == .text("still here"))
            try client.close()
        }
    }

    @Test("Keepalive pings go out while the client waits in receive, from the connection's timers")
    func keepaliveWhileReceiving() throws {
        let pings = Locked(0)
        var options = serverOptions()
        options.receivesControlFrames = true
        try withServer(options: options, handler: { socket in
            while let message = try? socket.receive() {
                if case .ping = message { pings.withLock { $0 += 1 } }
            }
        }) { server in
            var configuration = testConfiguration()
            configuration.timeouts.keepaliveInterval = .milliseconds(50)
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration, options: testOptions())
            #expect(throws: WebSocketError.timedOut(.receive)) { try client.receive(timeout: .milliseconds(400)) }
            #expect(pings.withLock { $0 } >= 3)
            try client.close()
        }
    }

    @Test("A dead peer under keepalive: no pong, the connection fails with 1006 (keepalive timeout)")
    func keepaliveTimeout() throws {
        let peer = try RawPeer { socket in
            guard (try? acceptHandshake(on: socket)) != nil else { return }
            _ = try? socket.readToEnd(timeout: .seconds(5))   // reads pings, never answers
        }
        var configuration = testConfiguration()
        configuration.timeouts.keepaliveInterval = .milliseconds(50)
        configuration.timeouts.keepaliveTimeout = .milliseconds(200)
        let client = try BlockingWebSocket.connect(to: peer.url, configuration: configuration, options: testOptions())
        #expect(try client.receive() == nil)
        #expect(client.closeStatus?.failure == .keepaliveTimeout)
        #expect(peer.join())
    }
}
