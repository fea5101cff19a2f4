// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// Peers that refuse, never answer, or answer too much: every wait is bounded by a timer of the
/// socket's loop, and each case ends in the documented event with every descriptor closed.
@Suite("WebSocketAsync failures", .timeLimit(.minutes(4)))
struct FailureTests {
    @Test("A refused connect: .failed(.connectFailed) with ECONNREFUSED, for the handler faces and the async face")
    func connectRefused() async throws {
        // A port bound and not listened on, held for the whole test (a port closed again could be
        // taken meanwhile by a test running beside this one): the kernel refuses connections there.
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let faults = Faults()
        let log = EventLog()
        try shimClient(faults.system, port: port, log: log)
        let end = try await log.waitForEnd()
        guard case .failed(.connectFailed(let address, let errno)) = end else { throw TestFailure("got \(end.brief)") }
        #expect(errno == .connectionRefused)
        #expect(address.port == port)
        #expect(log.all.count == 1)

        do {
            _ = try await shimAsyncClient(faults.system, port: port)
            Issue.record("connected")
        } catch {
            guard case .connectFailed(_, let errno)? = error as? WebSocketError, errno == .connectionRefused else { throw error }
        }
        #expect(await descriptorsClosed(faults).isEmpty)
    }

    @Test("A TCP connect that never completes: the connect timeout, .failed(.timedOut(.connect))")
    func connectTimeout() async throws {
        // A listener that never accepts, its accept queue full: the kernel drops further SYNs, so a
        // connect hangs.
        let listener = try RawListener(backlog: 0)
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: listener.port) else {
            throw TestFailure("no 127.0.0.1")
        }
        var fillers: [Socket] = []
        defer { fillers.forEach { $0.close() } }
        for _ in 0..<8 {
            if let (socket, _) = try? Socket.startConnect(to: addresses[0], system: .live) { fillers.append(socket) }
        }
        // The first filler completes its handshake into the queue; the others wait for a SYN-ACK
        // that does not come.
        let first = try #require(fillers.first)
        #expect(await blocking { (try? first.wait(for: Int16(POLLOUT), deadline: now() + Harness.patience)) == true })
        let faults = Faults()
        var options = testOptions()
        options.connectTimeout = .milliseconds(300)
        let log = EventLog()
        let clock = ContinuousClock()
        let start = clock.now
        try shimClient(faults.system, port: listener.port, options: options, log: log)
        let end = try await log.waitForEnd()
        #expect(end == .failed(.timedOut(.connect)))
        // Counted from the loop's turn, whose time was read a little before the call.
        #expect(clock.now - start >= .milliseconds(250))
        #expect(await descriptorsClosed(faults).isEmpty)
        listener.close()
    }

    @Test("A server that never answers the handshake: the client's handshake timeout")
    func clientHandshakeTimeout() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var configuration = testConfiguration()
        configuration.timeouts.handshake = .milliseconds(300)
        let log = EventLog()
        let clock = ContinuousClock()
        let start = clock.now
        try shimClient(faults.system, port: listener.port, configuration: configuration, log: log)
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        let end = try await log.waitForEnd()
        #expect(end == .failed(.handshakeFailed(.timedOut)))
        // Counted from the loop's turn, whose time may have been read a little before the call.
        #expect(clock.now - start >= .milliseconds(250))
        // The client closed the socket: the silent server reads the request, then the end.
        #expect(await blocking { peer.readUntilEOF(timeout: Harness.patience) })
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }

    @Test("A client that never finishes its request, or sends none: the server's handshake timeout closes the socket")
    func serverHandshakeTimeout() async throws {
        let faults = Faults()
        var configuration = testConfiguration()
        configuration.timeouts.handshake = .milliseconds(300)
        let serverLog = EventLog()
        let server = try shimServer(faults.system, configuration: configuration, log: serverLog)
        let clock = ContinuousClock()
        let start = clock.now
        let partial = try RawSocket.connect(port: server.port)
        partial.write(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
        let silent = try RawSocket.connect(port: server.port)
        #expect(await blocking { partial.readUntilEOF(timeout: Harness.patience) })
        #expect(await blocking { silent.readUntilEOF(timeout: Harness.patience) })
        #expect(clock.now - start >= .milliseconds(250))
        #expect(await blocking { server.waitUntilIdle(timeout: Harness.patience) })
        #expect(serverLog.all.isEmpty)
        partial.close()
        silent.close()
        server.stop()
        #expect(await descriptorsClosed(faults).isEmpty)
    }

    @Test("A server that never answers the Close: the close timeout closes the socket (1006)")
    func closeTimeout() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(300)
        let log = EventLog()
        let client = try shimClient(faults.system, port: listener.port, configuration: configuration, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        let clock = ContinuousClock()
        let start = clock.now
        try client.sendClose(code: .normalClosure, reason: "bye")
        let end = try await log.waitForEnd()
        #expect(end == .closed(Connection.CloseStatus(code: .abnormalClosure, reason: "close handshake timed out", wasClean: false,
                                                      failure: .closeTimeout)))
        // Counted from the loop's turn, whose time may have been read a little before the call.
        #expect(clock.now - start >= .milliseconds(250))
        #expect(await blocking { peer.readUntilEOF(timeout: Harness.patience) })
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }

    @Test("The async close() of a client whose server never answers: returns the timeout's status")
    func asyncCloseTimeout() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var configuration = testConfiguration()
        configuration.timeouts.close = .milliseconds(300)
        let connecting = Task { try await shimAsyncClient(faults.system, port: listener.port, configuration: configuration) }
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        _ = try await blocking { Result { try peer.acceptHandshake() } }.get()
        let client = try await connecting.value
        let status = try await client.close()
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .closeTimeout)
        #expect(client.closeStatus == status)
        do {
            _ = try await client.receive(timeout: Harness.patience)
            Issue.record("a message after the end")
        } catch {
            #expect(error == .closed(status))
        }
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }

    @Test("A clean close from a server that keeps TCP open: the client closes after its Close is answered")
    func serverKeepsTCPOpen() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var configuration = testConfiguration()
        // Long enough for the raw server's answer to arrive under ThreadSanitizer beside the other
        // tests; after the answer the client waits this long again for TCP to close.
        configuration.timeouts.close = .seconds(15)
        let log = EventLog()
        let client = try shimClient(faults.system, port: listener.port, configuration: configuration, log: log)
        let (peer, server) = try await rawServer(for: listener, log: log)
        try client.sendClose()
        // The raw server answers the Close (on a thread of its own) but keeps TCP open.
        let answered = await blocking { [server] in
            var server = server
            let deadline = now() + .seconds(30)
            while now() < deadline {
                guard let bytes = peer.read(timeout: deadline - now()) else { continue }
                if bytes.isEmpty { return false }  // the client closed before the answer
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
        let end = try await log.waitForEnd()
        #expect(end == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
        #expect(await blocking { peer.readUntilEOF(timeout: Harness.patience) })
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }

    @Test("A message over the server's limit: the server fails the connection with 1009, the client hears it")
    func messageTooBig() async throws {
        let faults = Faults()
        var configuration = testConfiguration()
        configuration.limits.maxMessageSize = 1000
        let serverLog = EventLog()
        let server = try shimServer(faults.system, configuration: configuration, log: serverLog)
        let log = EventLog()
        let client = try shimClient(faults.system, port: server.port, log: log)
        try await log.waitForOpen()
        try client.send(binary: payload(2000))
        let end = try await log.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .messageTooBig)
        let serverEnd = try await serverLog.waitForEnd()
        #expect(serverEnd == .closed(Connection.CloseStatus(code: .messageTooBig, reason: "message too large", wasClean: false,
                                                            failure: .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))))
        server.stop()
        #expect(await descriptorsClosed(faults).isEmpty)
    }

    @Test("Keepalive: the loop's timer sends the pings, the pongs come back; a peer that never answers ends it")
    func keepalive() async throws {
        var serverOptions = testOptions()
        serverOptions.receivesControlFrames = true
        let serverLog = EventLog()
        let server = try shimServer(options: serverOptions, log: serverLog)
        defer { server.stop() }
        var configuration = testConfiguration()
        configuration.timeouts.keepaliveInterval = .milliseconds(50)
        configuration.timeouts.keepaliveTimeout = Harness.patience
        var options = testOptions()
        options.receivesControlFrames = true
        let log = EventLog()
        let client = try shimClient(.live, port: server.port, configuration: configuration, options: options, log: log)
        try await serverLog.wait(for: "three keepalive pings") { events in
            events.filter { if case .message(.ping) = $0 { true } else { false } }.count >= 3
        }
        try await log.wait(for: "three pongs") { events in
            events.filter { if case .message(.pong) = $0 { true } else { false } }.count >= 3
        }
        try client.sendClose()
        try await log.waitForEnd()

        // A raw peer that reads and never answers: the keepalive timeout.
        let faults = Faults()
        let listener = try RawListener()
        configuration.timeouts.keepaliveTimeout = .milliseconds(200)
        let silentLog = EventLog()
        try shimClient(faults.system, port: listener.port, configuration: configuration, log: silentLog)
        let (peer, _) = try await rawServer(for: listener, log: silentLog)
        let end = try await silentLog.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.failure == .keepaliveTimeout)
        #expect(!status.wasClean)
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }

    @Test("cancel() while connecting and once open: .failed(.cancelled), then 1006")
    func cancel() async throws {
        let faults = Faults()
        let listener = try RawListener()
        let log = EventLog()
        let client = try shimClient(faults.system, port: listener.port, log: log)
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        client.cancel()
        #expect(try await log.waitForEnd() == .failed(.cancelled))
        #expect(await blocking { peer.readUntilEOF(timeout: Harness.patience) })
        peer.close()

        let server = try shimServer()
        defer { server.stop() }
        let openLog = EventLog()
        let open = try shimClient(faults.system, port: server.port, log: openLog)
        try await openLog.waitForOpen()
        open.cancel()
        guard case .closed(let status) = try await openLog.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
        #expect(throws: WebSocketError.self) { try open.send(text: "after cancel") }
        #expect(await descriptorsClosed(faults).isEmpty)
    }

    @Test("An async send, ping or close on a connection that has ended: each returns at once with how it ended")
    func asyncCallsAfterTheEnd() async throws {
        let server = try shimServer(handler: { socket, event in
            if case .open = event { try? socket.sendClose(code: .goingAway) }
        })
        defer { server.stop() }
        let client = try await shimAsyncClient(.live, port: server.port)
        #expect(try await client.receive(timeout: Harness.patience) == nil)
        let status = try #require(client.closeStatus)
        #expect(status.code == .goingAway)
        // One call at a time (a later call's work on the loop must not rescue an earlier one), each
        // on its own task, so that one that never returned fails here, not at the time limit.
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("send", { try await client.send(.text("after the end")) }),
            ("ping", { try await client.ping() }),
            ("close", { _ = try await client.close() }),
        ]
        for (name, call) in calls {
            let outcome = Watched<String?>(nil)
            Task {
                do {
                    try await call()
                    outcome.update { $0 = "returned" }
                } catch {
                    outcome.update { $0 = "\(error)" }
                }
            }
            let seen = try await outcome.wait(for: "\(name) to return") { $0 != nil }
            if name == "close" {
                #expect(seen == "returned")
            } else {
                #expect(seen != "returned", "\(name)")
            }
        }
    }

    @Test("Cancelling the task of an async connect: .cancelled, the socket closed")
    func cancelAsyncConnect() async throws {
        let faults = Faults()
        let listener = try RawListener()
        let connecting = Task { try await shimAsyncClient(faults.system, port: listener.port) }
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        connecting.cancel()
        do {
            _ = try await connecting.value
            Issue.record("connected")
        } catch {
            #expect(error as? WebSocketError == .cancelled)
        }
        #expect(await blocking { peer.readUntilEOF(timeout: Harness.patience) })
        #expect(await descriptorsClosed(faults).isEmpty)
        peer.close()
    }
}
