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

/// The delegate-queue model: every handler call, and the server's handshake decision, runs on the
/// queue the user gave, in order, never overlapping.
@Suite("Delegate-queue delivery", .timeLimit(.minutes(1)))
struct DeliveryQueueTests {
    @Test("Client and server events arrive on the queues given, even concurrent ones")
    func eventsOnGivenQueue() async throws {
        let serverQueue = DispatchQueue(label: "server.delegate", attributes: .concurrent)
        let clientQueue = DispatchQueue(label: "client.delegate", attributes: .concurrent)
        let serverLog = EventLog()
        let decisions = Counter()
        let server = try WebSocketServer(queue: serverQueue, handshake: { _ in
            dispatchPrecondition(condition: .onQueue(serverQueue))
            decisions.increment()
            return .accept()
        }) { socket, event in
            dispatchPrecondition(condition: .onQueue(serverQueue))
            serverLog.append(event)
            if case .text(let text) = event { try? socket.send(text: text) }
        }
        defer { server.stop() }

        let log = EventLog()
        let client = try WebSocket.connect(to: Loopback.url("127.0.0.1", server.port), queue: clientQueue) { _, event in
            dispatchPrecondition(condition: .onQueue(clientQueue))
            log.append(event)
        }
        try await log.wait(for: "open") { !$0.isEmpty }
        for index in 0..<50 { try client.send(text: "message \(index)") }
        let events = try await log.wait(for: "50 echoes") { $0.count == 51 }
        // In order, although the queue is concurrent.
        #expect(events.dropFirst() == (0..<50).map { WebSocketEvent.text("message \($0)") }[...])
        try startClose(client)
        try await log.waitForEnd()
        try await serverLog.wait(for: "the server's end") { $0.contains { $0.isLast } }
        #expect(decisions.value == 1)
    }

    @Test("Handler calls for one socket never overlap on a concurrent queue")
    func handlerCallsDoNotOverlap() async throws {
        // A handler that sleeps a little: with a concurrent queue, overlapping calls would show as
        // more than one call in flight.
        let inFlight = InFlight()
        let queue = DispatchQueue(label: "overlap", attributes: .concurrent)
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try WebSocket.connect(to: Loopback.url("127.0.0.1", server.port), queue: queue) { _, event in
            inFlight.enter()
            usleep(200)
            inFlight.leave()
            log.append(event)
        }
        try await log.wait(for: "open") { !$0.isEmpty }
        for index in 0..<30 { try client.send(text: "\(index)") }
        try await log.wait(for: "30 echoes") { $0.count == 31 }
        #expect(inFlight.overlaps == 0)
        try startClose(client)
        try await log.waitForEnd()
    }
}

/// Counts handler calls in flight, and how often more than one was.
///
/// `@unchecked Sendable`: its fields are read and written only on `queue`.
final class InFlight: @unchecked Sendable {
    private let queue = DispatchQueue(label: "InFlight")
    private var current = 0
    private var overlapCount = 0
    func enter() { queue.sync { current += 1; if current > 1 { overlapCount += 1 } } }
    func leave() { queue.sync { current -= 1 } }
    var overlaps: Int { queue.sync { overlapCount } }
}
