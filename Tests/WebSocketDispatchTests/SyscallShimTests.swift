import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// A client of the delegate-queue face whose system calls go through `faults`.
func shimClient(_ faults: Faults, port: UInt16, configuration: Connection.Configuration = Connection.Configuration(),
                options: TransportOptions = TransportOptions(), log: EventLog) throws -> WebSocket {
    let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))
    let handler: WebSocket.EventHandler = { _, event in log.append(event) }
    return try WebSocket.startClient(request, via: WebSocketEndpoint(url: request.url), configuration: configuration,
                                     options: options, consumer: .handler(queue: DispatchQueue(label: "client"), handler),
                                     system: faults.system)
}

/// A raw peer that accepted `client`'s connection and completed the opening handshake.
func rawServer(for listener: RawListener, log: EventLog) async throws -> (RawSocket, Connection) {
    let peer = try await blocking { Result { try listener.accept() } }.get()
    let connection = try await blocking { Result { try peer.acceptHandshake() } }.get()
    try await log.wait(for: "open") { !$0.isEmpty }
    return (peer, connection)
}

/// The Dispatch adapter under the system-call shim: forced EINTR, EAGAIN, short writes, resets and
/// broken pipes, and peers that vanish, stop reading or stall mid-frame. Each case ends in the
/// documented state and close code, with every descriptor the adapter opened closed again.
@Suite("Dispatch adapter under the system-call shim", .timeLimit(.minutes(2)))
struct DispatchSyscallShimTests {
    @Test("A storm of EINTR, EAGAIN and short reads and writes: a 1 MiB echo arrives intact")
    func storm() async throws {
        let faults = Faults()
        var generator = Connection.SeededGenerator(seed: 1928)
        for call in [Faults.Call.receive, .send] {
            faults.plan(call, (0..<5000).compactMap { _ in
                switch generator.next() % 4 {
                case 0: return .interrupt
                case 1: return .wouldBlock
                case 2: return .short(Int(generator.next() % 100) + 1)
                default: return nil
                }
            })
        }
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try shimClient(faults, port: server.port, log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        let big = payload(1 << 20, seed: 3)
        try client.send(binary: big)
        try client.send(text: "small")
        try await log.wait(for: "both echoes", timeout: .seconds(30)) { $0.contains(.text("small")) }
        #expect(log.all.contains(.binary(big)))
        try startClose(client)
        guard case .closed(let status) = try await log.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.wasClean)
        #expect(faults.calls(.send) > 100)
        #expect(faults.calls(.receive) > 10)
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("EINTR on connect: the connect goes on in the background and completes")
    func connectInterrupted() async throws {
        let faults = Faults()
        faults.plan(.connect, [.interrupt])
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try shimClient(faults, port: server.port, log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        #expect(faults.calls(.connect) == 1)
        try client.send(text: "after EINTR")
        try await log.wait(for: "the echo") { $0.contains(.text("after EINTR")) }
        try startClose(client)
        try await log.waitForEnd()
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("EINTR and EAGAIN on accept: the server retries and serves")
    func acceptInterrupted() async throws {
        let faults = Faults()
        faults.plan(.accept, [.interrupt, .wouldBlock, .interrupt])
        let server = try burstServer(faults: faults)
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port), log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        try client.send(text: "accepted")
        try await log.wait(for: "the echo") { $0.contains(.text("accepted")) }
        try startClose(client)
        try await log.waitForEnd()
        server.stop()
        #expect(faults.calls(.accept) >= 3)
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("ECONNRESET in the middle of a frame: 1006 (aborted), the reset is the transport failure")
    func resetMidFrame() async throws {
        let faults = Faults()
        let listener = try RawListener()
        let log = EventLog()
        let client = try shimClient(faults, port: listener.port, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        peer.write([0x82, 0x7E, 0x03, 0xE8] + payload(10))  // 1000 bytes announced, 10 sent
        faults.always(.receive, .error(.connectionReset))
        peer.write(payload(10))
        let end = try await log.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .aborted)
        #expect(client.transportFailure == .transport(.connectionReset))
        #expect(!log.all.contains { if case .binary = $0 { true } else { false } })
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("EPIPE on a write: 1006 (aborted), the broken pipe is the transport failure")
    func brokenPipe() async throws {
        let faults = Faults()
        let listener = try RawListener()
        let log = EventLog()
        let client = try shimClient(faults, port: listener.port, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        faults.always(.send, .error(.brokenPipe))
        try client.send(text: "into a broken pipe")
        let end = try await log.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.failure == .aborted)
        #expect(client.transportFailure == .transport(.brokenPipe))
        #expect(await blocking { peer.readUntilEOF() })
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("A peer that stops reading: the write timeout ends the connection (1006, .timedOut(.write))")
    func peerStopsReading() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var options = TransportOptions()
        options.writeTimeout = .milliseconds(300)
        let log = EventLog()
        let client = try shimClient(faults, port: listener.port, options: options, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        // More than the kernel's buffers hold, far less than the output buffer's high-water mark. On a
        // slow machine the write timeout may end the connection before the last of them: then the
        // sends after it are refused, which is what this test expects anyway.
        let chunk = payload(1 << 20)
        for _ in 0..<16 {
            do { try client.send(binary: chunk) } catch { break }
        }
        let end = try await log.waitForEnd(timeout: .seconds(20))
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .aborted)
        #expect(client.transportFailure == .timedOut(.write))
        peer.close()
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("A peer that sends half a frame and stalls: the close timeout ends it (1006), the socket is closed")
    func halfFrameStall() async throws {
        let faults = Faults()
        let listener = try RawListener()
        var configuration = Connection.Configuration()
        configuration.timeouts.close = .milliseconds(300)
        let log = EventLog()
        let client = try shimClient(faults, port: listener.port, configuration: configuration, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        peer.write([0x82, 0x7E, 0x01, 0x00] + payload(50))  // 256 bytes announced, 50 sent
        try startClose(client)
        let end = try await log.waitForEnd(timeout: .seconds(10))
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .closeTimeout)
        // The client half-closed after the timeout: the silent peer sees the end of the stream.
        #expect(await blocking { peer.readUntilEOF() })
        peer.close()
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("A peer that vanishes with a reset: 1006, not clean, nothing leaked")
    func peerVanishes() async throws {
        let faults = Faults()
        let listener = try RawListener()
        let log = EventLog()
        _ = try shimClient(faults, port: listener.port, log: log)
        let (peer, _) = try await rawServer(for: listener, log: log)
        peer.closeWithReset()
        let end = try await log.waitForEnd()
        guard case .closed(let status) = end else { throw TestFailure("got \(end.brief)") }
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }
}
