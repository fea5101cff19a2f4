import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// Peers that misbehave: every wait is bounded by the core's timers, driven through the adapter's
/// Dispatch timer.
@Suite("Vanishing and silent peers", .timeLimit(.minutes(1)))
struct FailureTests {
    @Test("A server that vanishes mid-message: 1006, unexpected end of stream")
    func peerVanishesMidMessage() async throws {
        let listener = try RawListener()
        let log = EventLog()
        _ = try connectClient(Loopback.url("127.0.0.1", listener.port), log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        _ = try await blocking { Result { try peer.acceptHandshake() } }.get()
        // A binary frame announcing 1000 bytes, 10 of which arrive, then the connection is gone.
        peer.write([0x82, 0x7E, 0x03, 0xE8] + payload(10))
        try await log.wait(for: "open") { !$0.isEmpty }
        peer.close()
        let end = try await log.waitForEnd()
        #expect(end == .closed(Connection.CloseStatus(code: .abnormalClosure, reason: "connection closed without a close frame",
                                           wasClean: false, failure: .unexpectedEndOfStream)))
        #expect(!log.all.contains { if case .binary = $0 { true } else { false } })
    }

    @Test("A client that vanishes mid-message: the server reports 1006")
    func clientVanishesMidMessage() async throws {
        let serverLog = EventLog()
        let server = try makeEchoServer(log: serverLog)
        defer { server.stop() }
        let peer = try RawSocket.connect(port: server.port)
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))))
        peer.write(client.takeOutput())
        guard let response = await blocking({ peer.read() }), !response.isEmpty else { throw TestFailure("no 101") }
        client.receive(response)
        guard case .handshakeCompleted? = client.nextEvent() else { throw TestFailure("handshake") }
        try client.sendFragment(payload(100), kind: .binary, isFinal: false)
        peer.write(client.takeOutput())
        try await serverLog.wait(for: "open") { !$0.isEmpty }
        peer.close()
        let end = try await serverLog.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .unexpectedEndOfStream)
    }

    @Test("A server that never answers the handshake: the client's handshake timeout")
    func clientHandshakeTimeout() async throws {
        let listener = try RawListener()
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .milliseconds(300)
        let log = EventLog()
        let clock = ContinuousClock()
        let start = clock.now
        _ = try connectClient(Loopback.url("127.0.0.1", listener.port), configuration: configuration, log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        let end = try await log.waitForEnd(timeout: .seconds(5))
        #expect(end == .failed(.handshakeFailed(.timedOut)))
        #expect(clock.now - start >= .milliseconds(300))
        // The client closed the socket: the silent server reads the request, then end of stream.
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(3)) })
    }

    @Test("A client that never finishes its request: the server's handshake timeout closes the socket")
    func serverHandshakeTimeout() async throws {
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .milliseconds(300)
        let server = try makeEchoServer(configuration: configuration)
        defer { server.stop() }
        let peer = try RawSocket.connect(port: server.port)
        peer.write(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(5)) })
        #expect(clock.now - start >= .milliseconds(250))
    }

    @Test("A server that never answers the Close: the close timeout closes the socket")
    func closeTimeout() async throws {
        let listener = try RawListener()
        var configuration = Connection.Configuration()
        configuration.timeouts.close = .milliseconds(300)
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", listener.port), configuration: configuration, log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        _ = try await blocking { Result { try peer.acceptHandshake() } }.get()
        try await log.wait(for: "open") { !$0.isEmpty }
        let clock = ContinuousClock()
        let start = clock.now
        try startClose(client, code: .normalClosure, reason: "bye")
        let end = try await log.waitForEnd(timeout: .seconds(5))
        #expect(end == .closed(Connection.CloseStatus(code: .abnormalClosure, reason: "close handshake timed out", wasClean: false,
                                           failure: .closeTimeout)))
        #expect(clock.now - start >= .milliseconds(300))
        // The silent server got the Close frame, then end of stream.
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(3)) })
    }

    @Test("A clean close from a server that does not close TCP: the client closes after the close timeout")
    func serverKeepsTCPOpen() async throws {
        let listener = try RawListener()
        var configuration = Connection.Configuration()
        // Long enough for the raw server's answer to arrive even under the thread sanitizer; the wait
        // for TCP to close is as long again.
        configuration.timeouts.close = .seconds(2)
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", listener.port), configuration: configuration, log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        let server = try await blocking { Result { try peer.acceptHandshake() } }.get()
        try await log.wait(for: "open") { !$0.isEmpty }
        try startClose(client)
        // The raw server answers the Close (on a thread of its own, promptly even under load) but
        // keeps TCP open.
        let answered = await blocking { [server] in
            var server = server
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                guard let bytes = peer.read(timeout: .milliseconds(100)), !bytes.isEmpty else { continue }
                server.receive(bytes)
                while server.nextEvent() != nil {}
                if server.pendingOutputCount > 0 {
                    peer.write(server.takeOutput())
                    return true
                }
            }
            return false
        }
        #expect(answered)
        let end = try await log.waitForEnd(timeout: .seconds(5))
        #expect(end == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(3)) })
    }

    @Test("A message over the server's limit: the server fails the connection with 1009")
    func messageTooBig() async throws {
        var configuration = Connection.Configuration()
        configuration.limits.maxMessageSize = 1000
        let serverLog = EventLog()
        let server = try makeEchoServer(configuration: configuration, log: serverLog)
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port), log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        try client.send(binary: payload(2000))
        let end = try await log.waitForEnd()
        #expect(log.all.contains(.closeReceived(Connection.CloseFrame(code: .messageTooBig, reason: "message too large"))))
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .messageTooBig)
        let serverEnd = try await serverLog.waitForEnd()
        #expect(serverEnd == .closed(Connection.CloseStatus(code: .messageTooBig, reason: "message too large", wasClean: false,
                                                 failure: .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))))
    }

    @Test("Keepalive: the core's ping timer fires through the adapter's Dispatch timer")
    func keepalive() async throws {
        let serverLog = EventLog()
        let server = try makeEchoServer(log: serverLog)
        defer { server.stop() }
        var configuration = Connection.Configuration()
        configuration.timeouts.keepaliveInterval = .milliseconds(50)
        configuration.timeouts.keepaliveTimeout = .seconds(5)
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port), configuration: configuration, log: log)
        try await serverLog.wait(for: "three keepalive pings") { events in
            events.filter { if case .ping = $0 { true } else { false } }.count >= 3
        }
        try await log.wait(for: "three pongs") { events in
            events.filter { if case .pong = $0 { true } else { false } }.count >= 3
        }
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("A TCP connect that never completes: the connect timeout")
    func connectTimeout() async throws {
        // A listener that never accepts, with its accept queue filled: the kernel drops further SYNs,
        // so a connect hangs.
        let listener = try RawListener(backlog: 0)
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: listener.port) else {
            throw TestFailure("no 127.0.0.1")
        }
        var fillers: [Socket] = []
        defer { fillers.forEach { $0.close() } }
        for _ in 0..<8 {
            if let (socket, _) = try? Socket.startConnect(to: addresses[0], system: .live) { fillers.append(socket) }
        }
        try await Task.sleep(for: .milliseconds(100))
        var options = TransportOptions()
        options.connectTimeout = .milliseconds(300)
        let log = EventLog()
        let clock = ContinuousClock()
        let start = clock.now
        _ = try connectClient(Loopback.url("127.0.0.1", listener.port), options: options, log: log)
        let end = try await log.waitForEnd(timeout: .seconds(5))
        #expect(end == .failed(.timedOut(.connect)))
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test("cancel() before and after the handshake")
    func cancel() async throws {
        let listener = try RawListener()
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", listener.port), log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        client.cancel()
        #expect(try await log.waitForEnd() == .failed(.cancelled))
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(3)) })

        let server = try makeEchoServer()
        defer { server.stop() }
        let log2 = EventLog()
        let client2 = try connectClient(Loopback.url("127.0.0.1", server.port), log: log2)
        try await log2.wait(for: "open") { !$0.isEmpty }
        client2.cancel()
        guard case .closed(let status) = try await log2.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
    }
}
