import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketTLS
import TLSTestSupport
import TransportTestSupport
@testable import WebSocketDispatch

#if os(Linux)
func dispatchTLSClientOptions(trusting roots: [TestIdentity] = [TestPKI.shared.ca]) throws -> TransportOptions {
    var configuration = TLSConfiguration.client()
    configuration.trustRoots = .only(roots.map(\.certificate))
    var options = TransportOptions()
    options.tls = try TLSContext(configuration)
    return options
}

func dispatchTLSServerOptions(_ identity: TestIdentity = TestPKI.shared.server) throws -> TransportOptions {
    var options = TransportOptions()
    options.tls = try TLSContext(.server(certificateChain: identity.certificate, privateKey: identity.key))
    return options
}

/// wss:// with the Dispatch adapter: both faces of the server, both faces of the client.
@Suite("Dispatch adapter over TLS (wss://)", .timeLimit(.minutes(1)))
struct DispatchTLSTests {
    @Test("The delegate-queue face: a wss echo and a clean close on both ends")
    func handlerFace() async throws {
        let serverLog = EventLog()
        let server = try makeEchoServer(options: dispatchTLSServerOptions(), log: serverLog)
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient("wss://localhost:\(server.port)/chat", options: dispatchTLSClientOptions(), log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        let big = payload(200_000)
        try client.send(text: "over TLS")
        try client.send(binary: big)
        try await log.wait(for: "the echoes") { $0.contains(.binary(big)) }
        #expect(log.all.contains(.text("over TLS")))
        try startClose(client)
        guard case .closed(let status) = try await log.waitForEnd() else { throw TestFailure("not closed") }
        #expect(status.wasClean)
        #expect(client.transportFailure == nil)
        guard case .closed(let serverStatus) = try await serverLog.waitForEnd() else { throw TestFailure("server") }
        #expect(serverStatus.wasClean)
    }

    @Test("The async face on both ends over TLS")
    func asyncFace() async throws {
        let server = try WebSocketServer(options: dispatchTLSServerOptions())
        defer { server.stop() }
        let serverTask = Task { () async throws -> Connection.CloseStatus? in
            for await socket in server.connections {
                for try await message in socket.messages { try await socket.send(message) }
                return try await socket.close()
            }
            return nil
        }
        let options = try dispatchTLSClientOptions()
        let socket = try await withTimeout {
            try await WebSocket.connect(to: "wss://127.0.0.1:\(server.port)/", options: options)
        }
        try await socket.send(.text("hello"))
        #expect(try await withTimeout { try await socket.receive(timeout: .seconds(20)) } == .text("hello"))
        let rtt = try await withTimeout { try await socket.ping() }
        #expect(rtt > .zero)
        let status = try await withTimeout { try await socket.close() }
        #expect(status.wasClean)
        let serverStatus = try await withTimeout { try await serverTask.value }
        #expect(serverStatus?.wasClean == true)
    }

    @Test("An untrusted server: the async connect throws the TLS error; the handler face reports it as the failure")
    func untrusted() async throws {
        let server = try makeEchoServer(options: dispatchTLSServerOptions(TestPKI.shared.fromOtherCA))
        defer { server.stop() }
        let options = try dispatchTLSClientOptions()
        do {
            _ = try await withTimeout { try await WebSocket.connect(to: "wss://localhost:\(server.port)/", options: options) }
            Issue.record("connected to an untrusted server")
        } catch WebSocketError.tls(let error) {
            #expect(error.kind == .unknownIssuer)
        }
        let log = EventLog()
        _ = try connectClient("wss://localhost:\(server.port)/", options: options, log: log)
        guard case .failed(.tls(let error)) = try await log.waitForEnd() else { throw TestFailure("\(log.all.map(\.brief))") }
        #expect(error.kind == .unknownIssuer)
    }

    @Test("Garbage and plain HTTP to a TLS server are dropped; the server goes on")
    func notTLSIsDropped() async throws {
        let server = try makeEchoServer(options: dispatchTLSServerOptions())
        defer { server.stop() }
        let raw = try RawSocket.connect(port: server.port)
        raw.write(Array("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n".utf8))
        #expect(await blocking { raw.readUntilEOF(timeout: .seconds(10)) })
        let garbage = try RawSocket.connect(port: server.port)
        garbage.write([UInt8](repeating: 0x16, count: 3000))
        #expect(await blocking { garbage.readUntilEOF(timeout: .seconds(10)) })
        let log = EventLog()
        let client = try connectClient("wss://localhost:\(server.port)/", options: dispatchTLSClientOptions(), log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        try client.send(text: "still serving")
        try await log.wait(for: "the echo") { $0.contains(.text("still serving")) }
        try startClose(client)
        try await log.waitForEnd()
    }
}
#endif
