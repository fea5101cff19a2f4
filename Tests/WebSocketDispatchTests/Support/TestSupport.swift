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
@testable import WebSocketDispatch

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Events collected from handlers, in arrival order.
///
/// `@unchecked Sendable`: `events` is read and written only on `queue`.
final class EventLog: @unchecked Sendable {
    private let queue = DispatchQueue(label: "EventLog")
    private var events: [WebSocketEvent] = []

    func append(_ event: WebSocketEvent) { queue.sync { events.append(event) } }
    var all: [WebSocketEvent] { queue.sync { events } }

    /// Waits (polling, so that no thread blocks) until `predicate` holds for the events so far, for at
    /// most `timeout`. Returns the events, or throws naming what was seen.
    @discardableResult
    func wait(for what: String, timeout: Duration = .seconds(10),
              _ predicate: ([WebSocketEvent]) -> Bool) async throws -> [WebSocketEvent] {
        let ok = await eventually(timeout: timeout) { predicate(self.all) }
        let seen = all
        guard ok else { throw TestFailure("timed out waiting for \(what); saw \(seen.map(\.brief))") }
        return seen
    }

    /// Waits for the last event (`.closed` or `.failed`).
    @discardableResult
    func waitForEnd(timeout: Duration = .seconds(10)) async throws -> WebSocketEvent {
        let events = try await wait(for: "the last event", timeout: timeout) { $0.contains { $0.isLast } }
        return events.first { $0.isLast }!
    }
}

/// A counter shared between handlers.
///
/// `@unchecked Sendable`: `value` is read and written only on `queue`.
final class Counter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Counter")
    private var count = 0
    func increment() { queue.sync { count += 1 } }
    var value: Int { queue.sync { count } }
}

extension WebSocketEvent {
    var isLast: Bool {
        switch self {
        case .closed, .failed: return true
        default: return false
        }
    }

    /// A short description, without multi-megabyte payloads.
    var brief: String {
        switch self {
        case .open(let result): return "open(\(result.subprotocol ?? "-"))"
        case .text(let text): return "text(\(text.utf8.count) B)"
        case .binary(let bytes): return "binary(\(bytes.count) B)"
        case .fragment(let f): return "fragment(\(f.bytes.count) B, final: \(f.isFinal))"
        case .ping(let p): return "ping(\(p.count))"
        case .pong(let p): return "pong(\(p.count))"
        case .closeReceived(let frame): return "closeReceived(\(frame.code))"
        case .drained(let amount): return "drained(\(amount))"
        case .closed(let status): return "closed(\(status.code), clean: \(status.wasClean), \(String(describing: status.failure)))"
        case .failed(let error): return "failed(\(error))"
        }
    }
}

/// Polls `condition` every few milliseconds for at most `timeout`.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if condition() { return true }
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// Runs a blocking or long call on a thread of its own, off the cooperative pool (which has one
/// thread per core). A new serial queue gets an overcommitting thread at once, where the global
/// concurrent queue would wait for one of its few threads to come free.
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "blocking").async { continuation.resume(returning: body()) }
    }
}

/// Fails the test if `operation` does not finish within `timeout`: the operation's task is cancelled
/// (every API under test honours cancellation), so that nothing can hang.
func withTimeout<T: Sendable>(_ timeout: Duration = .seconds(20), _ what: String = "operation",
                              _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("\(what) did not finish within \(timeout)")
        }
        return value
    }
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

enum Loopback {
    /// Whether `::1` can be listened on here.
    static let hasIPv6: Bool = {
        guard case .success(let addresses) = AddressResolution.resolve(host: "::1", port: 0, passive: true),
              let address = addresses.first else { return false }
        return (try? Socket.listening(on: address, backlog: 1, system: .live)) != nil
    }()

    /// The URL of `path` on a server listening on `host` and `port`.
    static func url(_ host: String, _ port: UInt16, _ path: String = "/") -> String {
        host.contains(":") ? "ws://[\(host)]:\(port)\(path)" : "ws://\(host):\(port)\(path)"
    }
}

/// An echo server of the delegate-queue face: text, binary and pings are echoed; the peer's Close is
/// answered by the core.
func makeEchoServer(host: String = "127.0.0.1", configuration: Connection.Configuration = Connection.Configuration(),
                    options: TransportOptions = TransportOptions(), queue: DispatchQueue = DispatchQueue(label: "echo"),
                    log: EventLog? = nil,
                    handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() })
    throws -> WebSocketServer {
    try WebSocketServer(host: host, configuration: configuration, options: options, queue: queue,
                        handshake: handshake) { socket, event in
        log?.append(event)
        switch event {
        case .text(let text): try? socket.send(text: text)
        case .binary(let bytes): try? socket.send(binary: bytes)
        default: break
        }
    }
}

/// A client of the delegate-queue face whose events go to `log`.
func connectClient(_ url: String, subprotocols: [String] = [], configuration: Connection.Configuration = Connection.Configuration(),
                   options: TransportOptions = TransportOptions(), queue: DispatchQueue = DispatchQueue(label: "client"),
                   log: EventLog) throws -> WebSocket {
    try WebSocket.connect(to: url, subprotocols: subprotocols, configuration: configuration, options: options,
                          queue: queue) { _, event in log.append(event) }
}

/// A client of `server` on 127.0.0.1, once its first event (the opening) has arrived in `log`.
func openClient(to server: WebSocketServer, configuration: Connection.Configuration = Connection.Configuration(), log: EventLog) async throws -> WebSocket {
    let client = try connectClient(Loopback.url("127.0.0.1", server.port), configuration: configuration, log: log)
    try await log.wait(for: "open") { !$0.isEmpty }
    return client
}

/// Starts the closing handshake without waiting for its end.
func startClose(_ socket: WebSocket, code: Connection.CloseCode = .normalClosure, reason: String = "") throws {
    try socket.sendClose(code: code, reason: reason)
}
