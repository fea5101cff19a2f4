import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// Backpressure: a peer that stops reading fills the output buffer up to the high-water mark, sends
/// are then refused (or wait, in the async face), memory stays bounded, and the drain is reported
/// once the peer reads again.
@Suite("Backpressure", .timeLimit(.minutes(1)))
struct BackpressureTests {
    static let highWaterMark = 1 << 20
    static let lowWaterMark = 256 << 10
    static let chunk = 64 << 10

    static var clientConfiguration: Configuration {
        var configuration = Configuration()
        configuration.limits.maxBufferedOutput = highWaterMark
        return configuration
    }

    static var clientOptions: TransportOptions {
        var options = TransportOptions()
        options.lowWaterMark = lowWaterMark
        return options
    }

    /// A server that counts the binary messages it receives; its handler queue is returned so that a
    /// test can stop it (the server then stops reading once it holds `maxUndeliveredBytes`).
    static func makeSink() throws -> (WebSocketServer, DispatchQueue, EventLog) {
        let queue = DispatchQueue(label: "sink")
        let log = EventLog()
        var options = TransportOptions()
        options.maxUndeliveredBytes = 1 << 20
        let server = try WebSocketServer(options: options, queue: queue) { _, event in
            if case .binary(let bytes) = event {
                log.append(.binary(Array(bytes.prefix(1))))  // keep the log small
            } else {
                log.append(event)
            }
        }
        return (server, queue, log)
    }

    @Test("A peer that stops reading: bufferedAmount reaches the high-water mark, sends are refused, the drain is reported")
    func refusedThenDrained() async throws {
        let (server, sinkQueue, sinkLog) = try Self.makeSink()
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port), configuration: Self.clientConfiguration,
                                       options: Self.clientOptions, log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        try await sinkLog.wait(for: "the server's open") { !$0.isEmpty }
        #expect(client.highWaterMark == Self.highWaterMark)

        sinkQueue.suspend()  // the server's user stops consuming
        var resumed = false
        defer { if !resumed { sinkQueue.resume() } }

        let message = payload(Self.chunk)
        var sent = 0
        var refusal: WebSocketError?
        for _ in 0..<2000 {  // 125 MiB at most: far beyond what the kernel buffers hold
            do {
                try client.send(binary: message)
                sent += 1
            } catch {
                refusal = error
                break
            }
        }
        guard case .bufferFull(let amount)? = refusal else {
            throw TestFailure("no refusal after \(sent) messages: \(String(describing: refusal))")
        }
        // Memory stays bounded: the buffer stops within one message (and its frame header) past the mark.
        #expect(amount >= Self.highWaterMark)
        #expect(amount <= Self.highWaterMark + Self.chunk + 14)
        #expect(throws: WebSocketError.bufferFull(bufferedAmount: amount)) { try client.send(binary: message) }
        #expect(client.bufferedAmount == amount)
        #expect(!log.all.contains { if case .drained = $0 { true } else { false } })

        sinkQueue.resume()  // the peer reads again
        resumed = true
        let events = try await log.wait(for: "the drain") { events in
            events.contains { if case .drained = $0 { true } else { false } }
        }
        let drained = events.compactMap { if case .drained(let amount) = $0 { amount } else { nil } }
        #expect(drained.count == 1)
        #expect(drained.allSatisfy { $0 <= Self.lowWaterMark })
        try client.send(binary: message)
        sent += 1

        try await sinkLog.wait(for: "every message at the server", timeout: .seconds(30)) { events in
            events.filter { if case .binary = $0 { true } else { false } }.count == sent
        }
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("The async send waits for room, and a cancelled waiting send is not sent")
    func asyncSendWaits() async throws {
        let (server, sinkQueue, sinkLog) = try Self.makeSink()
        defer { server.stop() }
        let client = try await withTimeout {
            try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port),
                                        configuration: Self.clientConfiguration, options: Self.clientOptions)
        }
        try await sinkLog.wait(for: "the server's open") { !$0.isEmpty }
        sinkQueue.suspend()
        var resumed = false
        defer { if !resumed { sinkQueue.resume() } }

        // Fill the buffer with sends that complete, until one has to wait.
        let message = payload(Self.chunk)
        var sent = 0
        while sent < 2000 {
            let done = Counter()
            let waiting = Task {
                try await client.send(.binary(message))
                done.increment()
            }
            // Either the send completes, or the buffer is at the mark and the send waits for room.
            let settled = await eventually(timeout: .seconds(10)) {
                done.value == 1 || client.bufferedAmount >= Self.highWaterMark
            }
            #expect(settled)
            if done.value == 1 {
                sent += 1
                continue
            }
            // This send waits for room. Cancel it: it must not be sent.
            try await Task.sleep(for: .milliseconds(50))
            #expect(done.value == 0)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            break
        }
        #expect(client.bufferedAmount >= Self.highWaterMark)
        #expect(client.bufferedAmount <= Self.highWaterMark + Self.chunk + 14)

        // A send that waits, then completes once the peer reads again.
        let last = Task { try await client.send(.binary(payload(100, seed: 1))) }
        try await Task.sleep(for: .milliseconds(100))
        sinkQueue.resume()
        resumed = true
        try await withTimeout { try await last.value }
        sent += 1

        try await sinkLog.wait(for: "every message at the server", timeout: .seconds(30)) { events in
            events.filter { if case .binary = $0 { true } else { false } }.count == sent
        }
        // The cancelled message never arrived: the count is exact, and the last one is the 100-byte one.
        try await Task.sleep(for: .milliseconds(100))
        let binaries = sinkLog.all.compactMap { if case .binary(let b) = $0 { b } else { nil } }
        #expect(binaries.count == sent)
        #expect(binaries.last == [payload(100, seed: 1)[0]])
        let status = try await withTimeout { try await client.close() }
        #expect(status.wasClean)
    }
}
