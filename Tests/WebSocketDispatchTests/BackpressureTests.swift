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

    static var clientConfiguration: Connection.Configuration {
        var configuration = Connection.Configuration()
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
        // A peer that completes the handshake and then reads nothing until told to: once the kernel's
        // buffers and the client's are full, nothing drains, so a waiting send stays waiting for as
        // long as the test needs (a peer that reads, however little, would race the cancellation).
        let listener = try RawListener()
        let url = Loopback.url("127.0.0.1", listener.port)
        let connecting = Task {
            try await WebSocket.connect(to: url, configuration: Self.clientConfiguration, options: Self.clientOptions)
        }
        let peer = try await blocking { Result { try listener.accept() } }.get()
        let opened = try await blocking { Result { try peer.acceptHandshake() } }.get()
        let client = try await withTimeout { try await connecting.value }

        // Fill everything with sends that complete, until one has to wait.
        let message = payload(Self.chunk)
        var sent = 0
        var waiting: Task<Void, any Error>? = nil
        while sent < 2000 {
            let done = Counter()
            let task = Task {
                try await client.send(.binary(message))
                done.increment()
            }
            let settled = await eventually(timeout: .seconds(20)) { done.value == 1 || client.waitingSendCount == 1 }
            #expect(settled)
            if done.value == 1 {
                sent += 1
                continue
            }
            waiting = task
            break
        }
        let waitingTask = try #require(waiting)
        #expect(client.bufferedAmount >= Self.highWaterMark - Self.lowWaterMark)
        #expect(client.bufferedAmount <= Self.highWaterMark + Self.chunk + 14)

        // Cancelled while it waits: CancellationError, and it is never sent.
        waitingTask.cancel()
        await #expect(throws: CancellationError.self) { try await waitingTask.value }
        #expect(client.waitingSendCount == 0)

        // A send that waits, then completes once the peer reads again.
        let last = Task { try await client.send(.binary(payload(100, seed: 1))) }
        #expect(await eventually(timeout: .seconds(20)) { client.waitingSendCount == 1 })
        let received: [Int] = await blocking {
            var server = opened
            var sizes: [Int] = []
            while sizes.last != 100, let bytes = peer.read(timeout: .seconds(20)), !bytes.isEmpty {
                server.receive(bytes)
                while let event = server.nextEvent() {
                    if case .binary(let payload) = event { sizes.append(payload.count) }
                }
            }
            return sizes
        }
        try await withTimeout { try await last.value }
        // Every completed send arrived, in order, then the last one: the cancelled one never did.
        #expect(received == Array(repeating: Self.chunk, count: sent) + [100])
        client.cancel()
    }
}
