#if os(Linux)
import Glibc
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX
import TransportTestSupport
@testable import WebSocketEventLoop

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Client options for tests: the bounds are for hangs only, so that a loaded machine does not turn
/// slowness into failures. They are long because in a full `swift test` the blocking suites of the
/// other adapters hold the cooperative pool's threads (two on this machine) for tens of seconds at a
/// time, and a test whose reader runs on the pool (on purpose, off the loop) waits that long.
func clientOptions() -> TransportOptions {
    var options = TransportOptions()
    options.receiveTimeout = .seconds(120)
    options.connectTimeout = .seconds(60)
    options.writeTimeout = .seconds(60)
    return options
}

func clientConfiguration() -> Connection.Configuration {
    var configuration = Connection.Configuration()
    configuration.timeouts.handshake = .seconds(60)
    configuration.timeouts.close = .seconds(30)
    return configuration
}

/// The events a handler-face server saw, per connection, in order.
final class EventLog: Sendable {
    private let events = Locked<[ObjectIdentifier: [WebSocketEvent]]>([:])
    private let closed = Locked(0)

    func record(_ socket: EventLoopWebSocket, _ event: WebSocketEvent) {
        events.withLock { $0[ObjectIdentifier(socket), default: []].append(event) }
        if case .closed = event {
            closed.withLock { $0 += 1 }
            closed.broadcast()
        }
    }

    /// Waits until `count` connections have closed.
    func waitForClosed(_ count: Int, timeout: Duration = .seconds(60)) -> Bool {
        closed.wait(until: { $0 >= count }, deadline: now() + timeout, now: now)
    }

    var all: [[WebSocketEvent]] { events.withLock { Array($0.values) } }
}

/// A handler-face echo server on 127.0.0.1 that records every event.
func echoServer(log: EventLog = EventLog(), loops: Int? = nil, configuration: Connection.Configuration = clientConfiguration(),
                options: TransportOptions = TransportOptions(),
                handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() })
    throws -> EventLoopServer {
    try EventLoopServer(loops: loops, configuration: configuration, options: options, handshake: handshake) { socket, event in
        log.record(socket, event)
        switch event {
        case .text(let text): try? socket.send(text: text)
        case .binary(let bytes): try? socket.send(binary: bytes)
        default: break
        }
    }
}

/// A client `Connection` over a raw socket to `port`, driven by hand, so that a test writes exactly
/// the bytes it wants.
struct RawClient {
    let socket: Socket
    var connection: Connection
    var events: [Connection.Event] = []

    /// Connects and sends the opening handshake request.
    init(port: UInt16) throws {
        socket = try rawConnect(port: port)
        connection = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
        try socket.writeAll(connection.takeOutput())
    }

    /// Reads and parses until `done` holds for the events so far, for at most 30 seconds.
    mutating func pump(until done: ([Connection.Event]) -> Bool) throws {
        let deadline = now() + .seconds(30)
        while !done(events), now() < deadline {
            guard let bytes = try socket.readSome(timeout: .seconds(1)) else { continue }
            connection.receive(bytes)
            while let event = connection.nextEvent() { events.append(event) }
        }
    }

    /// Reads until the opening handshake has completed.
    mutating func open() throws {
        try pump { $0.contains { if case .handshakeCompleted = $0 { return true } else { return false } } }
    }
}

/// A one-way signal that a task waits on without spinning: opened once, every wait returns after.
/// (A task that yields in a loop until a flag is set holds its executor, here a server's loop, and a
/// core, which on a loaded machine slows everything it waits for.)
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Runs `body` on a thread of its own, off Swift's cooperative pool (one thread per core), which a
/// blocking test body would otherwise hold while the servers' tasks wait for it.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = try await withCheckedThrowingContinuation { continuation in
        do throws(Errno) {
            try spawnDetachedThread { continuation.resume(returning: Result { try body() }) }
        } catch {
            continuation.resume(throwing: error)
        }
    }
    return try result.get()
}

/// Runs `body` on `count` threads at once and returns what each returned, in order.
func onThreads<T: Sendable>(_ count: Int, timeout: Duration = .seconds(120), _ body: @escaping @Sendable (Int) -> T) throws -> [T] {
    let results = Locked<[Int: T]>([:])
    for index in 0..<count {
        try spawnDetachedThread {
            let result = body(index)
            results.withLock { $0[index] = result }
            results.broadcast()
        }
    }
    guard results.wait(until: { $0.count == count }, deadline: now() + timeout, now: now) else {
        throw TestFailure("\(results.withLock { $0.count }) of \(count) threads finished within \(timeout)")
    }
    return results.withLock { dictionary in (0..<count).map { dictionary[$0]! } }
}

/// Connects a blocking client to `port`, sends each message and checks its echo, then closes.
/// Returns `nil` when everything went as it should, otherwise what went wrong.
func echoRoundTrip(port: UInt16, messages: [WebSocketMessage]) -> String? {
    do throws(WebSocketError) {
        let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(port)/", configuration: clientConfiguration(),
                                                   options: clientOptions())
        for message in messages {
            try client.send(message)
            let echo = try client.receive()
            guard echo == message else { return "sent \(message), got \(String(describing: echo))" }
        }
        let status = try client.close()
        return status.wasClean ? nil : "closed \(status)"
    } catch {
        return "\(error)"
    }
}
#endif
