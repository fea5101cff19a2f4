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

/// A raw server that completes the opening handshake and then does nothing: it neither reads nor
/// answers, until the test lets it read (`drain`) what the client sent, parsed as frames.
private final class SilentServer: Sendable {
    let listener: RawListener
    private let peer = Locked<RawSocket?>(nil)
    private let server = Locked<Connection?>(nil)

    init() throws {
        listener = try RawListener()
    }

    var url: String { "ws://127.0.0.1:\(listener.port)/" }

    /// Accepts the client's connection and its handshake (on a thread of its own).
    func accept() async throws {
        let listener = self.listener
        let (socket, connection) = try await onThread { () throws -> (RawSocket, Connection) in
            let socket = try listener.accept(timeout: .seconds(60))
            return (socket, try socket.acceptHandshake())
        }
        peer.withLock { $0 = socket }
        server.withLock { $0 = connection }
    }

    /// Reads until the client's connection ends (or 60 s), and returns the messages it sent.
    func drain() async throws -> [Connection.Event] {
        guard let socket = peer.withLock({ $0 }), let start = server.withLock({ $0 }) else { return [] }
        return try await onThread {
            var connection = start
            var events: [Connection.Event] = []
            let deadline = now() + .seconds(60)
            while now() < deadline, let bytes = socket.read(timeout: .seconds(60)), !bytes.isEmpty {
                connection.receive(bytes)
                while let event = connection.nextEvent() { events.append(event) }
                socket.write(connection.takeOutput())
                if connection.shouldCloseTransport { break }
            }
            return events
        }
    }

    func close() { peer.withLock { $0?.close() } }
}

/// Runs a blocking `body` on a thread of its own, so that the cooperative pool stays free.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        do {
            try spawnDetachedThread { continuation.resume(with: Result { try body() }) }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

/// Waits (in steps of a millisecond, 60 s at most) until `condition` holds on the socket's loop.
private func waitOnLoop(_ socket: WebSocket, _ condition: @escaping @Sendable (WebSocket) -> Bool) async throws {
    let deadline = now() + .seconds(60)
    while !(await socket.onLoopAwaited { condition(socket) }) {
        guard now() < deadline else { throw TestFailure("the condition never held on the loop") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Waits (in steps of a millisecond, until `deadline`) until one of two conditions holds: `true`
/// when the first does.
private func firstOf(deadline: Connection.Instant, _ first: @escaping @Sendable () async -> Bool,
                     _ second: @escaping @Sendable () -> Bool) async throws -> Bool {
    while true {
        if await first() { return true }
        if second() { return false }
        guard now() < deadline else { throw TestFailure("neither condition held") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Sends `bytes`; `false` when the socket refuses for room.
private func sendUnlessFull(_ socket: WebSocket, _ bytes: [UInt8]) throws -> Bool {
    do {
        try socket.send(binary: bytes)
        return true
    } catch .bufferFull {
        return false
    }
}

/// Protocol timers far beyond what a test waits for, so that a slow run (ThreadSanitizer, a busy
/// machine) never trips one that the test is not about.
private func patientConfiguration() -> Connection.Configuration {
    var configuration = Connection.Configuration()
    configuration.timeouts.handshake = .seconds(60)
    configuration.timeouts.close = .seconds(60)
    return configuration
}

private func patientOptions() -> TransportOptions {
    var options = TransportOptions()
    options.connectTimeout = .seconds(60)
    options.writeTimeout = nil
    return options
}

@Suite("Cancellation of the async face's waits, and checks off the loop", .timeLimit(.minutes(3)))
struct CancellationTests {
    @Test("A cancelled ping throws .cancelled and the connection goes on")
    func pingCancelled() async throws {
        let server = try SilentServer()
        async let accepted: Void = server.accept()
        let client = try await WebSocket.connect(to: server.url, configuration: patientConfiguration(), options: patientOptions())
        try await accepted
        let ping = Task { try await client.ping(timeout: .seconds(120)) }
        try await waitOnLoop(client) { $0.peek { $0.pipeline.connection.nextDeadline != nil } }
        ping.cancel()
        await #expect(throws: WebSocketError.cancelled) { try await ping.value }
        #expect(client.state == .open)
        try client.send(text: "still open")
        server.close()
    }

    @Test("A send waiting for room, cancelled, throws .cancelled and is never sent; those queued are")
    func sendCancelled() async throws {
        let server = try SilentServer()
        async let accepted: Void = server.accept()
        var configuration = patientConfiguration()
        configuration.limits.maxBufferedOutput = 256 << 10
        let client = try await WebSocket.connect(to: server.url, configuration: configuration, options: patientOptions())
        try await accepted
        // A small send buffer that the kernel does not grow: once full, it stays full.
        await client.onLoopAwaited { _ = try? client.socket?.setOption(level: SOL_SOCKET, name: SO_SNDBUF, value: 8192) }
        // Fill the kernel's buffers and the socket's own until an async send waits for room. Each
        // attempt carries its own marker: one that went out at once is expected at the peer; the
        // one that waits is cancelled, and must never arrive.
        let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
        var sent: [[UInt8]] = []
        let deadline = now() + .seconds(60)
        var attempt = 0
        while true {
            guard now() < deadline else { throw TestFailure("no send ever waited for room") }
            while !(await client.onLoopAwaited { client.peek { $0.bufferedAmount } >= client.highWaterMark }) {
                guard now() < deadline else { throw TestFailure("the socket's buffer never filled") }
                if try sendUnlessFull(client, chunk) {
                    sent.append(chunk)
                } else {
                    try await Task.sleep(for: .milliseconds(1))   // lets the loop carry the sends out
                }
            }
            attempt += 1
            let marker = Array("marker \(attempt)".utf8)
            let finished = Locked(false)
            let send = Task {
                defer { finished.withLock { $0 = true } }
                try await client.send(.binary(marker))
            }
            // Either it waits for room, or it went out at once (the kernel took bytes meanwhile).
            let waits = try await firstOf(deadline: deadline,
                                          { await client.onLoopAwaited { client.peek { $0.hasPendingSends } } },
                                          { finished.withLock { $0 } })
            guard waits else {
                try await send.value
                sent.append(marker)
                continue
            }
            send.cancel()
            await #expect(throws: WebSocketError.cancelled) { try await send.value }
            #expect(!(await client.onLoopAwaited { client.peek { $0.hasPendingSends } }))
            let events = try await drainAfterCancel(client, server)
            let binaries = events.compactMap { event -> [UInt8]? in if case .binary(let bytes) = event { bytes } else { nil } }
            #expect(binaries == sent)
            #expect(!binaries.contains(marker))
            #expect(events.contains(.text("after")))
            return
        }
    }

    /// The peer reads again: what was queued goes out, then a message sent after the cancel.
    private func drainAfterCancel(_ client: WebSocket, _ server: SilentServer) async throws -> [Connection.Event] {
        async let drained = server.drain()
        try await client.send(.text("after"))
        try client.sendClose()
        let events = try await drained
        server.close()
        return events
    }

    @Test("A cancelled close throws .cancelled; the closing handshake goes on and times out")
    func closeCancelled() async throws {
        let server = try SilentServer()
        async let accepted: Void = server.accept()
        var configuration = patientConfiguration()
        configuration.timeouts.close = .seconds(2)   // the subject; the handshake's stays a failure bound
        let client = try await WebSocket.connect(to: server.url, configuration: configuration, options: patientOptions())
        try await accepted
        let close = Task { try await client.close(code: .goingAway) }
        // The Close is out (the close timer may even have run out already on a slow run).
        try await waitOnLoop(client) { $0.peek { $0.pipeline.connection.state } != .open }
        close.cancel()
        await #expect(throws: WebSocketError.cancelled) { try await close.value }
        // The close goes on without the task: the silent peer never answers, the close timer ends it.
        do {
            for try await _ in client.messages {}
            Issue.record("the messages ended normally, without the close timeout")
        } catch {
            #expect(error.closedStatus?.failure == .closeTimeout)
        }
        server.close()
    }

    @Test("A cancelled wait for the next connection returns nil and loses none")
    func connectionsCancelled() async throws {
        let server = try WebSocketServer(port: 0, configuration: patientConfiguration())
        defer { server.stop() }
        let taker = Task { () -> WebSocket? in
            var iterator = server.connections.makeAsyncIterator()
            return await iterator.next()
        }
        taker.cancel()
        #expect(await taker.value == nil)
        // The connection that opens next is not lost: the next taker gets it.
        let client = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: patientConfiguration(),
                                                 options: patientOptions())
        var iterator = server.connections.makeAsyncIterator()
        let accepted = await iterator.next()
        #expect(accepted != nil)
        _ = try await client.close()
    }

    @Test("Off the loop, a send is refused as the connection would refuse it in its published state")
    func refusedOffTheLoop() async throws {
        let server = try WebSocketServer(port: 0, configuration: patientConfiguration()) { socket, event in
            if case .message(let message) = event { try? socket.send(message) }
        }
        defer { server.stop() }
        let client = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: patientConfiguration(),
                                                 options: patientOptions())
        // This test's task does not run on the client's loop: every call below is checked off it.
        #expect(!client.loop.inLoop)
        #expect(throws: WebSocketError.connection(.controlPayloadTooLarge)) {
            try client.sendPing([UInt8](repeating: 0, count: 126))
        }
        #expect(throws: WebSocketError.connection(.invalidCloseCode(.noStatusReceived))) {
            try client.sendClose(code: .noStatusReceived)
        }
        #expect(throws: WebSocketError.connection(.closeReasonTooLong)) {
            try client.sendClose(reason: String(repeating: "r", count: 124))
        }
        let status = try await client.close()
        #expect(status.wasClean)
        #expect(throws: WebSocketError.connection(.closeAlreadySent)) { try client.send(text: "late") }
        #expect(throws: WebSocketError.connection(.closeAlreadySent)) { try client.sendPing() }
        // The same refusals on the loop, from the connection itself.
        await #expect(throws: WebSocketError.connection(.invalidCloseCode(.noStatusReceived))) {
            try await client.close(code: .noStatusReceived)
        }
    }
}

extension WebSocketError {
    /// The status of `.closed(status)`.
    fileprivate var closedStatus: Connection.CloseStatus? {
        if case .closed(let status) = self { return status }
        return nil
    }
}
