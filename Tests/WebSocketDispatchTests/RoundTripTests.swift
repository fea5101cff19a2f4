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

/// Client and server of the delegate-queue face over loopback: messages of every length form, both
/// address families, fragments, pings, close codes, subprotocols and refusals.
@Suite("Loopback round trips (delegate-queue face)", .timeLimit(.minutes(1)))
struct RoundTripTests {
    static let sizes = [0, 125, 126, 65535, 65536, 1 << 20, 16 << 20]

    /// Limits raised above 16 MiB for the largest case (the default frame and message limit is
    /// exactly 16 MiB).
    static var largeConfiguration: Connection.Configuration {
        var configuration = Connection.Configuration()
        configuration.limits.maxFrameSize = 20 << 20
        configuration.limits.maxMessageSize = 20 << 20
        return configuration
    }

    /// Sends a binary and a text message of `size` bytes and checks both echoes, then closes.
    static func roundTrip(host: String, size: Int) async throws {
        let server = try makeEchoServer(host: host, configuration: largeConfiguration)
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient(Loopback.url(host, server.port), configuration: largeConfiguration, log: log)
        try await log.wait(for: "open") { $0.first.map { if case .open = $0 { true } else { false } } ?? false }

        // Building, sending (masking) and comparing 16 MiB takes a while in a debug build: off the
        // cooperative pool, so that the other tests keep running.
        let (bytes, text) = await blocking {
            (payload(size), String(repeating: "é", count: size / 2) + (size % 2 == 1 ? "x" : ""))
        }
        try await blocking {
            Result { () throws(WebSocketError) in
                try client.send(binary: bytes)
                try client.send(text: text)
            }
        }.get()
        let events = try await log.wait(for: "both echoes", timeout: .seconds(30)) { events in
            events.contains { if case .text = $0 { true } else { false } }
        }
        let (binaryOK, textOK) = await blocking {
            let binaries = events.compactMap { if case .binary(let b) = $0 { b } else { nil } }
            let texts = events.compactMap { if case .text(let t) = $0 { t } else { nil } }
            return (binaries == [bytes], texts == [text])
        }
        #expect(binaryOK)
        #expect(textOK)

        try startClose(client)
        let end = try await log.waitForEnd()
        #expect(end == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
    }

    @Test("IPv4 127.0.0.1: binary and text round trips", arguments: sizes)
    func ipv4(size: Int) async throws {
        try await Self.roundTrip(host: "127.0.0.1", size: size)
    }

    @Test("IPv6 ::1: binary and text round trips", .enabled(if: Loopback.hasIPv6, "this machine has no IPv6 loopback (::1)"),
          arguments: sizes)
    func ipv6(size: Int) async throws {
        try await Self.roundTrip(host: "::1", size: size)
    }

    @Test("Fragmented messages: streamed with sendFragment, and split by fragmentationSize")
    func fragmented() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        var configuration = Connection.Configuration()
        configuration.fragmentationSize = 1000
        let log = EventLog()
        let client = try await openClient(to: server, configuration: configuration, log: log)

        // "€" is three bytes: the pieces split it.
        let text = String(repeating: "€", count: 1000)
        let utf8 = Array(text.utf8)
        try client.sendFragment(utf8[0..<1], kind: .text, isFinal: false)
        try client.sendPing([1, 2, 3])  // a control frame between fragments
        try client.sendFragment(utf8[1..<2000], kind: .text, isFinal: false)
        try client.sendFragment(utf8[2000...], kind: .text, isFinal: true)
        let big = payload(10_000)
        try client.send(binary: big)  // ten frames of 1000 bytes

        let events = try await log.wait(for: "echoes") { events in
            events.contains { if case .binary = $0 { true } else { false } }
        }
        #expect(events.contains(.text(text)))
        #expect(events.contains(.binary(big)))
        #expect(events.contains(.pong([1, 2, 3])))
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("Fragments delivered as they arrive (Delivery.fragments)")
    func fragmentDelivery() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        var configuration = Connection.Configuration()
        configuration.delivery = .fragments
        let log = EventLog()
        let client = try await openClient(to: server, configuration: configuration, log: log)
        let big = payload(300_000)
        try client.send(binary: big)
        let events = try await log.wait(for: "the last fragment") { events in
            events.contains { if case .fragment(let f) = $0 { f.isFinal } else { false } }
        }
        let fragments = events.compactMap { if case .fragment(let f) = $0 { f } else { nil } }
        #expect(fragments.first?.isFirst == true)
        #expect(fragments.flatMap(\.bytes) == big)
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("Pings both ways are answered with pongs")
    func pings() async throws {
        let serverLog = EventLog()
        let server = try makeEchoServer(log: serverLog)
        defer { server.stop() }
        let log = EventLog()
        let client = try await openClient(to: server, log: log)
        try client.sendPing(Array("are you there".utf8))
        try await log.wait(for: "the pong") { $0.contains(.pong(Array("are you there".utf8))) }
        try await serverLog.wait(for: "the ping at the server") { $0.contains(.ping(Array("are you there".utf8))) }
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("Close codes: the client closes with 4001")
    func clientCloses() async throws {
        let serverLog = EventLog()
        let server = try makeEchoServer(log: serverLog)
        defer { server.stop() }
        let log = EventLog()
        let client = try await openClient(to: server, log: log)
        try startClose(client, code: Connection.CloseCode(rawValue: 4001), reason: "done here")
        let end = try await log.waitForEnd()
        // RFC 6455 §7.1.5: the close code is the one of the first Close frame received: the server
        // echoes ours.
        #expect(end == .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4001), reason: "", wasClean: true)))
        try await serverLog.wait(for: "the server's end") { $0.contains { $0.isLast } }
        let serverEvents = serverLog.all
        #expect(serverEvents.contains(.closeReceived(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4001), reason: "done here"))))
        #expect(serverEvents.last == .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4001), reason: "done here", wasClean: true)))
    }

    @Test("Close codes: the server closes with 1001")
    func serverCloses() async throws {
        let serverLog = EventLog()
        let server = try WebSocketServer(queue: DispatchQueue(label: "server")) { socket, event in
            serverLog.append(event)
            if case .text("bye") = event { try? socket.sendClose(code: .goingAway, reason: "shutting down") }
        }
        defer { server.stop() }
        let log = EventLog()
        let client = try await openClient(to: server, log: log)
        try client.send(text: "bye")
        let end = try await log.waitForEnd()
        #expect(log.all.contains(.closeReceived(Connection.CloseFrame(code: .goingAway, reason: "shutting down"))))
        #expect(end == .closed(Connection.CloseStatus(code: .goingAway, reason: "shutting down", wasClean: true)))
        try await serverLog.wait(for: "the server's end") { $0.contains { $0.isLast } }
        #expect(serverLog.all.last == .closed(Connection.CloseStatus(code: .goingAway, reason: "", wasClean: true)))
    }

    @Test("Subprotocol negotiation: the server picks one the client offered")
    func subprotocol() async throws {
        let server = try makeEchoServer { request in
            .accept(subprotocol: request.subprotocols.contains("chat.v2") ? "chat.v2" : nil,
                    headers: ["X-Server": "dispatch"])
        }
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port, "/room?id=1"),
                                       subprotocols: ["chat.v1", "chat.v2"], log: log)
        let events = try await log.wait(for: "open") { !$0.isEmpty }
        guard case .open(let result) = events.first else { throw TestFailure("\(events.map(\.brief))") }
        #expect(result.subprotocol == "chat.v2")
        #expect(result.headers["X-Server"] == "dispatch")
        #expect(client.handshake?.subprotocol == "chat.v2")
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("A rejected handshake: the client sees the status, headers and body")
    func rejection() async throws {
        let server = try makeEchoServer { request in
            request.resource == "/private"
                ? .reject(status: 403, headers: ["X-Reason": "members only"], body: Array("go away\n".utf8))
                : .accept()
        }
        defer { server.stop() }
        let log = EventLog()
        _ = try connectClient(Loopback.url("127.0.0.1", server.port, "/private"), log: log)
        let end = try await log.waitForEnd()
        guard case .failed(.handshakeFailed(let failure)) = end, let response = failure.rejected else {
            throw TestFailure("expected a refusal, got \(end.brief)")
        }
        #expect(response.status == 403)
        #expect(response.headers["X-Reason"] == "members only")
        #expect(response.body == Array("go away\n".utf8))
        #expect(log.all.count == 1)
    }

    @Test("An invalid answer from the server's user becomes a 500")
    func invalidDecision() async throws {
        let server = try makeEchoServer { _ in .accept(subprotocol: "never-offered") }
        defer { server.stop() }
        let log = EventLog()
        _ = try connectClient(Loopback.url("127.0.0.1", server.port), log: log)
        let end = try await log.waitForEnd()
        guard case .failed(.handshakeFailed(let failure)) = end, let response = failure.rejected else {
            throw TestFailure("expected a refusal, got \(end.brief)")
        }
        #expect(response.status == 500)
    }

    @Test("A host name is resolved (localhost)")
    func hostName() async throws {
        // `localhost` may resolve to ::1 too; only 127.0.0.1 listens, so a refused ::1 moves on.
        let server = try makeEchoServer(host: "127.0.0.1")
        defer { server.stop() }
        guard case .success(let addresses) = AddressResolution.resolve(host: "localhost", port: server.port) else {
            throw TestFailure("localhost did not resolve")
        }
        #expect(addresses.contains { $0.family == .ipv4 })
        let log = EventLog()
        let client = try connectClient("ws://localhost:\(server.port)/", log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        try client.send(text: "via a name")
        try await log.wait(for: "the echo") { $0.contains(.text("via a name")) }
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("Each address is tried in turn: a refused one, then one that accepts")
    func eachAddress() async throws {
        let server = try makeEchoServer(host: "127.0.0.1")
        defer { server.stop() }
        let closed = try RawListener()
        closed.close()
        guard case .success(let refused) = AddressResolution.resolve(host: "127.0.0.1", port: closed.port),
              case .success(let good) = AddressResolution.resolve(host: "127.0.0.1", port: server.port) else {
            throw TestFailure("no 127.0.0.1")
        }
        let log = EventLog()
        let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))
        let pipeline = try ConnectionPipeline.client(request, configuration: Connection.Configuration(), transport: TransportOptions())
        let socket = WebSocket(pipeline: pipeline, options: TransportOptions(),
                               consumer: .handler(queue: DispatchQueue(label: "client")) { _, event in log.append(event) },
                               system: .live)
        socket.queue.async { socket.startConnecting(to: refused + good) }
        try await log.wait(for: "open") { !$0.isEmpty }
        try startClose(socket)
        try await log.waitForEnd()
    }

    @Test("Connecting to a closed port fails with connectFailed")
    func connectRefused() async throws {
        let listener = try RawListener()
        let port = listener.port
        listener.close()  // nothing listens on the port now
        let log = EventLog()
        _ = try connectClient(Loopback.url("127.0.0.1", port), log: log)
        let end = try await log.waitForEnd()
        guard case .failed(.connectFailed(let address, let error)) = end else { throw TestFailure("got \(end.brief)") }
        #expect(error == .connectionRefused)
        #expect(address.port == port)
    }

    @Test("Unusable URLs are refused at once")
    func badURLs() throws {
        let log = EventLog()
        // Never downgraded to ws://: without a TLS layer, wss:// is refused.
        #expect(throws: WebSocketError.tlsUnavailable) {
            _ = try connectClient("wss://127.0.0.1:1/", log: log)
        }
        #expect {
            _ = try connectClient("http://127.0.0.1:1/", log: log)
        } throws: { error in
            if case WebSocketError.invalidURL = error { return true }
            return false
        }
    }
}
