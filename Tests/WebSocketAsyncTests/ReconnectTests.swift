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
@testable import WebSocketAsync

// MARK: Test seams: a seeded generator and a clock whose waits pass at once (or wait to be cut short)

/// SplitMix64: a seeded generator, so that random waits are the same on every run.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A generator that counts how often it was drawn on.
struct CountingGenerator: RandomNumberGenerator, Sendable {
    var draws = 0
    var inner = SeededGenerator(seed: 1)
    mutating func next() -> UInt64 {
        draws += 1
        return inner.next()
    }
}

/// A clock for the client's waits: each wait is recorded; by default it passes at once (the clock
/// jumps to its end), with `holdsWaits` it lasts until the waiting task is cancelled. `now` moves
/// only by waits that passed and by ``advance(by:)``.
struct TestClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    struct Wait: Sendable {
        var delay: Duration
        var cut = false
    }

    final class Record: Sendable {
        let holdsWaits: Bool
        let now = Locked(Duration.zero)
        /// Every wait asked for, and whether each was cut short.
        let waits = Watched<[Wait]>([])
        init(holdsWaits: Bool) { self.holdsWaits = holdsWaits }
    }

    let record: Record
    init(holdsWaits: Bool = false) { record = Record(holdsWaits: holdsWaits) }

    var now: Instant { Instant(offset: record.now.withLock { $0 }) }
    var minimumResolution: Duration { .zero }
    /// The waits asked for so far.
    var delays: [Duration] { record.waits.value.map(\.delay) }

    func advance(by duration: Duration) { record.now.withLock { $0 += duration } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let delay = deadline.offset - now.offset
        let index = record.waits.update { waits in
            waits.append(Wait(delay: delay))
            return waits.count - 1
        }
        if record.holdsWaits {
            await untilCancelled()
            record.waits.update { $0[index].cut = true }
            throw CancellationError()
        }
        record.now.withLock { $0 = max($0, deadline.offset) }
    }

    /// Waits for the task's cancellation (no timer: the test's time limit bounds it).
    private func untilCancelled() async {
        let parked = Locked<(continuation: CheckedContinuation<Void, Never>?, cancelled: Bool)>((nil, false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = parked.withLock { state in
                    if state.cancelled { return true }
                    state.continuation = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = parked.withLock { state in
                state.cancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }
}

// MARK: A scripted server

/// A loop-face server that decides each handshake and acts on each opened connection by its index
/// (0 for the first), and records what its connections saw.
final class ScriptedServer: Sendable {
    let server: WebSocketServer
    let handshakes = Watched(0)
    let opened = Watched(0)
    /// How each connection ended, as the server saw it, by index.
    let endings = Watched<[Int: Connection.CloseStatus]>([:])
    private let indexes = Locked<[ObjectIdentifier: Int]>([:])

    init(port: UInt16 = 0,
         decide: @escaping @Sendable (Int) -> Connection.HandshakeDecision = { _ in .accept() },
         onOpen: @escaping @Sendable (Int, WebSocket) -> Void = { _, _ in },
         onMessage: @escaping @Sendable (Int, WebSocket) -> Void = { _, _ in }) throws {
        let handshakes = self.handshakes, opened = self.opened, endings = self.endings, indexes = self.indexes
        server = try WebSocketServer(port: port, configuration: testConfiguration(), handshake: { _ in
            let index = handshakes.update { count in
                defer { count += 1 }
                return count
            }
            return decide(index)
        }, handler: { socket, event in
            switch event {
            case .open:
                let index = opened.update { count in
                    indexes.withLock { $0[ObjectIdentifier(socket)] = count }
                    defer { count += 1 }
                    return count
                }
                onOpen(index, socket)
            case .closed(let status):
                if let index = indexes.withLock({ $0[ObjectIdentifier(socket)] }) {
                    endings.update { $0[index] = status }
                }
            case .message:
                if let index = indexes.withLock({ $0[ObjectIdentifier(socket)] }) { onMessage(index, socket) }
            case .drained, .failed:
                break
            }
        })
    }

    var port: UInt16 { server.port }
    var url: String { "ws://127.0.0.1:\(server.port)/" }

    /// Waits (generously) until connection `index` has ended, and returns how.
    func ending(of index: Int) async -> Connection.CloseStatus? {
        guard (try? await endings.wait(for: "the end of connection \(index)", timeout: .seconds(60)) { $0[index] != nil }) != nil else { return nil }
        return endings.value[index]
    }
}

/// An event as a short string, for comparing whole sequences.
func brief(_ event: ReconnectingWebSocket.Event?) -> String {
    switch event {
    case nil: return "end"
    case .connecting(let attempt)?: return "connecting \(attempt)"
    case .opened?: return "opened"
    case .failed(let error, let retry)?:
        let kind: String
        switch error {
        case .connectFailed: kind = "connectFailed"
        case .handshakeFailed(let failure): kind = failure.rejected.map { "HTTP \($0.head.status)" } ?? "handshakeFailed"
        case .cancelled: kind = "cancelled"
        default: kind = "\(error)"
        }
        return "failed \(kind)" + (retry == nil ? "" : ", retry")
    case .closed(let status, let retry)?:
        return "closed \(status.code.rawValue)" + (status.wasClean ? "" : " unclean") + (retry == nil ? "" : ", retry")
    }
}

/// The wait an event announces.
func retryDelay(_ event: ReconnectingWebSocket.Event?) -> Duration? {
    switch event {
    case .failed(_, let retry)?, .closed(_, let retry)?: return retry
    case .connecting?, .opened?, nil: return nil
    }
}

// MARK: The backoff

/// RFC 6455 §7.2.3: the first reconnect after a random delay, later ones increasingly later.
@Suite("Reconnect backoff (RFC 6455 §7.2.3)")
struct ReconnectBackoff_7_2_3 {
    /// Seconds of a duration, for comparisons with a tolerance.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The default policy's wait before `attempt` (2 or more) without jitter, in seconds.
    static func base(_ attempt: Int) -> Double {
        let grown: Double = 3.1 * pow(1.618, Double(attempt - 2))
        return min(grown, 90)
    }

    @Test("The defaults without jitter: websockets' sequence, 3.1 s growing by 1.618 up to 90 s")
    func defaultSequenceWithoutJitter() {
        var policy = ReconnectingWebSocket.Policy()
        policy.jitter = 0
        var generator = SeededGenerator(seed: 7)
        let delays = (2...12).map { Self.seconds(policy.delay(beforeAttempt: $0, using: &generator)) }
        let expected = [3.1, 5.0158, 8.1155644, 13.130983, 21.245931, 34.375916, 55.620232, 89.993536, 90, 90, 90]
        for (delay, want) in zip(delays, expected) {
            #expect(abs(delay - want) < 0.001, "\(delays)")
        }
    }

    @Test("A seeded generator gives the same sequence every time, within the documented bounds")
    func seededSequence() {
        let policy = ReconnectingWebSocket.Policy()
        func run() -> [Duration] {
            var generator = SeededGenerator(seed: 2024)
            return (1...15).map { policy.delay(beforeAttempt: $0, using: &generator) }
        }
        let first = run(), second = run()
        #expect(first == second)
        // The first: anywhere in 0...5 s.
        #expect(first[0] >= .zero && first[0] <= .seconds(5), "\(first)")
        // The others: the grown wait, shortened by at most 10 %.
        var shortened = 0
        for attempt in 2...15 {
            let base = Self.base(attempt)
            let delay = Self.seconds(first[attempt - 1])
            #expect(delay <= base + 1e-9 && delay >= base * 0.9 - 1e-9, "attempt \(attempt): \(delay) s, base \(base) s")
            if delay < base - 1e-6 { shortened += 1 }
        }
        // Jitter does shorten: not every wait is its base.
        #expect(shortened > 0)
        // Another seed, another first wait.
        var other = SeededGenerator(seed: 2025)
        #expect(policy.delay(beforeAttempt: 1, using: &other) != first[0])
    }

    @Test("The exact seeded values: the first wait is 5 s times the generator's first unit draw")
    func seededValues() {
        let policy = ReconnectingWebSocket.Policy()
        var generator = SeededGenerator(seed: 99)
        var mirror = SeededGenerator(seed: 99)
        let first = policy.delay(beforeAttempt: 1, using: &generator)
        let unit = Double.random(in: 0 ... 1, using: &mirror)
        #expect(abs(Self.seconds(first) - 5 * unit) < 1e-9)
        let second = policy.delay(beforeAttempt: 2, using: &generator)
        let shortening = Double.random(in: 0 ... 1, using: &mirror)
        #expect(abs(Self.seconds(second) - 3.1 * (1 - 0.1 * shortening)) < 1e-9)
    }

    @Test("Fixed waits that double (the tool's --reconnect-delay): 0.4, 0.8, 1.6… s up to 30 s, no random draw")
    func doublingWithoutRandomness() {
        let policy = ReconnectingWebSocket.Policy(initialDelay: .milliseconds(400) ... .milliseconds(400), secondDelay: .milliseconds(800),
                                                  factor: 2, maximumDelay: .seconds(30), jitter: 0)
        var generator = CountingGenerator()
        let delays = (1...9).map { Self.seconds(policy.delay(beforeAttempt: $0, using: &generator)) }
        let expected = [0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30]
        for (delay, want) in zip(delays, expected) {
            #expect(abs(delay - want) < 1e-9, "\(delays)")
        }
        #expect(generator.draws == 0)
    }

    @Test("Odd settings stay within bounds: a huge attempt number, a factor below 1, zero and negative waits, jitter over 1")
    func oddSettings() {
        var generator = SeededGenerator(seed: 3)
        let policy = ReconnectingWebSocket.Policy()
        #expect(policy.delay(beforeAttempt: 100_000, using: &generator) <= .seconds(90))
        #expect(policy.delay(beforeAttempt: 100_000, using: &generator) >= .seconds(81))
        let shrinking = ReconnectingWebSocket.Policy(factor: 0.5, jitter: 0)
        #expect(shrinking.delay(beforeAttempt: 6, using: &generator) == shrinking.delay(beforeAttempt: 2, using: &generator))
        let zero = ReconnectingWebSocket.Policy(initialDelay: .zero ... .zero, secondDelay: .zero, jitter: 0)
        #expect(zero.delay(beforeAttempt: 1, using: &generator) == .zero)
        #expect(zero.delay(beforeAttempt: 5_000, using: &generator) == .zero)
        let negative = ReconnectingWebSocket.Policy(initialDelay: .seconds(-5) ... .seconds(-1), secondDelay: .seconds(-1))
        #expect(negative.delay(beforeAttempt: 1, using: &generator) == .zero)
        #expect(negative.delay(beforeAttempt: 2, using: &generator) == .zero)
        let wild = ReconnectingWebSocket.Policy(jitter: 7)
        for attempt in 2...20 {
            let delay = wild.delay(beforeAttempt: attempt, using: &generator)
            #expect(delay >= .zero && delay <= .seconds(90))
        }
        let capped = ReconnectingWebSocket.Policy(initialDelay: .seconds(100) ... .seconds(200), maximumDelay: .seconds(10))
        #expect(capped.delay(beforeAttempt: 1, using: &generator) == .seconds(10))
    }
}

// MARK: Against a real server

@Suite("ReconnectingWebSocket", .timeLimit(.minutes(4)))
struct ReconnectTests {
    /// A client of `url` with the test clock and a seeded generator.
    static func client(_ url: String, policy: ReconnectingWebSocket.Policy = .init(),
                       clock: TestClock = TestClock()) throws -> ReconnectingWebSocket {
        try ReconnectingWebSocket(to: url, configuration: testConfiguration(), options: testOptions(), policy: policy, clock: clock,
                                  random: SeededGenerator(seed: 11))
    }

    @Test("The server closes with a code worth reconnecting: the client waits its random first delay and connects again",
          arguments: [Connection.CloseCode.serviceRestart, .goingAway, .internalError, .tryAgainLater])
    func closesWithCodeWorthReconnecting(code: Connection.CloseCode) async throws {
        let server = try ScriptedServer(onOpen: { index, socket in
            if index == 0 { try? socket.sendClose(code: code, reason: "later") }
        })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, clock: clock)
        var events = client.events.makeAsyncIterator()
        var seen: [String] = []
        var retries: [Duration] = []
        for _ in 0..<5 {
            let event = await events.next()
            seen.append(brief(event))
            if let retry = retryDelay(event) { retries.append(retry) }
            if case .closed(let status, _)? = event { #expect(status.reason == "later") }
        }
        #expect(seen == ["connecting 0", "opened", "closed \(code.rawValue), retry", "connecting 1", "opened"])
        #expect(clock.delays == retries, "the wait announced is the wait taken")
        #expect(retries.count == 1 && retries[0] >= .zero && retries[0] <= .seconds(5), "the first wait: random in 0...5 s: \(retries)")
        client.stop()
        #expect(brief(await events.next()) == "closed 1000")
        #expect(brief(await events.next()) == "end")
        #expect(await server.ending(of: 1)?.code == .normalClosure)
        #expect(server.handshakes.value == 2)
    }

    @Test("The server drops the connection without a Close (1006): reconnected")
    func abnormalClosure() async throws {
        // The first connection is dropped when its first message arrives (after its 101 went out).
        let server = try ScriptedServer(onMessage: { index, socket in
            if index == 0 { socket.cancel() }
        })
        defer { server.server.stop() }
        let client = try Self.client(server.url)
        var events = client.events.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<5 {
            let event = await events.next()
            seen.append(brief(event))
            if case .opened(let socket)? = event { try await socket.send(.text("drop me")) }
        }
        #expect(seen == ["connecting 0", "opened", "closed 1006 unclean, retry", "connecting 1", "opened"])
        client.stop()
        #expect(brief(await events.next()) == "closed 1000")
        #expect(brief(await events.next()) == "end")
    }

    @Test("The server resets the open connection (ECONNRESET, a transport failure): reconnected")
    func resetByPeer() async throws {
        let listener = try RawListener()
        defer { listener.close() }
        let client = try Self.client("ws://127.0.0.1:\(listener.port)/")
        var events = client.events.makeAsyncIterator()
        let firstPeer = Task { try await Harness.offPool { () throws -> RawSocket in
            let peer = try listener.accept(timeout: Harness.patience)
            _ = try peer.acceptHandshake()
            return peer
        } }
        #expect(brief(await events.next()) == "connecting 0")
        #expect(brief(await events.next()) == "opened")
        let first = try await firstPeer.value
        let secondPeer = Task { try await Harness.offPool { () throws -> (RawSocket, Connection) in
            let peer = try listener.accept(timeout: Harness.patience)
            return (peer, try peer.acceptHandshake())
        } }
        first.closeWithReset()
        #expect(brief(await events.next()) == "closed 1006 unclean, retry")
        #expect(brief(await events.next()) == "connecting 1")
        #expect(brief(await events.next()) == "opened")
        let (second, connection) = try await secondPeer.value
        defer { second.close() }
        // The peer answers the client's Close.
        let answered = Task { try await Harness.offPool { () -> Bool in
            var connection = connection
            let deadline = now() + Harness.patience
            while now() < deadline {
                guard let bytes = second.read(timeout: deadline - now()), !bytes.isEmpty else { return false }
                connection.receive(bytes)
                while connection.nextEvent() != nil {}
                if connection.pendingOutputCount > 0 {
                    second.write(connection.takeOutput())
                    second.close()
                    return true
                }
            }
            return false
        } }
        client.stop()
        #expect(brief(await events.next()) == "closed 1000")
        #expect(brief(await events.next()) == "end")
        #expect(try await answered.value)
    }

    @Test("The server goes away (stops with 1001) and comes back on the same port: refused meanwhile, retried, then open")
    func serverDiesAndComesBack() async throws {
        let first = try ScriptedServer()
        let port = first.port
        let clock = TestClock()
        let client = try Self.client(first.url, clock: clock)
        var events = client.events.makeAsyncIterator()
        #expect(brief(await events.next()) == "connecting 0")
        #expect(brief(await events.next()) == "opened")
        first.server.stop(closing: .goingAway)
        #expect(brief(await events.next()) == "closed 1001, retry")
        // Until a try is refused (once the listeners are closed; a try that came before that is
        // reset, or answered 1001 by the stopped server), every ending is worth another try.
        var seen: [String] = []
        while seen.count < 40, seen.last != "failed connectFailed, retry" {
            seen.append(brief(await events.next()))
        }
        #expect(seen.last == "failed connectFailed, retry", "\(seen)")
        #expect(seen.allSatisfy { !$0.hasPrefix("closed") && !$0.hasPrefix("failed") || $0.hasSuffix(", retry") }, "\(seen)")
        // The iteration drives the client: the next try waits for the test's next call.
        let second = try ScriptedServer(port: port)
        defer { second.server.stop() }
        #expect(brief(await events.next()).hasPrefix("connecting"))
        #expect(brief(await events.next()) == "opened")
        #expect(second.opened.value == 1)
        // Waits after the first grow from 3.1 s (less 10 % at most).
        let delays = clock.delays
        #expect(delays.count >= 2 && delays[1] <= .milliseconds(3100) && delays[1] >= .milliseconds(2790), "\(delays)")
        client.stop(code: .goingAway)
        #expect(brief(await events.next()) == "closed 1001")
        #expect(brief(await events.next()) == "end")
        #expect(await second.ending(of: 0)?.code == .goingAway)
    }

    @Test("A 503 answer may pass: retried; the next handshake opens")
    func retriesAfter503() async throws {
        let server = try ScriptedServer(decide: { index in index == 0 ? .reject(status: 503) : .accept() })
        defer { server.server.stop() }
        let client = try Self.client(server.url)
        var events = client.events.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<4 { seen.append(brief(await events.next())) }
        #expect(seen == ["connecting 0", "failed HTTP 503, retry", "connecting 1", "opened"])
        client.stop()
        #expect(brief(await events.next()) == "closed 1000")
        #expect(brief(await events.next()) == "end")
    }

    @Test("A 403 answer is final: no retry, the sequence ends; sockets throws it")
    func finalAfter403() async throws {
        let server = try ScriptedServer(decide: { _ in .reject(status: 403) })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, clock: clock)
        var seen: [String] = []
        for await event in client.events { seen.append(brief(event)) }
        #expect(seen == ["connecting 0", "failed HTTP 403"])
        #expect(clock.delays.isEmpty)

        let again = try Self.client(server.url)
        await #expect {
            for try await _ in again.sockets {}
        } throws: { error in
            (error as? WebSocketError).flatMap { if case .handshakeFailed(let failure) = $0 { failure.rejected?.head.status } else { nil } } == 403
        }
        #expect(server.handshakes.value == 2)
    }

    @Test("maxAttempts: that many reconnects, then the last failure ends it (and sockets throws it)")
    func attemptsLimit() async throws {
        let server = try ScriptedServer(decide: { _ in .reject(status: 503) })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, policy: .init(maxAttempts: 2), clock: clock)
        var seen: [String] = []
        for await event in client.events { seen.append(brief(event)) }
        #expect(seen == ["connecting 0", "failed HTTP 503, retry", "connecting 1", "failed HTTP 503, retry",
                         "connecting 2", "failed HTTP 503"])
        #expect(clock.delays.count == 2)
        #expect(server.handshakes.value == 3)

        let never = try Self.client(server.url, policy: .init(maxAttempts: 0))
        await #expect(throws: WebSocketError.self) {
            for try await _ in never.sockets {}
        }
        #expect(server.handshakes.value == 4)
    }

    @Test("maxAttempts counts a series: a connection open for resetAfter starts a new one (attempt 1, the random first wait)")
    func seriesResetsAfterUptime() async throws {
        let server = try ScriptedServer(onOpen: { _, socket in try? socket.sendClose(code: .serviceRestart) })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, policy: .init(jitter: 0, maxAttempts: 2, resetAfter: .seconds(5)), clock: clock)
        var events = client.events.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<6 { seen.append(brief(await events.next())) }
        #expect(seen == ["connecting 0", "opened", "closed 1012, retry", "connecting 1", "opened", "closed 1012, retry"])
        #expect(brief(await events.next()) == "connecting 2")
        #expect(brief(await events.next()) == "opened")
        // This one stayed open 10 s (on the client's clock): the next reconnect is attempt 1 again.
        clock.advance(by: .seconds(10))
        #expect(brief(await events.next()) == "closed 1012, retry")
        #expect(brief(await events.next()) == "connecting 1")
        #expect(brief(await events.next()) == "opened")
        let delays = clock.delays
        #expect(delays.count == 3, "\(delays)")
        #expect(delays.count == 3 && abs(ReconnectBackoff_7_2_3.seconds(delays[1]) - 3.1) < 1e-9 && delays[2] <= .seconds(5), "\(delays)")
        client.stop()
        _ = await events.next()
        #expect(brief(await events.next()) == "end")
    }

    @Test("stop() during a wait cuts it short: the sequence ends at once, nothing more is tried")
    func stopDuringWait() async throws {
        let server = try ScriptedServer(onOpen: { _, socket in try? socket.sendClose(code: .serviceRestart) })
        defer { server.server.stop() }
        let clock = TestClock(holdsWaits: true)
        let client = try Self.client(server.url, clock: clock)
        var events = client.events.makeAsyncIterator()
        #expect(brief(await events.next()) == "connecting 0")
        #expect(brief(await events.next()) == "opened")
        #expect(brief(await events.next()) == "closed 1012, retry")
        let rest = Task {
            var events = client.events.makeAsyncIterator()
            var seen: [String] = []
            while let event = await events.next() { seen.append(brief(event)) }
            return seen
        }
        try await clock.record.waits.wait(for: "the first wait", timeout: .seconds(60)) { $0.count == 1 }
        client.stop()
        #expect(await rest.value == [])
        #expect(clock.record.waits.value.map(\.cut) == [true])
        #expect(server.handshakes.value == 1)
    }

    @Test("stop() during a long wait on the real clock: returns at once, no real wait")
    func stopDuringRealWait() async throws {
        let server = try ScriptedServer(onOpen: { _, socket in try? socket.sendClose(code: .serviceRestart) })
        defer { server.server.stop() }
        let policy = ReconnectingWebSocket.Policy(initialDelay: .seconds(3_600) ... .seconds(3_600), maximumDelay: .seconds(3_600))
        let client = try ReconnectingWebSocket(to: server.url, configuration: testConfiguration(), options: testOptions(), policy: policy)
        var events = client.events.makeAsyncIterator()
        #expect(brief(await events.next()) == "connecting 0")
        #expect(brief(await events.next()) == "opened")
        #expect(retryDelay(await events.next()) == .seconds(3_600))
        let started = ContinuousClock.now
        let rest = Task {
            var events = client.events.makeAsyncIterator()
            return await events.next()
        }
        // Stopping before or while the wait begins: either way it ends it.
        client.stop()
        #expect(await rest.value == nil)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test("Cancelling the iterating task closes the open connection (1000) and ends the sequence")
    func cancellation() async throws {
        let server = try ScriptedServer()
        defer { server.server.stop() }
        let client = try Self.client(server.url)
        let opened = Watched(false)
        let iterating = Task {
            var seen: [String] = []
            for await event in client.events {
                seen.append(brief(event))
                if case .opened = event { opened.update { $0 = true } }
            }
            return seen
        }
        try await opened.wait(for: "the opening", timeout: .seconds(60)) { $0 }
        iterating.cancel()
        #expect(await iterating.value == ["connecting 0", "opened", "closed 1000"])
        #expect(await server.ending(of: 0)?.code == .normalClosure)
        #expect(server.handshakes.value == 1)
    }

    @Test("stop() while the handshake is under way cancels that try: failed(cancelled), then the end")
    func stopWhileConnecting() async throws {
        let silent = try SilentPeer()
        let client = try Self.client(silent.url)
        var events = client.events.makeAsyncIterator()
        #expect(brief(await events.next()) == "connecting 0")
        let rest = Task {
            var events = client.events.makeAsyncIterator()
            var seen: [String] = []
            while let event = await events.next() { seen.append(brief(event)) }
            return seen
        }
        try await silent.accepted.wait(for: "the accept", timeout: .seconds(60)) { $0 }
        client.stop()
        #expect(await rest.value == ["failed cancelled"])
    }

    @Test("A normal close by the server (1000) ends it: no retry; sockets ends without an error")
    func normalCloseIsFinal() async throws {
        let server = try ScriptedServer(onOpen: { _, socket in try? socket.sendClose(code: .normalClosure) })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, clock: clock)
        var count = 0
        for try await socket in client.sockets {
            count += 1
            do { for try await _ in socket.messages {} } catch {}
        }
        #expect(count == 1)
        #expect(clock.delays.isEmpty)
    }

    /// How a test closes a socket from this side.
    enum LocalClose: String, CaseIterable, Sendable {
        case close, sendClose, sendCloseMessage
    }

    @Test("A close this side starts ends it, whatever its code (1001 is worth reconnecting from the peer)",
          arguments: LocalClose.allCases)
    func localCloseIsFinal(how: LocalClose) async throws {
        let server = try ScriptedServer()
        defer { server.server.stop() }
        let client = try Self.client(server.url)
        var events = client.events.makeAsyncIterator()
        #expect(brief(await events.next()) == "connecting 0")
        guard case .opened(let socket)? = await events.next() else {
            Issue.record("not opened")
            return
        }
        switch how {
        case .close: _ = try await socket.close(code: .goingAway)
        case .sendClose: try socket.sendClose(code: .goingAway)
        case .sendCloseMessage: try await socket.send(.close(Connection.CloseFrame(code: .goingAway)))
        }
        #expect(brief(await events.next()) == "closed 1001")
        #expect(brief(await events.next()) == "end")
        #expect(server.handshakes.value == 1)
    }

    @Test("sockets, as in Python: each open connection in turn, reconnecting between them, until a normal close")
    func socketsSequence() async throws {
        let server = try ScriptedServer(onOpen: { index, socket in
            try? socket.send(text: "hello \(index)")
            try? socket.sendClose(code: index < 2 ? .serviceRestart : .normalClosure)
        })
        defer { server.server.stop() }
        let clock = TestClock()
        let client = try Self.client(server.url, clock: clock)
        var greetings: [String] = []
        for try await socket in client.sockets {
            do {
                for try await message in socket.messages {
                    if case .text(let text) = message { greetings.append(text) }
                }
            } catch {}
        }
        #expect(greetings == ["hello 0", "hello 1", "hello 2"])
        #expect(clock.delays.count == 2)
    }

    @Test("stop() before iterating: nothing connects")
    func stopBeforeIterating() async throws {
        let server = try ScriptedServer()
        defer { server.server.stop() }
        let client = try Self.client(server.url)
        client.stop()
        var seen: [String] = []
        for await event in client.events { seen.append(brief(event)) }
        #expect(seen == [])
        #expect(server.handshakes.value == 0)
    }
}

/// A TCP listener that accepts one connection and never answers its handshake: it reads until the
/// client gives up.
final class SilentPeer: Sendable {
    private let peer: RawPeer
    let accepted = Watched(false)

    init() throws {
        let accepted = self.accepted
        peer = try RawPeer { socket in
            accepted.update { $0 = true }
            _ = try? socket.readToEnd(timeout: .seconds(60))
        }
    }

    var url: String { peer.url }
}
