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
import WebSocketPOSIX
import TransportTestSupport
@testable import WebSocketAsync

// What the face tests share: every face of client and server behind one small interface, so that
// each scenario is written once and run for every pair of faces, and a transcript of events that
// tests wait on without sleeping.
//
// The names here are the face tests' own (`Transcript`, `FaceServer`, `FaceClient`, `Harness`), so
// that they stay apart from the support of the other test files of this target.

/// What went wrong, as text.
struct FaceFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Faces

/// A server face: handlers on the loop, handlers on a queue, async (``WebSocketServer/run(_:)``), or
/// the blocking server of WebSocketPOSIX.
enum ServerFace: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case loop, queue, async, blocking

    /// The faces of the non-blocking server.
    static let nonBlocking: [ServerFace] = [.loop, .queue, .async]

    var testDescription: String { "\(rawValue) server" }
}

/// A client face: handlers on the loop, handlers on a queue, async/await, or the blocking client
/// of WebSocketPOSIX.
enum ClientFace: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case loop, queue, async, blocking

    /// The faces of the non-blocking client.
    static let nonBlocking: [ClientFace] = [.loop, .queue, .async]

    var testDescription: String { "\(rawValue) client" }
}

/// A client face against a server face.
struct FacePair: Sendable, CustomTestStringConvertible {
    var client: ClientFace
    var server: ServerFace

    /// Every non-blocking client face against every non-blocking server face, and the blocking
    /// client and server against each non-blocking face.
    static let all: [FacePair] = ClientFace.nonBlocking.flatMap { client in ServerFace.nonBlocking.map { FacePair(client: client, server: $0) } }
        + ServerFace.nonBlocking.map { FacePair(client: .blocking, server: $0) }
        + ClientFace.nonBlocking.map { FacePair(client: $0, server: .blocking) }

    var testDescription: String { "\(client.rawValue) client, \(server.rawValue) server" }
}

// MARK: Settings and small tools

enum Harness {
    /// The connection's timers for tests: bounds for hangs only, so that a loaded machine (two busy
    /// loops, ThreadSanitizer) does not turn slowness into failures.
    static func configuration() -> Connection.Configuration {
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .seconds(60)
        configuration.timeouts.close = .seconds(60)
        return configuration
    }

    /// Limits raised above 16 MiB (the default frame and message limit is exactly 16 MiB).
    static func largeConfiguration() -> Connection.Configuration {
        var configuration = configuration()
        configuration.limits.maxFrameSize = 20 << 20
        configuration.limits.maxMessageSize = 20 << 20
        return configuration
    }

    /// Transport options for tests: generous bounds, as above.
    static func options() -> TransportOptions {
        var options = TransportOptions()
        options.connectTimeout = .seconds(60)
        options.writeTimeout = .seconds(60)
        return options
    }

    /// How long a test waits for an event before it fails.
    static let patience: Duration = .seconds(60)

    /// An event loop of the calling test's own, for a test that holds a loop on purpose (a handler
    /// that waits, a long turn): every other test's sockets run on the shared loops
    /// (`EventLoops.shared`), and holding one of those holds their timers' reactions too, which
    /// under ThreadSanitizer ran their handshakes out. Loops are never stopped: its thread stays for
    /// the rest of the run.
    static func privateLoop() throws -> EventLoop {
        do throws(Errno) {
            return try EventLoop(index: 0, backend: ReadinessBackend.selected)
        } catch {
            throw FaceFailure("no event loop of the test's own: \(error)")
        }
    }

    private static let payloads = Locked<[Int: [UInt8]]>([:])

    /// `count` bytes of a deterministic pattern, made once per size and seed for the whole run: the
    /// payloads of the face matrix are made by a few calls instead of one per test case, which
    /// under ThreadSanitizer held the cooperative pool's threads for seconds.
    static func bytes(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        let key = count << 8 | Int(seed)
        if let made = payloads.withLock({ $0[key] }) { return made }
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            var value = seed
            for index in buffer.indices {
                buffer[index] = value
                value = value &* 31 &+ 11
            }
        }
        payloads.withLock { $0[key] = bytes }
        return bytes
    }

    /// Whether `::1` can be listened on here.
    static let hasIPv6: Bool = {
        guard case .success(let addresses) = AddressResolution.resolve(host: "::1", port: 0, passive: true),
              let address = addresses.first else { return false }
        return (try? Socket.listening(on: address, backlog: 1, system: .live)) != nil
    }()

    /// The URL of `path` on `host` and `port` (brackets for IPv6).
    static func url(_ host: String, _ port: UInt16, _ path: String = "/", scheme: String = "ws") -> String {
        host.contains(":") ? "\(scheme)://[\(host)]:\(port)\(path)" : "\(scheme)://\(host):\(port)\(path)"
    }

    /// A fresh path for a Unix domain socket.
    static func unixSocketPath() -> String {
        "/tmp/ws-faces-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    /// Runs `body` on a thread of its own, off Swift's cooperative pool (one thread per core), which
    /// a blocking call would otherwise hold while the tasks it waits for need it.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Result<T, any Error> = try await withCheckedThrowingContinuation { continuation in
            do throws(Errno) {
                try spawnDetachedThread { continuation.resume(returning: Result { try body() }) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return try result.get()
    }

    /// Fails if `operation` does not finish within `timeout`: its task is cancelled then, and left
    /// behind if it does not end (a hang must fail the test, not hold it).
    static func withTimeout<T: Sendable>(_ timeout: Duration = patience, _ what: String = "the operation",
                                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiter = Locked<CheckedContinuation<T, any Error>?>(nil)
        let resume: @Sendable (Result<T, any Error>) -> Bool = { result in
            let continuation = waiter.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }
            continuation?.resume(with: result)
            return continuation != nil
        }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            waiter.withLock { $0 = continuation }
            let task = Task {
                do {
                    _ = resume(.success(try await operation()))
                } catch {
                    _ = resume(.failure(error))
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(timeout)) {
                if resume(.failure(FaceFailure("\(what) did not finish within \(timeout)"))) { task.cancel() }
            }
        }
    }

    /// Waits until every event loop has run what was queued on it before this call.
    static func loopsCaughtUp() async throws {
        for loop in try EventLoops.all() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.execute { continuation.resume() }
            }
        }
    }

    /// Whether `event` is a socket's last event.
    static func isEnd(_ event: WebSocketEvent) -> Bool {
        switch event {
        case .closed, .failed: return true
        case .open, .message, .drained: return false
        }
    }

    /// A short description of a message, without multi-megabyte payloads.
    static func brief(_ message: WebSocketMessage) -> String {
        switch message {
        case .text(let text): return text.utf8.count <= 40 ? "text(\(String(reflecting: text)))" : "text(\(text.utf8.count) B)"
        case .binary(let bytes): return "binary(\(bytes.count) B)"
        case .fragment(let fragment): return "fragment(\(fragment.kind), \(fragment.bytes.count) B, final: \(fragment.isFinal))"
        case .ping(let payload): return "ping(\(payload))"
        case .pong(let payload): return "pong(\(payload))"
        case .close(let frame): return "close(\(frame.code.rawValue), \(String(reflecting: frame.reason)))"
        }
    }

    /// A short description of an event.
    static func brief(_ event: WebSocketEvent) -> String {
        switch event {
        case .open(let result): return "open(\(result.subprotocol ?? "-"))"
        case .message(let message): return brief(message)
        case .drained(let amount): return "drained(\(amount))"
        case .closed(let status): return "closed(\(status.code.rawValue), \(String(reflecting: status.reason)), clean: \(status.wasClean))"
        case .failed(let error): return "failed(\(error))"
        }
    }

    /// The status of a connection whose end no status was known for (a blocking socket that failed).
    static let unknownEnd = Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: nil)
}

// MARK: Transcripts

/// The events one socket reported, in order, whichever its face (the async and blocking faces'
/// messages are written as `.message` events, their end as `.closed`). Tests wait on it without
/// sleeping: a waiter is resumed by the append that satisfies it, or fails at its deadline.
final class Transcript: Sendable {
    private struct Waiter {
        var id: Int
        var isDone: @Sendable ([WebSocketEvent]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [WebSocketEvent] = []
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Locked(State())

    init() {}

    func append(_ event: WebSocketEvent) {
        let ready: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            state.events.append(event)
            var ready: [CheckedContinuation<Bool, Never>] = []
            let events = state.events
            state.waiters.removeAll { waiter in
                guard waiter.isDone(events) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: true) }
        state.broadcast()
    }

    var events: [WebSocketEvent] { state.withLock { $0.events } }

    /// The messages so far.
    var messages: [WebSocketMessage] {
        events.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    /// Waits until `isDone` holds for the events so far, at most `timeout`; returns them, or throws
    /// naming what it waited for and what was seen.
    @discardableResult
    func wait(for what: String, timeout: Duration = Harness.patience,
              _ isDone: @escaping @Sendable ([WebSocketEvent]) -> Bool) async throws -> [WebSocketEvent] {
        let done = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id: Int? = state.withLock { state in
                if isDone(state.events) { return nil }
                defer { state.nextID += 1 }
                state.waiters.append(Waiter(id: state.nextID, isDone: isDone, continuation: continuation))
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(timeout)) { [state] in
                let late: CheckedContinuation<Bool, Never>? = state.withLock { state in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                late?.resume(returning: false)
            }
        }
        let seen = events
        guard done else {
            throw FaceFailure("timed out after \(timeout) waiting for \(what); saw \(seen.map(Harness.brief))")
        }
        return seen
    }

    /// Waits (blocking the calling thread, which must not be the cooperative pool's) until `isDone`
    /// holds, at most `timeout`.
    func waitBlocking(timeout: Duration = Harness.patience, _ isDone: @escaping ([WebSocketEvent]) -> Bool) -> Bool {
        state.wait(until: { isDone($0.events) }, deadline: now() + timeout, now: now)
    }

    /// Waits for `count` messages; returns the first `count`.
    func messages(_ count: Int, timeout: Duration = Harness.patience) async throws -> [WebSocketMessage] {
        let events = try await wait(for: "\(count) messages", timeout: timeout) { events in
            events.count(where: { if case .message = $0 { true } else { false } }) >= count
        }
        return Array(events.compactMap { if case .message(let message) = $0 { message } else { nil } }.prefix(count))
    }

    /// Waits for the socket's last event.
    @discardableResult
    func end(timeout: Duration = Harness.patience) async throws -> WebSocketEvent {
        let events = try await wait(for: "the last event", timeout: timeout) { $0.contains(where: Harness.isEnd) }
        return events.first(where: Harness.isEnd)!
    }

    /// Waits for the socket's last event and returns its close status; throws if it never opened.
    func closeStatus(timeout: Duration = Harness.patience) async throws -> Connection.CloseStatus {
        let end = try await end(timeout: timeout)
        guard case .closed(let status) = end else { throw FaceFailure("ended with \(Harness.brief(end))") }
        return status
    }
}

// MARK: Servers

/// How a test server answers what it receives: text and binary messages and fragments are echoed;
/// `close CODE REASON` makes it start the closing handshake with that code and reason, `ping
/// PAYLOAD` makes it send a ping. Control frames (with `receivesControlFrames`) are only recorded.
enum Script {
    static func replies(to message: WebSocketMessage) -> [WebSocketMessage] {
        switch message {
        case .text(let text) where text.hasPrefix("close "):
            let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            let code = Connection.CloseCode(rawValue: UInt16(words[1]) ?? 1000)
            return [.close(Connection.CloseFrame(code: code, reason: words.count > 2 ? String(words[2]) : ""))]
        case .text(let text) where text.hasPrefix("ping "):
            return [.ping(Array(text.utf8.dropFirst(5)))]
        case .text, .binary, .fragment:
            return [message]
        case .ping, .pong, .close:
            return []
        }
    }

    /// Sends `message` through the sync API of a non-blocking socket, the call matching its kind.
    static func send(_ message: WebSocketMessage, on socket: WebSocket) throws(WebSocketError) {
        switch message {
        case .text(let text): try socket.send(text: text)
        case .binary(let bytes): try socket.send(binary: bytes)
        case .fragment(let fragment): try socket.sendFragment(fragment.bytes, kind: fragment.kind, isFinal: fragment.isFinal)
        case .ping(let payload): try socket.sendPing(payload)
        case .pong(let payload): try socket.sendPong(payload)
        case .close(let frame): try socket.sendClose(code: frame.code, reason: frame.reason)
        }
    }

    /// Sends `message` through a blocking socket, the call matching its kind.
    static func send(_ message: WebSocketMessage, on socket: BlockingWebSocket) throws(WebSocketError) {
        switch message {
        case .text(let text): try socket.send(text: text)
        case .binary(let bytes): try socket.send(binary: bytes)
        case .fragment(let fragment): try socket.sendFragment(fragment.bytes, kind: fragment.kind, isFinal: fragment.isFinal)
        case .ping(let payload): try socket.sendPing(payload)
        case .pong(let payload): try socket.sendPong(payload)
        case .close(let frame): try socket.sendClose(code: frame.code, reason: frame.reason)
        }
    }
}

/// What a test server saw: each valid handshake request (before the decision), and each opened
/// connection's transcript, in the order they opened.
final class ServerLog: Sendable {
    private let state = Locked<(requests: [Connection.HandshakeRequest], connections: [Transcript])>(([], []))
    private let opened = Transcript()
    /// Handler faces: the transcript of each live socket.
    private let bySocket = Locked<[ObjectIdentifier: Transcript]>([:])

    var requests: [Connection.HandshakeRequest] { state.withLock { $0.requests } }
    var connections: [Transcript] { state.withLock { $0.connections } }

    func requested(_ request: Connection.HandshakeRequest) {
        state.withLock { $0.requests.append(request) }
    }

    /// A connection opened: its transcript, starting with `.open`.
    func open(_ result: Connection.HandshakeResult) -> Transcript {
        let transcript = Transcript()
        transcript.append(.open(result))
        state.withLock { $0.connections.append(transcript) }
        opened.append(.open(result))
        return transcript
    }

    /// (Handler faces) Records `event` of `socket`.
    func record(_ socket: WebSocket, _ event: WebSocketEvent) {
        let key = ObjectIdentifier(socket)
        if case .open(let result) = event {
            let transcript = open(result)
            bySocket.withLock { $0[key] = transcript }
            return
        }
        let transcript = bySocket.withLock { table in
            defer { if Harness.isEnd(event) { table[key] = nil } }
            return table[key]
        }
        transcript?.append(event)
    }

    /// The transcript of the `index`th connection to open, once it has.
    func connection(_ index: Int = 0, timeout: Duration = Harness.patience) async throws -> Transcript {
        try await opened.wait(for: "connection \(index) to open", timeout: timeout) { $0.count > index }
        return connections[index]
    }
}

/// What a test server is made with.
struct ServerSetup: Sendable {
    var host = "127.0.0.1"
    /// Listen on a Unix domain socket here instead.
    var unixSocketPath: String? = nil
    var configuration = Harness.configuration()
    var options = Harness.options()
    var loops: Int? = nil
    var handshake: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() }
}

/// A server of any face that follows ``Script`` and records everything in ``log``.
final class FaceServer: Sendable {
    let face: ServerFace
    let log = ServerLog()
    let port: UInt16
    let host: String
    let unixSocketPath: String?
    /// The non-blocking server (`nil` for the blocking face).
    let server: WebSocketServer?
    private let blockingServer: BlockingWebSocketServer?
    /// The async face's `run` task.
    private let serving: Task<Void, Never>?
    /// The blocking face's `serve` returned.
    private let served = Mailbox<Bool>()

    private init(face: ServerFace, setup: ServerSetup) throws {
        self.face = face
        host = setup.host
        unixSocketPath = setup.unixSocketPath
        let log = self.log
        let decide = setup.handshake
        let handshake: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
            log.requested(request)
            return decide(request)
        }
        let handler: WebSocket.EventHandler = { socket, event in
            log.record(socket, event)
            guard case .message(let message) = event else { return }
            for reply in Script.replies(to: message) { try? Script.send(reply, on: socket) }
        }
        switch face {
        case .loop, .queue:
            let queue = face == .queue ? DispatchQueue(label: "FaceServer.handlers", attributes: .concurrent) : nil
            let server: WebSocketServer
            if let path = setup.unixSocketPath {
                server = try WebSocketServer(unixSocketPath: path, configuration: setup.configuration, options: setup.options,
                                             loops: setup.loops, queue: queue, handshake: handshake, handler: handler)
            } else {
                server = try WebSocketServer(host: setup.host, configuration: setup.configuration, options: setup.options,
                                             loops: setup.loops, queue: queue, handshake: handshake, handler: handler)
            }
            self.server = server
            blockingServer = nil
            serving = nil
            port = server.port
        case .async:
            let server: WebSocketServer
            if let path = setup.unixSocketPath {
                server = try WebSocketServer(unixSocketPath: path, configuration: setup.configuration, options: setup.options,
                                             loops: setup.loops, handshake: handshake)
            } else {
                server = try WebSocketServer(host: setup.host, configuration: setup.configuration, options: setup.options,
                                             loops: setup.loops, handshake: handshake)
            }
            self.server = server
            blockingServer = nil
            port = server.port
            serving = Task {
                await server.run { socket in
                    await FaceServer.serveAsync(socket, log: log)
                }
            }
        case .blocking:
            let server: BlockingWebSocketServer
            if let path = setup.unixSocketPath {
                server = try BlockingWebSocketServer(unixSocketPath: path, configuration: setup.configuration, options: setup.options)
            } else {
                server = try BlockingWebSocketServer(host: setup.host, configuration: setup.configuration, options: setup.options)
            }
            self.server = nil
            blockingServer = server
            serving = nil
            port = server.port
            let served = self.served
            try spawnDetachedThread {
                try? server.serve(handshake: handshake) { socket in FaceServer.serveBlocking(socket, log: log) }
                served.put(true)
            }
        }
    }

    /// Starts a server of `face`.
    static func start(_ face: ServerFace, _ setup: ServerSetup = ServerSetup()) throws -> FaceServer {
        try FaceServer(face: face, setup: setup)
    }

    /// One connection of the async face: its messages, answered as ``Script`` says.
    private static func serveAsync(_ socket: WebSocket, log: ServerLog) async {
        guard let handshake = socket.handshake else {
            Issue.record("an async-face connection without its handshake")
            return
        }
        let transcript = log.open(handshake)
        do throws(WebSocketError) {
            for try await message in socket.messages {
                transcript.append(.message(message))
                for reply in Script.replies(to: message) { try? await socket.send(reply) }
            }
            transcript.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
        } catch .closed(let status) {
            transcript.append(.closed(status))
        } catch {
            transcript.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
        }
    }

    /// One connection of the blocking server, on its own thread.
    private static func serveBlocking(_ socket: BlockingWebSocket, log: ServerLog) {
        let transcript = log.open(socket.handshake)
        while true {
            do throws(WebSocketError) {
                guard let message = try socket.receive() else { break }
                transcript.append(.message(message))
                for reply in Script.replies(to: message) { try? Script.send(reply, on: socket) }
            } catch {
                break
            }
        }
        transcript.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
    }

    /// The URL of `path` on this server (`ws+unix://` for a Unix socket), with `scheme` and a host
    /// name of the caller's choice (`localhost` for TLS) if given.
    func url(_ path: String = "/", scheme: String = "ws", host name: String? = nil) -> String {
        if let unixSocketPath { return "ws+unix://\(unixSocketPath):\(path)" }
        return Harness.url(name ?? host, port, path, scheme: scheme)
    }

    /// Stops accepting and waits for the server's task or thread to end.
    func stop() async {
        if let server {
            server.stop()
            if let serving {
                do {
                    try await Harness.withTimeout(Harness.patience, "the async server's run") { await serving.value }
                } catch {
                    Issue.record("\(error)")
                }
            }
        } else if let blockingServer {
            blockingServer.stop()
            let served = self.served
            if (try? await Harness.offPool { served.take(timeout: Harness.patience) }) == nil {
                Issue.record("the blocking server's serve did not return")
            }
        }
    }
}

/// Runs `body` with a server of `face`, stopping it afterwards, whatever happens.
func withServer<T: Sendable>(_ face: ServerFace, _ setup: ServerSetup = ServerSetup(),
                             _ body: (FaceServer) async throws -> T) async throws -> T {
    let server = try FaceServer.start(face, setup)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

// MARK: Clients

/// What a test client connects with.
struct ClientSetup: Sendable {
    var subprotocols: [String] = []
    var headers: Connection.HTTPHeaders = [:]
    var configuration = Harness.configuration()
    var options = Harness.options()
    /// The queue face's queue (a concurrent one by default: calls for one socket must not overlap).
    var queue = DispatchQueue(label: "FaceClient.handlers", attributes: .concurrent)
    /// The loop of a non-blocking face's socket: `nil` for the shared loops, or one of the test's
    /// own (``Harness/privateLoop()``) for a test that holds it.
    var loop: EventLoop? = nil
}

/// A client of any face; its events, messages and end go to ``log``.
final class FaceClient: Sendable {
    let face: ClientFace
    let log = Transcript()
    private let socket = Locked<WebSocket?>(nil)
    private let blockingSocket = Locked<BlockingWebSocket?>(nil)

    private init(face: ClientFace) {
        self.face = face
    }

    /// Connects with `face` and returns once the first event (the opening, or the failure) is in
    /// ``log``; a failure to connect is recorded as `.failed`, not thrown.
    static func connect(_ face: ClientFace, to url: String, _ setup: ClientSetup = ClientSetup()) async throws -> FaceClient {
        let client = FaceClient(face: face)
        let log = client.log
        switch face {
        case .loop, .queue:
            let socket: WebSocket
            if let loop = setup.loop {
                // What the public `connect` does, on the test's loop.
                let endpoint = try WebSocketEndpoint(parsing: url)
                let handler: WebSocket.EventHandler = { _, event in log.append(event) }
                socket = try WebSocket.startClient(
                    Connection.ClientOptions(url: endpoint.url, subprotocols: setup.subprotocols, headers: setup.headers),
                    via: endpoint, configuration: setup.configuration, options: setup.options,
                    consumer: face == .queue ? .queueHandler(DispatchQueue(label: "WebSocket.events", target: setup.queue), handler)
                                             : .loopHandler(handler),
                    system: .live, loop: loop)
            } else {
                socket = try WebSocket.connect(to: url, subprotocols: setup.subprotocols, headers: setup.headers,
                                               configuration: setup.configuration, options: setup.options,
                                               queue: face == .queue ? setup.queue : nil) { _, event in log.append(event) }
            }
            client.socket.withLock { $0 = socket }
            try await log.wait(for: "the first event") { !$0.isEmpty }
        case .async:
            let outcome: Result<WebSocket, WebSocketError>
            do throws(WebSocketError) {
                if let loop = setup.loop {
                    // What the public `connect` does, on the test's loop.
                    let endpoint = try WebSocketEndpoint(parsing: url)
                    outcome = .success(try await WebSocket.connect(
                        Connection.ClientOptions(url: endpoint.url, subprotocols: setup.subprotocols, headers: setup.headers),
                        via: endpoint, configuration: setup.configuration, options: setup.options, system: .live, loop: loop))
                } else {
                    outcome = .success(try await WebSocket.connect(to: url, subprotocols: setup.subprotocols, headers: setup.headers,
                                                                   configuration: setup.configuration, options: setup.options))
                }
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let socket):
                client.socket.withLock { $0 = socket }
                guard let handshake = socket.handshake else { throw FaceFailure("connected without a handshake") }
                log.append(.open(handshake))
                Task { await Self.readAsync(socket, into: log) }
            case .failure(let error):
                log.append(.failed(error))
            }
        case .blocking:
            let outcome = try await Harness.offPool { () -> Result<BlockingWebSocket, WebSocketError> in
                Result { () throws(WebSocketError) in
                    try BlockingWebSocket.connect(to: url, subprotocols: setup.subprotocols, headers: setup.headers,
                                                  configuration: setup.configuration, options: setup.options)
                }
            }
            switch outcome {
            case .success(let socket):
                client.blockingSocket.withLock { $0 = socket }
                log.append(.open(socket.handshake))
                try spawnDetachedThread { Self.readBlocking(socket, into: log) }
            case .failure(let error):
                log.append(.failed(error))
            }
        }
        return client
    }

    private static func readAsync(_ socket: WebSocket, into log: Transcript) async {
        do throws(WebSocketError) {
            for try await message in socket.messages { log.append(.message(message)) }
            log.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
        } catch .closed(let status) {
            log.append(.closed(status))
        } catch {
            log.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
        }
    }

    private static func readBlocking(_ socket: BlockingWebSocket, into log: Transcript) {
        while true {
            do throws(WebSocketError) {
                guard let message = try socket.receive() else { break }
                log.append(.message(message))
            } catch {
                break
            }
        }
        log.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
    }

    /// The non-blocking socket (not for the blocking face).
    var webSocket: WebSocket? { socket.withLock { $0 } }

    /// The blocking socket (the blocking face only).
    var blocking: BlockingWebSocket? { blockingSocket.withLock { $0 } }

    /// What the opening handshake agreed, once open.
    var handshake: Connection.HandshakeResult? {
        if let socket = webSocket { return socket.handshake }
        return blockingSocket.withLock { $0 }?.handshake
    }

    /// Throws unless the client opened.
    func expectOpen() throws {
        guard case .open? = log.events.first else {
            throw FaceFailure("the client did not open: \(log.events.map(Harness.brief))")
        }
    }

    /// Sends `message` with the face's own call for it: the sync calls of the handler faces, the
    /// async `send(_:)` of the async face, the blocking socket's calls (off the pool).
    func send(_ message: WebSocketMessage) async throws {
        switch face {
        case .loop, .queue:
            guard let socket = webSocket else { throw FaceFailure("not connected") }
            try Script.send(message, on: socket)
        case .async:
            guard let socket = webSocket else { throw FaceFailure("not connected") }
            try await socket.send(message)
        case .blocking:
            guard let socket = blockingSocket.withLock({ $0 }) else { throw FaceFailure("not connected") }
            try await Harness.offPool { try Script.send(message, on: socket) }
        }
    }

    /// Sends a message in fragments: `pieces` of `kind`, the last one final.
    func sendFragments(_ pieces: [[UInt8]], kind: Connection.MessageKind) async throws {
        for (index, piece) in pieces.enumerated() {
            try await send(.fragment(Connection.Fragment(kind: kind, bytes: piece, isFirst: index == 0,
                                                         isFinal: index == pieces.count - 1)))
        }
    }

    /// Starts the closing handshake.
    func startClose(code: Connection.CloseCode = .normalClosure, reason: String = "") async throws {
        try await send(.close(Connection.CloseFrame(code: code, reason: reason)))
    }

    /// Closes cleanly and waits for the end: the status.
    @discardableResult
    func close(code: Connection.CloseCode = .normalClosure, reason: String = "") async throws -> Connection.CloseStatus {
        try await startClose(code: code, reason: reason)
        return try await log.closeStatus()
    }

    /// Aborts the connection (the non-blocking faces), for a test's cleanup.
    func cancel() {
        webSocket?.cancel()
    }
}

// MARK: Raw peers

/// Raw peers: a test plays the other end with a core `Connection` over a plain socket, so that it
/// can leave pings unanswered or drop the connection without a Close.
enum RawPeers {
    /// An async-face client connected to a raw peer playing the server: the client, the peer, and
    /// the peer's server `Connection` (open).
    static func asyncClient(options: TransportOptions = Harness.options()) async throws -> (WebSocket, RawSocket, Connection) {
        let listener = try RawListener()
        defer { listener.close() }
        let url = Harness.url("127.0.0.1", listener.port)
        let connecting = Task { try await WebSocket.connect(to: url, configuration: Harness.configuration(), options: options) }
        let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
        let server = try await Harness.offPool { try acceptHandshake(peer) }
        let client = try await Harness.withTimeout { try await connecting.value }
        return (client, peer, server)
    }

    /// The server side of the opening handshake on `peer`, by a core `Connection` (its input holds
    /// whatever followed the request): as TransportTestSupport's `acceptHandshake`, with the face
    /// tests' patience (a loaded loop may take seconds to send the request).
    static func acceptHandshake(_ peer: RawSocket) throws -> Connection {
        var connection = try Connection(role: .server)
        let deadline = now() + Harness.patience
        while now() < deadline {
            guard let bytes = peer.read(timeout: deadline - now()) else { break }
            if bytes.isEmpty { break }
            connection.receive(bytes)
            while let event = connection.nextEvent() {
                switch event {
                case .handshakeRequest:
                    try connection.accept()
                case .handshakeCompleted:
                    peer.write(connection.takeOutput())
                    return connection
                default:
                    break
                }
            }
        }
        throw FaceFailure("no opening handshake request within \(Harness.patience)")
    }

    /// A raw client of `port` whose opening handshake has completed: the peer, its client
    /// `Connection` (open), and the events read so far (what arrived with the handshake's answer).
    static func client(port: UInt16) async throws -> (RawSocket, Connection, [Connection.Event]) {
        try await Harness.offPool {
            let peer = try RawSocket.connect(port: port)
            var connection = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
            peer.write(connection.takeOutput())
            let (opened, events) = read(peer, connection, timeout: Harness.patience) { events in
                events.contains { if case .handshakeCompleted = $0 { true } else { false } }
            }
            connection = opened
            guard events.contains(where: { if case .handshakeCompleted = $0 { true } else { false } }) else {
                throw FaceFailure("the raw client did not open: \(events)")
            }
            return (peer, connection, events)
        }
    }

    /// Reads from `peer` into `connection` until `isDone` holds for the events so far (`earlier`
    /// first), the stream ends, or 30 seconds pass (blocking: call it off the pool). Output the
    /// connection queues (automatic pongs, Close replies) is not written.
    static func read(_ peer: RawSocket, _ connection: Connection, after earlier: [Connection.Event] = [],
                     timeout: Duration = Harness.patience, until isDone: ([Connection.Event]) -> Bool) -> (Connection, [Connection.Event])
    {
        var connection = connection
        var events = earlier
        let deadline = now() + timeout
        while !isDone(events), now() < deadline {
            guard let bytes = peer.read(timeout: .milliseconds(500)) else { continue }
            if bytes.isEmpty { break }
            connection.receive(bytes)
            while let event = connection.nextEvent() { events.append(event) }
        }
        return (connection, events)
    }

    /// ``read(_:_:after:until:)`` off the pool.
    static func events(_ peer: RawSocket, _ connection: Connection, after earlier: [Connection.Event] = [],
                       until isDone: @escaping @Sendable ([Connection.Event]) -> Bool) async throws -> (Connection, [Connection.Event])
    {
        try await Harness.offPool { read(peer, connection, after: earlier, until: isDone) }
    }
}
