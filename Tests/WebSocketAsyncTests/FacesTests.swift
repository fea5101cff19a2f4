// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// Every client face against every server face (handlers on the loop, handlers on a queue,
/// async/await), and the blocking client and server of WebSocketPOSIX against each non-blocking
/// face: each scenario is written once (``FaceClient``, ``FaceServer``) and run for every pair.
@Suite("Every face against every other", .timeLimit(.minutes(3)))
struct FacesTests {
    static func clean(_ code: Connection.CloseCode, _ reason: String = "") -> Connection.CloseStatus {
        Connection.CloseStatus(code: code, reason: reason, wasClean: true)
    }

    @Test("Text and binary messages of 0 B to 1 MiB echoed in order; a clean 1000 on both ends", arguments: FacePair.all)
    func messages(_ pair: FacePair) async throws {
        try await withServer(pair.server) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url())
            try client.expectOpen()
            let sizes = [0, 125, 126, 65_535, 65_536, 1 << 20]
            let sent: [WebSocketMessage] = [.text("hello"), .text(""), .text("é€😀 ünïcödé")]
                + sizes.enumerated().map { .binary(Harness.bytes($1, seed: UInt8($0))) }
                + [.text(String(repeating: "é", count: 40_000))]
            for message in sent { try await client.send(message) }
            let echoes = try await client.log.messages(sent.count)
            #expect(echoes.map(Harness.brief) == sent.map(Harness.brief))
            // Megabytes compared off the pool (slow in a debug build, slower under ThreadSanitizer).
            let sameEchoes = try await Harness.offPool { echoes == sent }
            #expect(sameEchoes, "the echoes differ from what was sent")
            #expect(try await client.close() == Self.clean(.normalClosure))

            let serverSide = try await server.log.connection()
            #expect(try await serverSide.closeStatus() == Self.clean(.normalClosure))
            let received = serverSide.messages
            let sameReceived = try await Harness.offPool { received == sent }
            #expect(sameReceived, "the server received \(received.map(Harness.brief))")
        }
    }

    @Test("Fragments: streamed with sendFragment around a ping, split by fragmentationSize, and delivered as they arrive on both ends",
          arguments: FacePair.all)
    func fragments(_ pair: FacePair) async throws {
        // Streamed and split by the client; the server gets and echoes whole messages.
        var splitting = ClientSetup()
        splitting.configuration.fragmentationSize = 1000
        try await withServer(pair.server) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url(), splitting)
            try client.expectOpen()
            // "€" is three bytes: the pieces split it.
            let text = String(repeating: "€", count: 1000)
            let utf8 = Array(text.utf8)
            try await client.send(.fragment(Connection.Fragment(kind: .text, bytes: Array(utf8[0..<1]), isFirst: true, isFinal: false)))
            try await client.send(.ping([1, 2, 3]))  // a control frame between fragments
            try await client.send(.fragment(Connection.Fragment(kind: .text, bytes: Array(utf8[1..<2000]), isFirst: false, isFinal: false)))
            try await client.send(.fragment(Connection.Fragment(kind: .text, bytes: Array(utf8[2000...]), isFirst: false, isFinal: true)))
            let big = Harness.bytes(10_000, seed: 3)  // ten frames of 1000 bytes
            try await client.send(.binary(big))
            let echoes = try await client.log.messages(2)
            #expect(echoes.map(Harness.brief) == ["text(3000 B)", "binary(10000 B)"])
            #expect(echoes == [.text(text), .binary(big)])
            #expect(try await client.close() == Self.clean(.normalClosure))
            let serverSide = try await server.log.connection()
            try await serverSide.end()
            #expect(serverSide.messages == [.text(text), .binary(big)])
        }

        // Delivered as they arrive (Delivery.fragments) on both ends: the server echoes each piece
        // as a fragment; the pieces the client gets join to the message.
        var serverSetup = ServerSetup()
        serverSetup.configuration.delivery = .fragments
        var pieces = ClientSetup()
        pieces.configuration.delivery = .fragments
        try await withServer(pair.server, serverSetup) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url(), pieces)
            try client.expectOpen()
            let big = Harness.bytes(300_000, seed: 9)
            try await client.send(.binary(big))
            let isLastPiece: @Sendable (WebSocketEvent) -> Bool = { event in
                if case .message(.fragment(let fragment)) = event { fragment.isFinal } else { false }
            }
            try await client.log.wait(for: "the last piece") { $0.contains(where: isLastPiece) }
            let fragments = client.log.messages.compactMap { if case .fragment(let fragment) = $0 { fragment } else { nil } }
            #expect(fragments.first?.isFirst == true)
            #expect(fragments.allSatisfy { $0.kind == .binary })
            #expect(fragments.flatMap(\.bytes) == big)
            let serverSide = try await server.log.connection()
            let received = serverSide.messages.compactMap { if case .fragment(let fragment) = $0 { fragment } else { nil } }
            #expect(received.flatMap(\.bytes) == big)
            let status = try await client.close()
            #expect(status == Self.clean(.normalClosure), "\(status)")
        }
    }

    @Test("Control frames with receivesControlFrames: pings, pongs and Close frames reach both ends as messages, answered as always",
          arguments: FacePair.all)
    func controlFrames(_ pair: FacePair) async throws {
        var serverSetup = ServerSetup()
        serverSetup.options.receivesControlFrames = true
        var clientSetup = ClientSetup()
        clientSetup.options.receivesControlFrames = true
        try await withServer(pair.server, serverSetup) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url(), clientSetup)
            try client.expectOpen()
            let question = Array("are you there".utf8)
            try await client.send(.ping(question))
            try await client.log.wait(for: "the pong") { $0.contains(.message(.pong(question))) }
            // The server pings; the client's automatic pong reaches it.
            try await client.send(.text("ping server"))
            try await client.log.wait(for: "the server's ping") { $0.contains(.message(.ping(Array("server".utf8)))) }
            try await client.send(.pong(Array("unsolicited".utf8)))
            let serverSide = try await server.log.connection()
            try await serverSide.wait(for: "the unsolicited pong") { $0.contains(.message(.pong(Array("unsolicited".utf8)))) }

            try await client.startClose(code: Connection.CloseCode(rawValue: 4001), reason: "done")
            let status = try await client.log.closeStatus()
            #expect(status.code == Connection.CloseCode(rawValue: 4001))
            #expect(status.wasClean)
            #expect(try await serverSide.closeStatus() == Self.clean(Connection.CloseCode(rawValue: 4001), "done"))

            #expect(serverSide.messages.map(Harness.brief) == [
                Harness.brief(.ping(question)), Harness.brief(.text("ping server")), Harness.brief(.pong(Array("server".utf8))),
                Harness.brief(.pong(Array("unsolicited".utf8))),
                Harness.brief(.close(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4001), reason: "done"))),
            ])
            let clientMessages = client.log.messages
            #expect(clientMessages.count == 3)
            #expect(Array(clientMessages.prefix(2)) == [.pong(question), .ping(Array("server".utf8))])
            guard case .close(let reply)? = clientMessages.last else {
                throw FaceFailure("no Close frame among the client's messages: \(clientMessages.map(Harness.brief))")
            }
            #expect(reply.code == Connection.CloseCode(rawValue: 4001))
        }
    }

    @Test("Close codes from either side: the client closes with 4001, the server with 1001; both ends see the code",
          arguments: FacePair.all)
    func closeCodes(_ pair: FacePair) async throws {
        try await withServer(pair.server) { server in
            let first = try await FaceClient.connect(pair.client, to: server.url())
            try first.expectOpen()
            try await first.startClose(code: Connection.CloseCode(rawValue: 4001), reason: "done here")
            // RFC 6455 §7.1.5: the status is the first Close frame received: the server's echo of ours.
            let status = try await first.log.closeStatus()
            #expect(status == Self.clean(Connection.CloseCode(rawValue: 4001)), "\(status)")
            #expect(try await server.log.connection(0).closeStatus() == Self.clean(Connection.CloseCode(rawValue: 4001), "done here"))

            let second = try await FaceClient.connect(pair.client, to: server.url())
            try second.expectOpen()
            try await second.send(.text("close 1001 shutting down"))
            #expect(try await second.log.closeStatus() == Self.clean(.goingAway, "shutting down"))
            #expect(try await server.log.connection(1).closeStatus() == Self.clean(.goingAway))
        }
    }

    @Test("Subprotocols and headers: the server picks one the client offered; headers and the resource reach the other end",
          arguments: FacePair.all)
    func subprotocols(_ pair: FacePair) async throws {
        var setup = ServerSetup()
        setup.handshake = { request in
            .accept(subprotocol: request.subprotocols.contains("chat.v2") ? "chat.v2" : nil, headers: ["X-Server": "faces"])
        }
        try await withServer(pair.server, setup) { server in
            var clientSetup = ClientSetup()
            clientSetup.subprotocols = ["chat.v1", "chat.v2"]
            clientSetup.headers = ["X-Client": "tests"]
            let client = try await FaceClient.connect(pair.client, to: server.url("/room?id=7"), clientSetup)
            guard case .open(let result)? = client.log.events.first else {
                throw FaceFailure("did not open: \(client.log.events.map(Harness.brief))")
            }
            #expect(result.subprotocol == "chat.v2")
            #expect(result.headers["X-Server"] == "faces")
            #expect(client.handshake?.subprotocol == "chat.v2")
            if let socket = client.webSocket { #expect(socket.subprotocol == "chat.v2") }

            let request = try #require(server.log.requests.first)
            #expect(request.resource == "/room?id=7")
            #expect(request.subprotocols == ["chat.v1", "chat.v2"])
            #expect(request.head.headers["X-Client"] == "tests")
            let serverSide = try await server.log.connection()
            guard case .open(let serverResult)? = serverSide.events.first else { throw FaceFailure("no open on the server") }
            #expect(serverResult.subprotocol == "chat.v2")
            #expect(serverResult.resource == "/room?id=7")
            #expect(try await client.close() == Self.clean(.normalClosure))
        }
    }

    @Test("A refused handshake: the client sees the status, headers and body; an invalid decision is a 500; the server goes on",
          arguments: FacePair.all)
    func rejection(_ pair: FacePair) async throws {
        var setup = ServerSetup()
        setup.handshake = { request in
            switch request.resource {
            case "/private": return .reject(status: 403, headers: ["X-Reason": "members only"], body: Array("go away\n".utf8))
            case "/invalid": return .accept(subprotocol: "never-offered")
            default: return .accept()
            }
        }
        try await withServer(pair.server, setup) { server in
            let refused = try await FaceClient.connect(pair.client, to: server.url("/private"))
            guard case .failed(.handshakeFailed(let failure))? = refused.log.events.first, let response = failure.rejected else {
                throw FaceFailure("expected a refusal, got \(refused.log.events.map(Harness.brief))")
            }
            #expect(response.status == 403)
            #expect(response.headers["X-Reason"] == "members only")
            #expect(response.body == Array("go away\n".utf8))
            #expect(refused.log.events.count == 1)

            let invalid = try await FaceClient.connect(pair.client, to: server.url("/invalid"))
            guard case .failed(.handshakeFailed(let invalidFailure))? = invalid.log.events.first else {
                throw FaceFailure("expected a refusal, got \(invalid.log.events.map(Harness.brief))")
            }
            #expect(invalidFailure.rejected?.status == 500)

            let accepted = try await FaceClient.connect(pair.client, to: server.url("/"))
            try accepted.expectOpen()
            #expect(try await accepted.close() == Self.clean(.normalClosure))
            // Only the accepted connection reached the server's face (an async face's task may
            // start after the client is done).
            _ = try await server.log.connection(0)
            #expect(server.log.connections.count == 1)
            #expect(server.log.requests.map(\.resource) == ["/private", "/invalid", "/"])
        }
    }

    @Test("A Unix domain socket: messages both ways and a clean close; the socket file goes with the server", arguments: FacePair.all)
    func unixSocket(_ pair: FacePair) async throws {
        var setup = ServerSetup()
        let path = Harness.unixSocketPath()
        setup.unixSocketPath = path
        let server = try FaceServer.start(pair.server, setup)
        #expect(server.port == 0)
        do {
            let client = try await FaceClient.connect(pair.client, to: server.url("/unix"))
            try client.expectOpen()
            if let socket = client.webSocket {
                // Asked of the loop, blocking the caller: off the pool.
                #expect(try await Harness.offPool { socket.remoteAddress?.unixPath } == path)
            }
            let sent: [WebSocketMessage] = [.text("over a Unix socket"), .binary(Harness.bytes(100_000))]
            for message in sent { try await client.send(message) }
            #expect(try await client.log.messages(2) == sent)
            #expect(try await client.close() == Self.clean(.normalClosure))
            let serverSide = try await server.log.connection()
            guard case .open(let result)? = serverSide.events.first else { throw FaceFailure("no open on the server") }
            #expect(result.resource == "/unix")
            #expect(try await serverSide.closeStatus() == Self.clean(.normalClosure))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        // The non-blocking server removes the file on a loop: once every loop has run what was
        // queued before now, it is gone. The blocking one removes it before `serve` returns.
        try await Harness.loopsCaughtUp()
        #expect(access(path, F_OK) != 0, "the socket file is still there")
    }

    @Test("IPv6 (::1): messages both ways and a clean close", .enabled(if: Harness.hasIPv6, "this machine has no IPv6 loopback (::1)"),
          arguments: FacePair.all)
    func ipv6(_ pair: FacePair) async throws {
        var setup = ServerSetup()
        setup.host = "::1"
        try await withServer(pair.server, setup) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url())
            try client.expectOpen()
            if let socket = client.webSocket {
                // Asked of the loop, blocking the caller: off the pool.
                let (remote, local) = try await Harness.offPool { (socket.remoteAddress, socket.localAddress) }
                #expect(remote?.family == .ipv6)
                #expect(local?.family == .ipv6)
            }
            let sent: [WebSocketMessage] = [.text("over IPv6"), .binary(Harness.bytes(70_000))]
            for message in sent { try await client.send(message) }
            #expect(try await client.log.messages(2) == sent)
            #expect(try await client.close() == Self.clean(.normalClosure))
            #expect(try await server.log.connection().closeStatus() == Self.clean(.normalClosure))
        }
    }

    @Test("One 16 MiB binary round trip (async client, async server; limits raised above 16 MiB)")
    func sixteenMiB() async throws {
        var setup = ServerSetup()
        setup.configuration = Harness.largeConfiguration()
        try await withServer(.async, setup) { server in
            var clientSetup = ClientSetup()
            clientSetup.configuration = Harness.largeConfiguration()
            let client = try await FaceClient.connect(.async, to: server.url(), clientSetup)
            try client.expectOpen()
            // Made off the pool: 16 MiB take a moment in a debug build.
            let big = try await Harness.offPool { Harness.bytes(16 << 20, seed: 16) }
            try await client.send(.binary(big))
            let echo = try await client.log.messages(1, timeout: .seconds(120))
            let same = try await Harness.offPool { echo == [.binary(big)] }
            #expect(same, "the echo is \(echo.map(Harness.brief))")
            #expect(try await client.close() == Self.clean(.normalClosure))
        }
    }
}
