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

/// The queue the queue face's handlers and pong callbacks run on in these tests, and how a block
/// knows it runs there (or on a queue that targets it).
private let pingQueueKey = DispatchSpecificKey<String>()
private let pingQueue: DispatchQueue = {
    let queue = DispatchQueue(label: "ping handlers", attributes: .concurrent)
    queue.setSpecific(key: pingQueueKey, value: "ping handlers")
    return queue
}()

/// Whether the running code is where a callback of `socket`, of the non-blocking `face`, belongs:
/// on the socket's loop for the loop face, on the handlers' queue for the queue face.
private func isWhereCallbacksRun(_ face: ClientFace, _ socket: WebSocket) -> Bool {
    switch face {
    case .loop: return socket.loop.inLoop
    case .queue: return DispatchQueue.getSpecific(key: pingQueueKey) == "ping handlers" && !socket.loop.inLoop
    case .async, .blocking: return true
    }
}

private func pingClientSetup() -> ClientSetup {
    var setup = ClientSetup()
    setup.queue = pingQueue
    return setup
}

/// An awaited ping with the face's own call: the async `ping(_:timeout:)`, `ping(_:timeout:onPong:)`
/// for the handler faces, the blocking socket's `ping` (off the pool). Returns the outcome, and
/// whether a handler face called back where it should.
private func awaitedPing(_ client: FaceClient, _ payload: [UInt8]? = nil, timeout: Duration?) async throws
    -> (outcome: Result<Duration, WebSocketError>, calledBackWhereExpected: Bool)
{
    let face = client.face
    return try await Harness.withTimeout(Harness.patience, "the ping") {
        switch face {
        case .async:
            let socket = try #require(client.webSocket)
            do throws(WebSocketError) {
                return (.success(try await socket.ping(payload, timeout: timeout)), true)
            } catch {
                return (.failure(error), true)
            }
        case .loop, .queue:
            let socket = try #require(client.webSocket)
            return await withCheckedContinuation { continuation in
                socket.ping(payload, timeout: timeout) { result in
                    continuation.resume(returning: (result, isWhereCallbacksRun(face, socket)))
                }
            }
        case .blocking:
            let socket = try #require(client.blocking)
            return try await Harness.offPool {
                (Result { () throws(WebSocketError) in try socket.ping(payload, timeout: timeout) }, true)
            }
        }
    }
}

/// A client of `face` connected to a raw peer playing the server: the client, the peer and its open
/// server `Connection`.
private func clientOfRawPeer(_ face: ClientFace, loop: EventLoop? = nil) async throws -> (FaceClient, RawSocket, Connection) {
    let listener = try RawListener()
    defer { listener.close() }
    let url = Harness.url("127.0.0.1", listener.port)
    var setup = pingClientSetup()
    setup.loop = loop
    let connecting = Task { [setup] in try await FaceClient.connect(face, to: url, setup) }
    let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
    let connection = try await Harness.offPool { try RawPeers.acceptHandshake(peer) }
    let client = try await connecting.value
    try client.expectOpen()
    return (client, peer, connection)
}

/// A server of `face` whose every connection, once open, sends an awaited ping with `timeout` and
/// records its outcome in `outcomes` (`.message(.text("pong"))` with the round trip checked, or
/// `.failed` with the error); after an unanswered ping it sends "still open".
private func pingingServer(_ face: ServerFace, timeout: Duration?, outcomes: Transcript) throws -> (WebSocketServer, Task<Void, Never>?) {
    let record: @Sendable (Result<Duration, WebSocketError>, Bool) -> Void = { result, whereExpected in
        switch result {
        case .success(let roundTrip):
            outcomes.append(roundTrip > .zero && whereExpected ? .message(.text("pong")) : .failed(.invalidArgument("\(roundTrip)")))
        case .failure(let error):
            outcomes.append(whereExpected ? .failed(error) : .failed(.invalidArgument("called back elsewhere: \(error)")))
        }
    }
    switch face {
    case .loop, .queue:
        let clientFace: ClientFace = face == .loop ? .loop : .queue
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options(),
                                         queue: face == .queue ? pingQueue : nil) { socket, event in
            guard case .open = event else { return }
            socket.ping(timeout: timeout) { result in
                record(result, isWhereCallbacksRun(clientFace, socket))
                if case .failure(.timedOut) = result { try? socket.send(text: "still open") }
            }
        }
        return (server, nil)
    case .async:
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let serving = Task {
            await server.run { socket in
                do throws(WebSocketError) {
                    record(.success(try await socket.ping(timeout: timeout)), true)
                } catch {
                    record(.failure(error), true)
                    if case .timedOut = error { try? await socket.send(.text("still open")) }
                }
                // Until the client leaves.
                do throws(WebSocketError) { for try await _ in socket.messages {} } catch {}
            }
        }
        return (server, serving)
    case .blocking:
        throw FaceFailure("no blocking face here")
    }
}

/// Awaited pings (RFC 6455 §5.5.2, §5.5.3) on every face, in both roles: a round trip, a peer that
/// never answers, a connection that ends first.
@Suite("Awaited pings", .timeLimit(.minutes(3)))
struct PingTests {
    @Test("A client's awaited ping returns the round trip (with its own payload too); the handler faces call back on the loop or their queue",
          arguments: ClientFace.allCases)
    func clientRoundTrip(_ face: ClientFace) async throws {
        try await withServer(.loop) { server in
            let client = try await FaceClient.connect(face, to: server.url(), pingClientSetup())
            try client.expectOpen()
            let (outcome, whereExpected) = try await awaitedPing(client, timeout: Harness.patience)
            let roundTrip = try outcome.get()
            #expect(roundTrip > .zero)
            #expect(roundTrip < Harness.patience)
            #expect(whereExpected, "the pong callback ran elsewhere")
            let (withPayload, _) = try await awaitedPing(client, Array("mine".utf8), timeout: Harness.patience)
            #expect(try withPayload.get() > .zero)
            #expect(try await client.close().wasClean)
        }
    }

    @Test("A server connection's awaited ping returns the round trip, on every server face", arguments: ServerFace.nonBlocking)
    func serverRoundTrip(_ face: ServerFace) async throws {
        let outcomes = Transcript()
        let (server, serving) = try pingingServer(face, timeout: Harness.patience, outcomes: outcomes)
        let client = try await FaceClient.connect(.loop, to: Harness.url("127.0.0.1", server.port))
        try client.expectOpen()
        let outcome = try await outcomes.wait(for: "the ping's outcome") { !$0.isEmpty }[0]
        #expect(outcome == .message(.text("pong")), "\(Harness.brief(outcome))")
        #expect(try await client.close().wasClean)
        server.stop()
        await serving?.value
    }

    /// The loop reads the clock once a turn; a ping asked for while a turn is under way (here, the
    /// loop held in one piece of work) must still count its timeout from when it is sent, never
    /// from the start of that turn. The loop it holds is the test's own.
    @Test("A ping asked for during a long turn of the loop waits its whole timeout")
    func pingDuringALongTurn() async throws {
        let (face, peer, _) = try await clientOfRawPeer(.async, loop: Harness.privateLoop())
        defer { peer.close() }
        let client = try #require(face.webSocket)
        let held = Locked(false)
        client.loop.execute {
            held.withLock { $0 = true }
            held.broadcast()
            usleep(400_000)  // the subject: a turn that lasts 400 ms
        }
        try await Harness.offPool {
            guard held.wait(until: { $0 }, deadline: now() + Harness.patience, now: now) else { throw FaceFailure("not held") }
            usleep(300_000)  // the turn's time is 300 ms old when the ping is asked for
        }
        let start = now()
        await #expect(throws: WebSocketError.timedOut(.ping)) { try await client.ping(timeout: .milliseconds(500)) }
        #expect(now() - start >= .milliseconds(500))
        client.cancel()
    }

    @Test("A client's ping that no pong answers throws timedOut(.ping); the connection goes on", arguments: ClientFace.allCases)
    func clientUnanswered(_ face: ClientFace) async throws {
        let (client, peer, connection) = try await clientOfRawPeer(face)
        // The peer reads the ping, and its connection queues the pong, which is never written.
        let start = now()
        let (outcome, whereExpected) = try await awaitedPing(client, timeout: .milliseconds(200))
        #expect(throws: WebSocketError.timedOut(.ping)) { try outcome.get() }
        #expect(now() - start >= .milliseconds(200))
        #expect(whereExpected)
        try await client.send(.text("still open"))
        let (_, events) = try await RawPeers.events(peer, connection) { $0.contains(.text("still open")) }
        #expect(events.contains { if case .ping = $0 { true } else { false } })
        #expect(events.contains(.text("still open")))
        client.cancel()
        peer.close()
    }

    @Test("A server connection's ping that no pong answers throws timedOut(.ping); the connection goes on", arguments: ServerFace.nonBlocking)
    func serverUnanswered(_ face: ServerFace) async throws {
        let outcomes = Transcript()
        let (server, serving) = try pingingServer(face, timeout: .milliseconds(200), outcomes: outcomes)
        let (peer, connection, opening) = try await RawPeers.client(port: server.port)
        #expect(try await outcomes.wait(for: "the ping's outcome") { !$0.isEmpty } == [.failed(.timedOut(.ping))])
        // After the timeout the server sends on the same connection.
        let (_, events) = try await RawPeers.events(peer, connection, after: opening) { $0.contains(.text("still open")) }
        #expect(events.contains { if case .ping = $0 { true } else { false } })
        #expect(events.contains(.text("still open")))
        peer.close()
        server.stop()
        await serving?.value
    }

    @Test("A client's ping waiting when the connection ends throws .closed with the status", arguments: ClientFace.allCases)
    func clientClosedFirst(_ face: ClientFace) async throws {
        let (client, peer, connection) = try await clientOfRawPeer(face)
        let pinging = Task { try await awaitedPing(client, timeout: nil) }
        // Once the ping has arrived, the peer drops the connection without a Close.
        let (_, events) = try await RawPeers.events(peer, connection) { $0.contains { if case .ping = $0 { true } else { false } } }
        #expect(events.contains { if case .ping = $0 { true } else { false } })
        peer.close()
        let (outcome, whereExpected) = try await pinging.value
        guard case .failure(.closed(let status)) = outcome else { throw FaceFailure("the ping: \(outcome)") }
        #expect(status.code == .abnormalClosure)
        #expect(whereExpected)
    }

    @Test("A server connection's ping waiting when the connection ends throws .closed", arguments: ServerFace.nonBlocking)
    func serverClosedFirst(_ face: ServerFace) async throws {
        let outcomes = Transcript()
        let (server, serving) = try pingingServer(face, timeout: nil, outcomes: outcomes)
        let (peer, connection, opening) = try await RawPeers.client(port: server.port)
        let (_, events) = try await RawPeers.events(peer, connection, after: opening) { $0.contains { if case .ping = $0 { true } else { false } } }
        #expect(events.contains { if case .ping = $0 { true } else { false } })
        peer.close()
        let outcome = try await outcomes.wait(for: "the ping's outcome") { !$0.isEmpty }[0]
        guard case .failed(.closed(let status)) = outcome else { throw FaceFailure("the ping: \(Harness.brief(outcome))") }
        #expect(status.code == .abnormalClosure)
        server.stop()
        await serving?.value
    }

    @Test("A pong for a later ping answers the earlier ones too (RFC 6455 §5.5.3)")
    func laterPongAnswersEarlier() async throws {
        let (client, peer, connection) = try await RawPeers.asyncClient()
        let first = Task { try await client.ping([1], timeout: Harness.patience) }
        let second = Task { try await client.ping([2], timeout: Harness.patience) }
        let isPing: @Sendable (Connection.Event) -> Bool = { if case .ping = $0 { true } else { false } }
        var (server, events) = try await RawPeers.events(peer, connection) { $0.filter(isPing).count == 2 }
        guard case .ping(let last)? = events.last(where: isPing) else { throw FaceFailure("no ping: \(events)") }
        // Only the last ping is answered: the automatic pongs are dropped.
        _ = server.takeOutput()
        try server.pong(last)
        peer.write(server.takeOutput())
        #expect(try await first.value > .zero)
        #expect(try await second.value > .zero)
        client.cancel()
        peer.close()
    }

    @Test("A ping after the connection ended throws at once")
    func afterTheEnd() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            let status = try await socket.close()
            await #expect(throws: WebSocketError.closed(status)) {
                try await Harness.withTimeout(Harness.patience, "the ping") { try await socket.ping() }
            }
        }
    }
}
