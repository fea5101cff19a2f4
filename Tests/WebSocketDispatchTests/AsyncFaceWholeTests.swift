import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// An async-face client connected to a raw peer, and the peer with its server `Connection`.
func asyncClientAndRawPeer(configuration: Connection.Configuration = Connection.Configuration(),
                           options: TransportOptions = TransportOptions()) async throws
    -> (WebSocket, RawSocket, Connection)
{
    let listener = try RawListener()
    let url = Loopback.url("127.0.0.1", listener.port)
    let connecting = Task { try await WebSocket.connect(to: url, configuration: configuration, options: options) }
    let peer = try await blocking { Result { try listener.accept() } }.get()
    let server = try await blocking { Result { try peer.acceptHandshake() } }.get()
    let client = try await withTimeout { try await connecting.value }
    return (client, peer, server)
}

/// Reads from `peer` into `server` until `count` events of interest arrived (bounded).
func readEvents(_ peer: RawSocket, _ server: Connection, until isDone: @escaping @Sendable ([Connection.Event]) -> Bool) async
    -> (Connection, [Connection.Event])
{
    await blocking {
        var server = server
        var events: [Connection.Event] = []
        let deadline = now() + .seconds(20)
        while !isDone(events), now() < deadline {
            guard let bytes = peer.read(timeout: .milliseconds(200)) else { continue }
            if bytes.isEmpty { break }
            server.receive(bytes)
            while let event = server.nextEvent() { events.append(event) }
        }
        return (server, events)
    }
}

/// What URLSessionWebSocketTask, Starscream and websockets users expect of an async socket: awaited
/// pings, control frames on request, receive with a timeout, headers from a string URL, fragments.
@Suite("The async face, whole", .timeLimit(.minutes(1)))
struct AsyncFaceWholeTests {
    @Test("An awaited ping returns once its pong arrives, with the round-trip time")
    func awaitedPing() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let socket = try await withTimeout { try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port)) }
        let rtt = try await withTimeout { try await socket.ping() }
        #expect(rtt > .zero)
        #expect(rtt < .seconds(20))
        let withPayload = try await withTimeout { try await socket.ping(Array("mine".utf8)) }
        #expect(withPayload > .zero)
        let status: Connection.CloseStatus = try await withTimeout { try await socket.close() }
        #expect(status.wasClean)
    }

    @Test("A ping nobody answers times out; the connection goes on")
    func pingTimeout() async throws {
        let (client, peer, server) = try await asyncClientAndRawPeer()
        // The raw peer reads the ping, and its connection queues the pong, which is never written.
        let start = now()
        await #expect(throws: WebSocketError.timedOut(.ping)) {
            try await client.ping(timeout: .milliseconds(200))
        }
        #expect(now() - start >= .milliseconds(200))
        try await client.send(.text("still open"))
        let (_, events) = await readEvents(peer, server) { $0.contains(.text("still open")) }
        #expect(events.contains { if case .ping = $0 { true } else { false } })
        #expect(events.contains(.text("still open")))
        client.cancel()
    }

    @Test("A pong for a later ping answers the earlier ones too (RFC 6455 §5.5.3)")
    func laterPongAnswersEarlier() async throws {
        let (client, peer, server) = try await asyncClientAndRawPeer()
        let first = Task { try await client.ping([1], timeout: .seconds(20)) }
        let second = Task { try await client.ping([2], timeout: .seconds(20)) }
        var (connection, events) = await readEvents(peer, server) { events in
            events.filter { if case .ping = $0 { true } else { false } }.count == 2
        }
        #expect(events.filter { if case .ping = $0 { true } else { false } }.count == 2)
        // Answer only the one sent last (whichever task ran second).
        guard case .ping(let last)? = events.last(where: { if case .ping = $0 { true } else { false } }) else {
            throw TestFailure("no ping")
        }
        // The automatic pongs went out with the events: drop them, send only the last one.
        _ = connection.takeOutput()
        try connection.pong(last)
        peer.write(connection.takeOutput())
        _ = try await withTimeout { try await first.value }
        _ = try await withTimeout { try await second.value }
        client.cancel()
    }

    @Test("A ping waiting when the connection ends throws the close status")
    func pingWhenClosed() async throws {
        let (client, peer, _) = try await asyncClientAndRawPeer()
        let waiting = Task { try await client.ping(timeout: nil) }
        #expect(await eventually { client.queue.sync { !client.pendingPings.isEmpty } })
        peer.close()
        do {
            _ = try await withTimeout { try await waiting.value }
            Issue.record("the ping returned")
        } catch WebSocketError.closed(let status) {
            #expect(status.code == .abnormalClosure)
        }
    }

    @Test("The delegate-queue face's ping(onPong:) reports on the handler's queue")
    func handlerFacePing() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try await openClient(to: server, log: log)
        let result = Mailbox<Result<Duration, WebSocketError>>()
        client.ping(Array("cb".utf8)) { result.put($0) }
        let answer = await blocking { result.take(timeout: .seconds(20)) }
        guard case .success(let rtt)? = answer else { throw TestFailure("no pong: \(String(describing: answer))") }
        #expect(rtt > .zero)
        try await log.wait(for: "the pong event") { $0.contains(.pong(Array("cb".utf8))) }
        try startClose(client)
        try await log.waitForEnd()
    }

    @Test("With receivesControlFrames, messages yields pings, pongs and the peer's Close, then ends")
    func controlFrames() async throws {
        var options = TransportOptions()
        options.receivesControlFrames = true
        let (client, peer, server) = try await asyncClientAndRawPeer(options: options)
        var connection = server
        try connection.ping(Array("p".utf8))
        try connection.pong(Array("q".utf8))
        try connection.send(text: "between")
        try connection.close(code: Connection.CloseCode(rawValue: 4000), reason: "bye")
        peer.write(connection.takeOutput())
        // The peer reads the answers, then closes TCP as a server does after the closing handshake.
        let peerSide = Task {
            let (_, events) = await readEvents(peer, connection) { $0.contains { if case .closed = $0 { true } else { false } } }
            peer.close()
            return events
        }
        let seen = try await withTimeout {
            var all: [WebSocketMessage] = []
            for try await message in client.messages { all.append(message) }
            return all
        }
        #expect(seen == [.ping(Array("p".utf8)), .pong(Array("q".utf8)), .text("between"),
                         .close(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000), reason: "bye"))])
        // The ping was answered and the Close replied to, as always.
        let events = await peerSide.value
        #expect(events.contains(.pong(Array("p".utf8))))
        #expect(events.contains(.closeReceived(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000)))))
    }

    @Test("receive(timeout:) times out without harm, then returns the next message")
    func receiveWithTimeout() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let socket = try await withTimeout { try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port)) }
        await #expect(throws: WebSocketError.timedOut(.receive)) { try await socket.receive(timeout: .milliseconds(100)) }
        try await socket.send(.text("after the timeout"))
        let next = try await withTimeout { try await socket.receive(timeout: .seconds(20)) }
        #expect(next == .text("after the timeout"))
        _ = try await withTimeout { try await socket.close() }
        #expect(try await socket.receive(timeout: .seconds(1)) == nil)  // a clean end
    }

    @Test("connect(to:) from a string with subprotocols and headers")
    func connectWithHeaders() async throws {
        let seen = Mailbox<Connection.HandshakeRequest>()
        let server = try makeEchoServer { request in
            seen.put(request)
            return .accept(subprotocol: request.subprotocols.last)
        }
        defer { server.stop() }
        let socket = try await withTimeout {
            try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port, "/room?id=7"), subprotocols: ["a", "b"],
                                        headers: ["Authorization": "Bearer t0k3n", "X-Client": "tests"])
        }
        #expect(socket.handshake?.subprotocol == "b")
        let request = try #require(await blocking { seen.take() })
        #expect(request.resource == "/room?id=7")
        #expect(request.head.headers["Authorization"] == "Bearer t0k3n")
        #expect(request.head.headers["X-Client"] == "tests")
        _ = try await withTimeout { try await socket.close() }
    }

    @Test("Fragment delivery on the async face: a large message arrives in pieces that join to it")
    func fragments() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        var fragmentDelivery = Connection.Configuration()
        fragmentDelivery.delivery = .fragments
        let configuration = fragmentDelivery
        let socket = try await withTimeout {
            try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port), configuration: configuration)
        }
        let big = payload(300_000, seed: 5)
        try await socket.send(.binary(big))
        let (joined, pieces) = try await withTimeout {
            var joined: [UInt8] = []
            var pieces = 0
            for try await message in socket.messages {
                guard case .fragment(let fragment) = message else { continue }
                #expect(fragment.kind == .binary)
                joined += fragment.bytes
                pieces += 1
                if fragment.isFinal { break }
            }
            return (joined, pieces)
        }
        #expect(joined == big)
        #expect(pieces >= 1)
        _ = try await withTimeout { try await socket.close() }
    }

    @Test("The async face is refused on a socket whose events go to a handler")
    func handlerSocketHasNoMessages() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try await openClient(to: server, log: log)
        await #expect(throws: WebSocketError.eventHandlerInUse) { try await client.receive(timeout: .seconds(1)) }
        try startClose(client)
        try await log.waitForEnd()
    }
}
