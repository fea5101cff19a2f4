// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// Backpressure both ways. Sending: a peer that stops reading fills the output buffer up to the
/// high-water mark; sync sends are then refused, async sends wait, memory stays bounded, and the
/// drain is reported once the peer reads again. Receiving: a consumer that stops taking messages
/// stops the socket reading once it holds ``TransportOptions/maxUndeliveredBytes``, and reading
/// resumes when it takes them.
@Suite("WebSocketAsync backpressure", .timeLimit(.minutes(4)))
struct BackpressureTests {
    static let highWaterMark = 1 << 20
    static let lowWaterMark = 256 << 10
    static let chunk = 64 << 10
    /// A masked client frame's header for a 64 KiB payload.
    static let header = 14
    static let maxHeld = 256 << 10

    static var configuration: Connection.Configuration {
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = highWaterMark
        return configuration
    }

    static var options: TransportOptions {
        var options = testOptions()
        options.lowWaterMark = lowWaterMark
        options.maxUndeliveredBytes = maxHeld
        return options
    }

    /// The `index`-th message of a test: its first byte says which it is.
    static func message(_ index: Int) -> [UInt8] { payload(chunk, seed: UInt8(truncatingIfNeeded: index)) }

    /// Whether `messages` are the first `count` of ``message(_:)``, in order.
    static func inOrder(_ messages: [[UInt8]], count: Int) -> Bool {
        messages.count == count && messages.indices.allSatisfy { messages[$0] == message($0) }
    }

    /// The most bytes a socket whose consumer stopped taking reads before it stops: whatever it held
    /// below the mark, one read more (the loop's 64 KiB buffer), a message begun and not finished,
    /// the frames' headers and the opening handshake.
    static let readBound = maxHeld + (64 << 10) + chunk + 4096

    /// Sends ``message(_:)`` from this thread until one is refused: how many were taken, and the refusal.
    static func sendUntilRefused(_ client: WebSocket, from first: Int = 0) -> (sent: Int, refusal: WebSocketError?) {
        var sent = first
        while sent < 2000 {  // 125 MiB at most: far beyond what the kernel buffers hold
            do {
                try client.send(binary: message(sent))
                sent += 1
            } catch {
                return (sent, error)
            }
        }
        return (sent, nil)
    }

    /// Sends `message` from this thread the way the documentation says: refused, again after the
    /// next drain (a drain reported meanwhile may answer an earlier refusal while sends from this
    /// thread are still on their way to the loop). Returns how many attempts it took.
    @discardableResult
    static func sendWhenDrained(_ client: WebSocket, _ log: EventLog, _ message: [UInt8]) async throws -> Int {
        for attempt in 1...50 {
            let drains = log.drains.count
            do {
                try client.send(binary: message)
                return attempt
            } catch {
                guard case .bufferFull = error else { throw error }
                try await log.wait(for: "a drain after a refusal", timeout: .seconds(60)) { events in
                    events.filter { if case .drained = $0 { true } else { false } }.count > drains
                }
            }
        }
        throw TestFailure("refused 50 times, each after a drain")
    }

    // MARK: Sending

    @Test("Sync sends from another thread: refused at the high-water mark, a drain owed for the refusal, then taken again")
    func refusedThenDrained() async throws {
        let sinkQueue = DispatchQueue(label: "sink")
        let sinkLog = EventLog()
        let server = try shimServer(options: Self.options, queue: sinkQueue, log: sinkLog, handler: { _, _ in })
        defer { server.stop() }
        let log = EventLog()
        let client = try shimClient(.live, port: server.port, configuration: Self.configuration, options: Self.options, log: log)
        try await log.waitForOpen()
        try await sinkLog.waitForOpen()
        #expect(client.highWaterMark == Self.highWaterMark)

        sinkQueue.suspend()  // the server's user stops taking messages: the server stops reading
        var resumed = false
        defer { if !resumed { sinkQueue.resume() } }
        let (accepted, refusal) = Self.sendUntilRefused(client)
        var sent = accepted
        guard case .bufferFull(let amount)? = refusal else { throw TestFailure("no refusal after \(sent) sends: \(String(describing: refusal))") }
        #expect(amount >= Self.highWaterMark)
        // Checked against the amount the loop published last: a burst passes the mark by what was on
        // its way at most, never by the mark again.
        #expect(amount < 2 * Self.highWaterMark + Self.chunk)

        sinkQueue.resume()  // taken again: the server reads, the client's buffer drains
        resumed = true
        // Every refusal is answered by a drain; sent again after it, the message is taken.
        try await log.wait(for: "the drain owed for the refusal") { !$0.filter { if case .drained = $0 { true } else { false } }.isEmpty }
        try await Self.sendWhenDrained(client, log, Self.message(sent))
        sent += 1
        #expect(log.drains.allSatisfy { $0 < Self.highWaterMark })
        let total = sent
        try await sinkLog.wait(for: "every message at the server", timeout: .seconds(60)) { events in
            events.filter { if case .message(.binary) = $0 { true } else { false } }.count >= total
        }
        #expect(Self.inOrder(sinkLog.binaries, count: total))
        try client.sendClose()
        guard case .closed(let status) = try await log.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.wasClean)
    }

    @Test("Sync sends on the loop: refused at the mark, the drain at the low-water mark, and a send from another thread in answer to it is taken")
    func refusedOnLoop() async throws {
        struct Outcome: Sendable {
            var sent = 0
            var refusal: WebSocketError?
            var bufferedAtRefusal = 0
            var answer: Result<Void, WebSocketError>?
        }
        let outcome = Watched(Outcome())
        let listener = try RawListener()
        let log = EventLog()
        try shimClient(.live, port: listener.port, configuration: Self.configuration, options: Self.options, log: log) { socket, event in
            switch event {
            case .open:
                // On the loop: each send goes straight into the connection, until it refuses.
                var sent = 0
                while true {
                    do throws(WebSocketError) {
                        try socket.send(binary: Self.message(sent))
                        sent += 1
                    } catch {
                        let buffered = socket.bufferedAmount
                        outcome.update { $0 = Outcome(sent: sent, refusal: error, bufferedAtRefusal: buffered) }
                        return
                    }
                }
            case .drained:
                // From another thread while the loop waits for it: what that thread checks against
                // must already say that there is room.
                let answer = DispatchQueue(label: "elsewhere").sync {
                    Result { () throws(WebSocketError) in try socket.send(text: "answer from elsewhere") }
                }
                outcome.update { $0.answer = answer }
            default:
                break
            }
        }
        let (peer, connection) = try await rawServer(for: listener, log: log)
        let refused = try await outcome.wait(for: "the refusal") { $0.refusal != nil }
        guard case .bufferFull(let amount)? = refused.refusal else { throw TestFailure("\(String(describing: refused.refusal))") }
        #expect(amount >= Self.highWaterMark)
        #expect(amount <= Self.highWaterMark + Self.chunk + Self.header)
        #expect(refused.bufferedAtRefusal == amount)
        #expect(refused.sent == (Self.highWaterMark + Self.chunk + Self.header - 1) / (Self.chunk + Self.header))

        let total = refused.sent
        let received = await readMessages(peer, connection) { $0.count >= total + 1 }
        let answered = try await outcome.wait(for: "the answer to the drain") { $0.answer != nil }
        #expect(throws: Never.self) { try answered.answer?.get() }
        #expect(log.drains.count == 1)
        #expect(log.drains.allSatisfy { $0 <= Self.lowWaterMark })
        let binaries = received.prefix(total).compactMap { if case .binary(let bytes) = $0 { bytes } else { nil } }
        #expect(Self.inOrder(binaries, count: total))
        #expect(received.last == .text("answer from elsewhere"))
        peer.close()
        try await log.waitForEnd()
    }

    @Test("Async sends wait for room instead of failing, memory stays bounded, and each task's messages arrive in order")
    func asyncSendsWait() async throws {
        // Small kernel buffers: the client's output stays in its own buffer, where it is counted.
        let probe = Probe(.live, socketBuffer: 16 << 10)
        let listener = try RawListener()
        let connecting = Task { try await shimAsyncClient(probe.system, port: listener.port, configuration: Self.configuration, options: Self.options) }
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        let connection = try await blocking { Result { try peer.acceptHandshake() } }.get()
        let client = try await connecting.value

        struct Progress: Sendable {
            var completed = 0
            var mostBuffered = 0
        }
        let progress = Watched(Progress())
        let senders = 3, each = 16  // 3 MiB: far more than the mark and the kernel's buffers
        let tasks = (0..<senders).map { sender in
            Task {
                for index in 0..<each {
                    try await client.send(.binary(Self.message(sender * 64 + index)))
                    let buffered = await client.onLoopAwaited { client.peek { $0.bufferedAmount } }
                    progress.update { progress in
                        progress.completed += 1
                        progress.mostBuffered = max(progress.mostBuffered, buffered)
                    }
                }
            }
        }
        // The peer reads nothing until the buffer has reached the mark: from then on the senders
        // wait for room (what is left does not fit anywhere).
        let atMark = try await progress.wait(for: "the buffer at the high-water mark") { $0.mostBuffered >= Self.highWaterMark - Self.chunk }
        #expect(atMark.completed < senders * each)

        let received = await readMessages(peer, connection) { $0.count >= senders * each }
        for task in tasks { try await task.value }
        #expect(received.count == senders * each)
        let firstBytes = received.compactMap { if case .binary(let bytes) = $0 { Int(bytes[0]) } else { nil } }
        for sender in 0..<senders {
            let mine = firstBytes.filter { $0 / 64 == sender }
            #expect(mine == (0..<each).map { sender * 64 + $0 }, "sender \(sender)")
        }
        let intact = received.allSatisfy { message in
            guard case .binary(let bytes) = message else { return false }
            return bytes == Self.message(Int(bytes[0]))
        }
        #expect(intact)
        // Bounded: never more than one message past the mark.
        #expect(progress.value.mostBuffered <= Self.highWaterMark + Self.chunk + Self.header)
        client.cancel()
        peer.close()
    }

    @Test("More async sends waiting than the buffer holds: after the drain all go out, though the socket takes each batch at once")
    func moreWaitingThanTheBufferHolds() async throws {
        // A small mark and the kernel's usual buffers: once the peer reads, the socket takes at once
        // everything the drain lets into the buffer, and the sends still waiting must go in without
        // any new readiness to wake the loop.
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = 128 << 10
        var options = testOptions()
        options.lowWaterMark = 32 << 10
        let probe = Probe(.live)
        let listener = try RawListener()
        let connecting = Task { try await shimAsyncClient(probe.system, port: listener.port, configuration: configuration, options: options) }
        let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
        let connection = try await blocking { Result { try peer.acceptHandshake() } }.get()
        let client = try await connecting.value
        let senders = 16, each = 24  // 24 MiB: more than the kernel's buffers hold while the peer waits
        let completed = Watched(0)
        let tasks = (0..<senders).map { sender in
            Task {
                for index in 0..<each {
                    try await client.send(.binary(Self.message(sender * 24 + index)))
                    completed.update { $0 += 1 }
                }
            }
        }
        // The kernel's buffers are full (a write was cut): the senders now fill the client's buffer
        // and wait, one send each, more than it holds.
        try await probe.counts.wait(for: "a cut write") { $0.sendsCut >= 1 }
        let received = await readMessages(peer, connection) { $0.count >= senders * each }
        #expect(received.count == senders * each)
        try await completed.wait(for: "every send to complete") { $0 == senders * each }
        for task in tasks { try await task.value }
        client.cancel()
        peer.close()
    }

    // MARK: Receiving

    @Test("A queue-face consumer that stops taking messages stops the socket reading; it resumes when they are taken")
    func queueConsumerStopsReading() async throws {
        let probe = Probe(.live)
        let queue = DispatchQueue(label: "consumer")
        let serverLog = EventLog()
        let server = try shimServer(probe.system, options: Self.options, queue: queue, log: serverLog, handler: { _, _ in })
        defer { server.stop() }
        let log = EventLog()
        let client = try shimClient(.live, port: server.port, configuration: Self.configuration, options: Self.options, log: log)
        try await log.waitForOpen()
        try await serverLog.waitForOpen()

        queue.suspend()
        var resumed = false
        defer { if !resumed { queue.resume() } }
        let (accepted, refusal) = Self.sendUntilRefused(client)
        var sent = accepted
        guard case .bufferFull? = refusal else { throw TestFailure("no refusal after \(sent) sends") }
        // The client's buffer is full because the server stopped reading at the mark, not because it
        // is slow: what it read is at the mark, and no more than one read past it.
        let read = try await probe.counts.wait(for: "the server reading up to the mark") { $0.receivedBytes >= Self.maxHeld }
        #expect(read.receivedBytes <= Self.readBound)

        queue.resume()
        resumed = true
        try await Self.sendWhenDrained(client, log, Self.message(sent))
        sent += 1
        let total = sent
        try await serverLog.wait(for: "every message", timeout: .seconds(60)) { events in
            events.filter { if case .message(.binary) = $0 { true } else { false } }.count >= total
        }
        #expect(Self.inOrder(serverLog.binaries, count: total))
        #expect(probe.counts.value.receivedBytes >= total * (Self.chunk + Self.header))
        try client.sendClose()
        try await log.waitForEnd()
    }

    @Test("An async-face server whose task stops reading messages stops the socket reading; it resumes when the task reads")
    func asyncServerStopsReading() async throws {
        let probe = Probe(.live)
        let server = try shimAsyncServer(probe.system, options: Self.options)
        let gate = Watched(false)
        let taken = Watched([[UInt8]]())
        let serving = Task {
            await server.run { socket in
                do {
                    try await gate.wait(for: "the test's signal to read", timeout: .seconds(90)) { $0 }
                    for try await message in socket.messages {
                        if case .binary(let bytes) = message { taken.update { $0.append(bytes) } }
                    }
                } catch {}
            }
        }
        let log = EventLog()
        let client = try shimClient(.live, port: server.port, configuration: Self.configuration, options: Self.options, log: log)
        try await log.waitForOpen()
        let (accepted, refusal) = Self.sendUntilRefused(client)
        var sent = accepted
        guard case .bufferFull? = refusal else { throw TestFailure("no refusal after \(sent) sends") }
        let read = try await probe.counts.wait(for: "the server reading up to the mark") { $0.receivedBytes >= Self.maxHeld }
        #expect(read.receivedBytes <= Self.readBound)

        gate.update { $0 = true }
        try await Self.sendWhenDrained(client, log, Self.message(sent))
        sent += 1
        let total = sent
        try await taken.wait(for: "every message read", timeout: .seconds(60)) { $0.count >= total }
        #expect(Self.inOrder(taken.value, count: total))
        try client.sendClose()
        guard case .closed(let status) = try await log.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.wasClean)
        server.stop()
        await serving.value
    }

    @Test("An async-face client that stops reading stops its socket reading: the server's sends are refused, then all arrive in order")
    func asyncClientStopsReading() async throws {
        // 4 MiB: more than the server's buffer, the small kernel buffers and the client's mark hold.
        let total = 64
        struct Flood: Sendable {
            var sent = 0
            var refusals = 0
        }
        let flood = Watched(Flood())
        let serverLog = EventLog()
        // The server sends until refused, and again after each drain, then "end".
        let serverProbe = Probe(.live, socketBuffer: 64 << 10)
        let server = try shimServer(serverProbe.system, configuration: Self.configuration, options: Self.options, log: serverLog) { socket, event in
            switch event {
            case .open, .drained:
                while flood.value.sent <= total {
                    let next = flood.value.sent
                    do {
                        if next == total { try socket.send(text: "end") } else { try socket.send(binary: Self.message(next)) }
                        flood.update { $0.sent += 1 }
                    } catch {
                        flood.update { $0.refusals += 1 }
                        return
                    }
                }
            default:
                break
            }
        }
        defer { server.stop() }
        let probe = Probe(.live, socketBuffer: 64 << 10)
        let client = try await shimAsyncClient(probe.system, port: server.port, configuration: Self.configuration, options: Self.options)
        // Nothing is read from `messages` yet: the client stops reading at the mark, the kernel's
        // buffers fill (the server's writes are cut), the server's buffer fills.
        let read = try await probe.counts.wait(for: "the client reading up to the mark") { $0.receivedBytes >= Self.maxHeld }
        #expect(read.receivedBytes <= Self.readBound)
        try await serverProbe.counts.wait(for: "the server's writes cut") { $0.sendsCut >= 1 }
        #expect(probe.counts.value.receivedBytes <= Self.readBound)
        #expect(flood.value.sent < total)

        var messages: [[UInt8]] = []
        for try await message in client.messages {
            if case .binary(let bytes) = message {
                messages.append(bytes)
            } else {
                #expect(message == .text("end"))
                break
            }
        }
        #expect(Self.inOrder(messages, count: total))
        #expect(serverLog.drains.count >= 1)
        let status = try await client.close()
        #expect(status.wasClean)
    }
}
