import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// What one client of a burst saw.
enum BurstOutcome: Sendable, Hashable {
    /// Opened, got its echo, closed cleanly.
    case echoed
    /// Refused before the upgrade (an HTTP status, no 101).
    case refused(Int)
    /// Anything else: a 101 followed by a drop, a timeout, a failure.
    case broken(String)
}

/// Clients that all connect at once, each sending one message and waiting for its echo, then closing;
/// returns what each saw.
func runBurst(clients: Int, port: UInt16, system: SystemCalls, timeout: Duration = .seconds(120)) async throws -> [BurstOutcome] {
    var configuration = Connection.Configuration()
    // A loaded machine must not turn slowness into failures: the bounds here are for hangs only.
    configuration.timeouts.handshake = .seconds(90)
    configuration.timeouts.close = .seconds(30)
    var options = TransportOptions()
    options.connectTimeout = .seconds(90)
    let results = Locked<[BurstOutcome]>([])
    let done = Locked(0)
    let queue = DispatchQueue(label: "burst clients", attributes: .concurrent)
    var sockets: [WebSocket] = []
    for index in 0..<clients {
        let text = "client \(index)"
        let echoed = Locked(false)
        let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))
        let handler: WebSocket.EventHandler = { socket, event in
            let outcome: BurstOutcome?
            switch event {
            case .open:
                try? socket.send(text: text)
                outcome = nil
            case .text(let received):
                if received == text { echoed.withLock { $0 = true } }
                try? socket.sendClose()
                outcome = nil
            case .closed(let status):
                outcome = echoed.withLock { $0 } && status.wasClean ? .echoed : .broken("closed \(status)")
            case .failed(.handshakeFailed(let failure)) where failure.rejected != nil:
                outcome = .refused(failure.rejected?.status ?? 0)
            case .failed(let error):
                outcome = .broken("failed: \(error)")
            default:
                outcome = nil
            }
            if let outcome {
                results.withLock { $0.append(outcome) }
                done.withLock { $0 += 1 }
                done.broadcast()
            }
        }
        let socket = try WebSocket.startClient(request, via: WebSocketEndpoint(url: request.url), configuration: configuration,
                                               options: options,
                                               consumer: .handler(queue: DispatchQueue(label: "client", target: queue), handler),
                                               system: system)
        sockets.append(socket)
    }
    let finished = await blocking {
        done.wait(until: { $0 == clients }, deadline: now() + timeout, now: now)
    }
    let outcomes = results.withLock { $0 }
    guard finished else {
        throw TestFailure("\(outcomes.count) of \(clients) clients finished within \(timeout): \(Set(outcomes))")
    }
    _ = sockets
    return outcomes
}

/// A server of either face on 127.0.0.1 whose system calls are counted by `faults`.
func burstServer(faults: Faults, maxPendingConnections: Int? = nil) throws -> WebSocketServer {
    guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
        throw TestFailure("no 127.0.0.1")
    }
    let face: WebSocketServer.Face
    if let maxPendingConnections {
        face = .stream(maxPendingConnections)
    } else {
        let queue = DispatchQueue(label: "echo", attributes: .concurrent)
        face = .handler(queue, { socket, event in
            if case .text(let text) = event { try? socket.send(text: text) }
        })
    }
    return try WebSocketServer(addresses: addresses, unixSocketPath: nil, backlog: 1024, configuration: Connection.Configuration(),
                               options: TransportOptions(), decisionQueue: DispatchQueue(label: "decisions"),
                               handshake: { _ in .accept() }, face: face, system: faults.system)
}

/// A burst of clients at once: every client gets a working connection or a refusal before the
/// upgrade, never a 101 followed by a drop; and every descriptor, the server's and the clients',
/// is closed at the end (counted through the system-call shim).
@Suite("Bursts of clients: every accepted connection is kept", .serialized, .timeLimit(.minutes(5)))
struct BurstTests {
    @Test("The async face's server, consumed as documented", arguments: [200, 1000])
    func asyncFace(clients: Int) async throws {
        raiseDescriptorLimit()
        let faults = Faults()
        let server = try burstServer(faults: faults, maxPendingConnections: 128)
        let consumer = Task {
            for await socket in server.connections {
                Task { for try await message in socket.messages { try await socket.send(message) } }
            }
        }
        let outcomes = try await runBurst(clients: clients, port: server.port, system: faults.system)
        server.stop()
        await consumer.value
        #expect(outcomes.filter { $0 == .echoed }.count == clients, "\(Set(outcomes))")
        #expect(!outcomes.contains { if case .broken = $0 { true } else { false } })
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("The async face's server with a consumer slower than the burst: accepting waits, nothing is dropped")
    func slowConsumer() async throws {
        raiseDescriptorLimit()
        let faults = Faults()
        let server = try burstServer(faults: faults, maxPendingConnections: 8)
        let consumer = Task {
            for await socket in server.connections {
                // One connection at a time: the rest wait, open or in the kernel's backlog.
                for try await message in socket.messages {
                    try await socket.send(message)
                }
            }
        }
        let outcomes = try await runBurst(clients: 100, port: server.port, system: faults.system)
        server.stop()
        _ = await consumer.result
        #expect(outcomes.filter { $0 == .echoed }.count == 100, "\(Set(outcomes))")
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("The handler face's server", arguments: [200, 1000])
    func handlerFace(clients: Int) async throws {
        raiseDescriptorLimit()
        let faults = Faults()
        let server = try burstServer(faults: faults)
        let outcomes = try await runBurst(clients: clients, port: server.port, system: faults.system)
        server.stop()
        #expect(outcomes.filter { $0 == .echoed }.count == clients, "\(Set(outcomes))")
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }
}
