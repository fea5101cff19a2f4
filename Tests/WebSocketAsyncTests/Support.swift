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

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Waiting for events

/// A value that threads update and tests wait on, without polling: every update checks the waits
/// whose condition it may have made true, and resumes them.
final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let isDone: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }
    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID = 0
    }
    private let state: Locked<State>

    init(_ value: Value) { state = Locked(State(value: value)) }

    var value: Value { state.withLock { $0.value } }

    /// Changes the value, and resumes the waits it satisfies.
    @discardableResult
    func update<T>(_ body: (inout Value) -> T) -> T {
        let (result, ready) = state.withLock { state -> (T, [Waiter]) in
            let result = body(&state.value)
            guard !state.waiters.isEmpty else { return (result, []) }
            var ready: [Waiter] = []
            state.waiters.removeAll { waiter in
                guard waiter.isDone(state.value) else { return false }
                ready.append(waiter)
                return true
            }
            return (result, ready)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
        return result
    }

    /// Waits until `isDone` holds, for at most `timeout` (a bound for hangs, never reached by a test
    /// that passes); returns the value then, or throws naming `what` and the value seen.
    @discardableResult
    func wait(for what: String, timeout: Duration = Harness.patience, _ isDone: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        let done = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id: Int? = state.withLock { state in
                if isDone(state.value) { return nil }
                state.nextID += 1
                state.waiters.append(Waiter(id: state.nextID, isDone: isDone, continuation: continuation))
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            let state = self.state
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout / .milliseconds(1)))) {
                let expired: Waiter? = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                expired?.continuation.resume(returning: false)
            }
        }
        let seen = value
        guard done else { throw TestFailure("timed out after \(timeout) waiting for \(what); saw \(describe(seen))") }
        return seen
    }

    private func describe(_ value: Value) -> String {
        if let events = value as? [WebSocketEvent] { return "\(events.map(\.brief))" }
        return "\(value)"
    }
}

/// The events a handler saw, in order (one connection's, or every connection's of a server).
typealias EventLog = Watched<[WebSocketEvent]>

extension Watched where Value == [WebSocketEvent] {
    convenience init() { self.init([]) }

    func append(_ event: WebSocketEvent) { update { $0.append(event) } }

    var all: [WebSocketEvent] { value }

    /// Waits for the last event (`.closed` or `.failed`) and returns it.
    @discardableResult
    func waitForEnd(timeout: Duration = Harness.patience) async throws -> WebSocketEvent {
        let events = try await wait(for: "the last event", timeout: timeout) { $0.contains { $0.isLast } }
        return events.first { $0.isLast }!
    }

    /// Waits for the opening.
    func waitForOpen(timeout: Duration = Harness.patience) async throws {
        try await wait(for: "open", timeout: timeout) { $0.contains { if case .open = $0 { true } else { false } } }
    }

    /// The payloads of the binary messages, in order.
    var binaries: [[UInt8]] { all.compactMap { if case .message(.binary(let bytes)) = $0 { bytes } else { nil } } }
    /// The text messages, in order.
    var texts: [String] { all.compactMap { if case .message(.text(let text)) = $0 { text } else { nil } } }
    /// The amounts the drains reported.
    var drains: [Int] { all.compactMap { if case .drained(let amount) = $0 { amount } else { nil } } }
}

extension WebSocketEvent {
    var isLast: Bool {
        switch self {
        case .closed, .failed: return true
        case .open, .message, .drained: return false
        }
    }

    /// A short description, without multi-megabyte payloads.
    var brief: String {
        switch self {
        case .open(let result): return "open(\(result.subprotocol ?? "-"))"
        case .message(.text(let text)): return "text(\(text.utf8.count) B)"
        case .message(.binary(let bytes)): return "binary(\(bytes.count) B)"
        case .message(let other): return "message(\(other.payloadSize) B)"
        case .drained(let amount): return "drained(\(amount))"
        case .closed(let status): return "closed(\(status.code.rawValue), clean: \(status.wasClean), \(String(describing: status.failure)))"
        case .failed(let error): return "failed(\(error))"
        }
    }
}

/// Runs a blocking call on a thread of its own, off the cooperative pool (one thread per core,
/// which a blocking wait would hold while the tasks it waits for queue behind it).
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "blocking").async { continuation.resume(returning: body()) }
    }
}

extension WebSocket {
    /// Runs `body` on the socket's loop and returns what it returns, waiting as a task does: the
    /// blocking `onLoop` would hold a thread of the cooperative pool until the loop gets to it.
    func onLoopAwaited<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
    }
}

/// Waits (off the pool) until every descriptor opened through `faults` is closed.
func descriptorsClosed(_ faults: Faults) async -> Set<Int32> {
    await blocking { faults.waitForDescriptorsClosed(timeout: Harness.patience) }
}

/// A deterministic payload of `count` bytes.
func payload(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBufferPointer { buffer in
        var value = seed
        for index in buffer.indices {
            buffer[index] = value
            value = value &* 31 &+ 11
        }
    }
    return bytes
}

// MARK: Configuration

/// The core's configuration for tests: timers that bound hangs only, so that a loaded machine (two
/// busy loops, ThreadSanitizer) does not turn slowness into failures.
func testConfiguration() -> Connection.Configuration {
    var configuration = Connection.Configuration()
    configuration.timeouts.handshake = .seconds(60)
    configuration.timeouts.close = .seconds(60)
    return configuration
}

func testOptions() -> TransportOptions {
    var options = TransportOptions()
    options.connectTimeout = .seconds(60)
    options.writeTimeout = .seconds(60)
    return options
}

// MARK: Clients and servers under a shim

/// A client of `127.0.0.1:port` whose system calls are `system`'s, reporting to `log` (and then to
/// `handler`) on its loop, or on `queue`.
@discardableResult
func shimClient(_ system: SystemCalls, port: UInt16, path: String = "/", subprotocols: [String] = [],
                configuration: Connection.Configuration = testConfiguration(), options: TransportOptions = testOptions(),
                queue: DispatchQueue? = nil, log: EventLog, handler: WebSocket.EventHandler? = nil) throws -> WebSocket {
    let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port, resource: path), subprotocols: subprotocols)
    let report: WebSocket.EventHandler = { socket, event in
        log.append(event)
        handler?(socket, event)
    }
    let consumer: Consumer = queue.map { .queueHandler(DispatchQueue(label: "client events", target: $0), report) } ?? .loopHandler(report)
    return try WebSocket.startClient(request, via: WebSocketEndpoint(url: request.url), configuration: configuration, options: options,
                                     consumer: consumer, system: system)
}

/// An async-face client of `127.0.0.1:port` whose system calls are `system`'s.
func shimAsyncClient(_ system: SystemCalls, port: UInt16, configuration: Connection.Configuration = testConfiguration(),
                     options: TransportOptions = testOptions()) async throws -> WebSocket {
    let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))
    return try await WebSocket.connect(request, via: WebSocketEndpoint(url: request.url), configuration: configuration,
                                       options: options, system: system)
}

/// Echoes every message (text, binary, fragments) back; the core answers pings and the Close.
let echoHandler: WebSocket.EventHandler = { socket, event in
    if case .message(let message) = event, message.isData { try? socket.send(message) }
}

/// A server on 127.0.0.1 whose system calls are `system`'s (`.live` for none), with handlers on its
/// loops or on `queue`: every event goes to `log`, then to `handler` (an echo by default).
func shimServer(_ system: SystemCalls = .live, configuration: Connection.Configuration = testConfiguration(),
                options: TransportOptions = testOptions(), queue: DispatchQueue? = nil, loops: Int? = nil,
                handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                log: EventLog? = nil, handler: @escaping WebSocket.EventHandler = echoHandler) throws -> WebSocketServer {
    let report: WebSocket.EventHandler = { socket, event in
        log?.append(event)
        handler(socket, event)
    }
    return try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 128,
                               configuration: configuration, options: options, loops: loops, handshake: handshake,
                               face: queue.map { .queueHandler($0, report) } ?? .loopHandler(report), system: system)
}

/// An async-face server on 127.0.0.1 whose system calls are `system`'s.
func shimAsyncServer(_ system: SystemCalls = .live, configuration: Connection.Configuration = testConfiguration(),
                     options: TransportOptions = testOptions(), loops: Int? = nil) throws -> WebSocketServer {
    try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 128,
                        configuration: configuration, options: options, loops: loops, handshake: { _ in .accept() },
                        face: .async(ConnectionQueue(limit: 128)), system: system)
}

/// A raw peer that accepted a client's connection on `listener` and completed the opening handshake:
/// the socket, and the core's server connection (to frame what the test sends next).
func rawServer(for listener: RawListener, log: EventLog) async throws -> (RawSocket, Connection) {
    let peer = try await blocking { Result { try listener.accept(timeout: Harness.patience) } }.get()
    let connection = try await blocking { Result { try peer.acceptHandshake() } }.get()
    try await log.waitForOpen()
    return (peer, connection)
}

/// Reads from a raw peer and parses with `connection` until `isDone` holds for the messages so far
/// (or 60 seconds pass without a byte): every message, in order.
func readMessages(_ peer: RawSocket, _ connection: Connection, until isDone: @escaping @Sendable ([WebSocketMessage]) -> Bool)
    async -> [WebSocketMessage] {
    await blocking {
        var connection = connection
        var messages: [WebSocketMessage] = []
        while !isDone(messages), let bytes = peer.read(timeout: Harness.patience), !bytes.isEmpty {
            connection.receive(bytes)
            while let event = connection.nextEvent() {
                switch event {
                case .text(let text): messages.append(.text(text))
                case .binary(let bytes): messages.append(.binary(bytes))
                default: break
                }
            }
        }
        return messages
    }
}

// MARK: Watching system calls

/// `system` with some calls watched: bytes received, connections accepted; and, optionally, small
/// kernel buffers on every socket it makes or accepts, so that reads come short and writes fill the
/// socket for real (a real `EAGAIN`, a real short write).
final class Probe: Sendable {
    struct Counts: Sendable, CustomStringConvertible {
        var receivedBytes = 0
        var sentBytes = 0
        /// Sends that the kernel took only in part, or not at all (its buffer full).
        var sendsCut = 0
        var acceptCalls = 0
        var accepted = 0
        var description: String {
            "received \(receivedBytes) B, sent \(sentBytes) B (\(sendsCut) cut), \(acceptCalls) accept calls, accepted \(accepted)"
        }
    }

    let counts = Watched(Counts())
    let system: SystemCalls

    init(_ base: SystemCalls, socketBuffer: Int32? = nil) {
        var system = base
        let counts = self.counts
        let shrink: @Sendable (Int32) -> Void = { descriptor in
            guard let size = socketBuffer, descriptor >= 0 else { return }
            var value = size
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        system.socket = { domain, type, proto in
            let descriptor = base.socket(domain, type, proto)
            shrink(descriptor)
            return descriptor
        }
        system.accept = { descriptor, address, length in
            let accepted = base.accept(descriptor, address, length)
            // Counting must not disturb the failure's errno.
            let failure = errno
            defer { errno = failure }
            if accepted >= 0 { shrink(accepted) }
            counts.update { counts in
                counts.acceptCalls += 1
                if accepted >= 0 { counts.accepted += 1 }
            }
            return accepted
        }
        system.receive = { descriptor, buffer, count in
            let result = base.receive(descriptor, buffer, count)
            if result > 0 { counts.update { $0.receivedBytes += result } }
            return result
        }
        let countSend: @Sendable (Int, Int) -> Void = { result, offered in
            let failure = errno
            defer { errno = failure }
            counts.update { counts in
                if result > 0 { counts.sentBytes += result }
                if result < offered { counts.sendsCut += 1 }
            }
        }
        system.send = { descriptor, buffer, count in
            let result = base.send(descriptor, buffer, count)
            countSend(result, count)
            return result
        }
        system.sendPieces = { descriptor, pieces, count in
            let result = base.sendPieces(descriptor, pieces, count)
            var offered = 0
            for index in 0..<Int(count) { offered += pieces[index].iov_len }
            countSend(result, offered)
            return result
        }
        self.system = system
    }
}

/// The readiness backend of this process's loops.
var backend: ReadinessBackend { ReadinessBackend.selected }

/// A duration as a Dispatch interval: whole nanoseconds rounded up, at least 0, at most a year.
func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    guard duration > .zero else { return .nanoseconds(0) }
    let (seconds, attoseconds) = duration.components
    guard seconds < 365 * 86_400 else { return .seconds(365 * 86_400) }
    let nanoseconds = seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000
    return .nanoseconds(Int(nanoseconds))
}

/// Waits until `condition` holds (checked every 5 ms on a thread of its own), at most
/// ``Harness/patience``: for a state no event reports (a server's counts, its drain begun).
/// Whether it came to hold.
func eventually(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
    await blocking { () -> Bool in
        let deadline = now() + Harness.patience
        while !condition() {
            guard now() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }
}

/// A raw client of the server on `port` that completes its opening handshake and then reads and
/// answers nothing (a peer that never takes part in the closing handshake); `nil` if it could not
/// open.
func openSilentClient(port: UInt16) async throws -> RawSocket? {
    let socket = try RawSocket.connect(port: port)
    let opened = await blocking { () -> Bool in
        guard var client = try? Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port)))) else {
            return false
        }
        socket.write(client.takeOutput())
        while let bytes = socket.read(timeout: Harness.patience), !bytes.isEmpty {
            client.receive(bytes)
            if case .handshakeCompleted? = client.nextEvent() { return true }
        }
        return false
    }
    return opened ? socket : nil
}
