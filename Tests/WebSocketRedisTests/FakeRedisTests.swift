// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
import WebSocketRedis
import WebSocketTransport

/// A server on a Unix socket that answers every connection's first bytes with `reply` and then keeps
/// it open: a confused or hostile "Redis".
final class FakeRedis: Sendable {
    let path: String
    private let listener: Socket
    private let wake: WakeSignal
    private let state = Locked((accepted: 0, stopped: false, ended: false))

    init(reply: [UInt8]) throws {
        var template = Array("/tmp/websocket-fake-redis-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RedisTestServer.Failure(description: "mkdtemp failed")
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/fake.sock"
        listener = try Socket.listening(on: SocketAddress.unix(path: path), backlog: 16, system: .live)
        wake = try WakeSignal(system: .live)
        try spawnDetachedThread { [self] in serve(reply) }
    }

    var endpoint: RedisEndpoint { RedisEndpoint(address: .unix(path: path), credentials: RedisCredentials(password: "pw")) }

    var accepted: Int { state.withLock { $0.accepted } }

    private func serve(_ reply: [UInt8]) {
        var open: [Socket] = []
        var fds = [pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
        while !state.withLock({ $0.stopped }) {
            guard (try? Poller.poll(&fds, deadline: nil, system: .live)) != nil else { break }
            guard fds[0].revents != 0, let socket = try? listener.accept() else { continue }
            // Counted before the reply, which the client's failure (and so the test) waits for.
            state.withLock { $0.accepted += 1 }
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The client's HELLO first, so that the reply answers it.
            _ = try? buffer.withUnsafeMutableBytes { raw in try socket.read(into: raw, deadline: now() + .seconds(30)) }
            if !reply.isEmpty {
                _ = try? reply.withUnsafeBytes { raw in try socket.write(raw, idleTimeout: .seconds(5)) }
            }
            open.append(socket)
        }
        for socket in open { socket.close() }
        listener.close()
        unlink(path)
        rmdir(String(path.dropLast("/fake.sock".count)))
        state.withLock { $0.ended = true }
        state.broadcast()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        _ = state.wait(until: { $0.ended }, deadline: now() + .seconds(60), now: now)
    }
}

@Suite("RedisConnection against a fake Redis: a clear error and a reconnect, never a crash, a hang or unbounded memory", .onTestThreads)
struct FakeRedisTests {
    static let cases: [(String, [UInt8], RedisError.Code)] = [
        ("an HTTP server", Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8), .malformedReply),
        ("a bulk string of 1 TB announced", Array("$1000000000000\r\n".utf8), .malformedReply),
        ("a line that never ends (1 MiB without CRLF)", Array("+".utf8) + [UInt8](repeating: 0x78, count: 1 << 20), .malformedReply),
        ("an array of a billion elements", Array("*1000000000\r\n".utf8), .malformedReply),
        ("a reply of the wrong type", Array(":42\r\n".utf8), .unexpectedReply),
        ("silence", [], .timedOut),
    ]

    @Test("garbage", arguments: 0..<cases.count)
    func garbage(_ index: Int) throws {
        let (name, reply, code) = Self.cases[index]
        let fake = try FakeRedis(reply: reply)
        defer { fake.stop() }
        var options = RedisConnection.Options.fast
        // Short only where the timeout is the failure looked for: elsewhere, a busy machine's slow
        // fake must not turn the expected error into a timeout.
        options.handshakeTimeout = code == .timedOut ? .milliseconds(300) : .seconds(30)
        let recorder = EventRecorder()
        let connection = RedisConnection(endpoint: fake.endpoint, role: .subscriber, channels: ["a"], options: options,
                                         handler: recorder.handler)
        try connection.start()
        #expect(recorder.wait(for: 3, EventRecorder.isDisconnected), "\(name): reconnects after each failure")
        connection.close()
        #expect(fake.accepted >= 3, "\(name)")
        #expect(recorder.connections.isEmpty)
        for error in recorder.errors {
            #expect(error.code == code, "\(name): \(error)")
        }
        #expect(connection.statistics.failedAttempts >= 3)
    }
}

@Suite("RedisConnection against a fake Redis that logs in, then stops answering or reading", .onTestThreads)
struct StalledRedisTests {
    static let loggedIn = Array("%1\r\n+proto\r\n:3\r\n".utf8)

    @Test("a server that stops answering: the PING unanswered at the next ends the connection, and it is made again")
    func unansweredPing() throws {
        let fake = try FakeRedis(reply: Self.loggedIn)
        defer { fake.stop() }
        var options = RedisConnection.Options.fast
        options.pingInterval = .milliseconds(100)
        let recorder = EventRecorder()
        let connection = RedisConnection(endpoint: fake.endpoint, role: .publisher, options: options, handler: recorder.handler)
        try connection.start()
        #expect(recorder.wait(for: 2, EventRecorder.isConnected), "\(recorder.all)")
        connection.close()
        #expect(recorder.errors.first?.code == .timedOut, "\(recorder.errors)")
        #expect(connection.statistics.disconnections >= 1)
    }

    @Test("a server that stops reading: publishes are refused and counted once the queue is full, memory stays bounded")
    func notReading() throws {
        let fake = try FakeRedis(reply: Self.loggedIn)
        defer { fake.stop() }
        var options = RedisConnection.Options.fast
        options.pingInterval = nil
        options.limits = RedisClient.Limits(maxOutputBytes: 1 << 20)
        let recorder = EventRecorder()
        let connection = RedisConnection(endpoint: fake.endpoint, role: .publisher, options: options, handler: recorder.handler)
        defer { connection.close() }
        try connection.start()
        #expect(recorder.wait(for: 1, EventRecorder.isConnected))
        let payload = [UInt8](repeating: 0x61, count: 64 << 10)
        var sent = 0
        // The socket's buffers and twice maxOutputBytes at most: far fewer than 10,000 publishes of 64 KiB.
        while sent < 10_000, connection.publish(channel: "a", payload: payload) { sent += 1 }
        #expect(sent < 10_000, "publishes never refused")
        #expect(connection.statistics.publishesLost == 1)
        #expect(connection.isConnected, "a slow server is not a failure")
    }
}
