// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// What the README's examples do inside a function: make a server and let the variable go. Returns
/// only the server's port and a way to stop it that does not keep the server object: `stop()` if
/// something else still holds the object (the async face's `run` task does), otherwise what `stop()`
/// does, through the part the loops keep (they hold the listening sockets, which close once the
/// loops let go of them).
private func startAndForget(_ face: ServerFace) throws -> (port: UInt16, stop: @Sendable () -> Void) {
    let echo: WebSocket.EventHandler = { socket, event in
        if case .message(let message) = event, message.isData { try? socket.send(message) }
    }
    let server: WebSocketServer
    switch face {
    case .loop:
        server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options(), handler: echo)
    case .queue:
        server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options(),
                                     queue: DispatchQueue(label: "forgotten"), handler: echo)
    case .async:
        server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        Task {
            await server.run { socket in
                do throws(WebSocketError) {
                    for try await message in socket.messages { try await socket.send(message) }
                } catch {}
            }
        }
    case .blocking:
        throw FaceFailure("no blocking face here")
    }
    let port = server.port
    let core = server.core
    return (port, { [weak server] in
        if let server {
            server.stop()
            return
        }
        guard core.stop(closing: nil) else { return }
        for loop in core.loops { loop.execute { loop.removeListeners(of: core) } }
    })
}

/// A server runs until `stop()`, whatever references to it remain.
@Suite("Server lifetime", .timeLimit(.minutes(3)))
struct LifetimeTests {
    @Test("A server whose last reference was dropped keeps accepting and serving until it is stopped", arguments: ServerFace.nonBlocking)
    func droppedServerKeepsServing(_ face: ServerFace) async throws {
        let (port, stop) = try startAndForget(face)
        let url = Harness.url("127.0.0.1", port)
        // Rounds of clients, each after the previous one ended and the loops turned.
        for round in 0..<3 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let client = try await FaceClient.connect(.async, to: url)
                        try client.expectOpen()
                        try await client.send(.text("round \(round) client \(index)"))
                        #expect(try await client.log.messages(1) == [.text("round \(round) client \(index)")])
                        #expect(try await client.close().wasClean)
                    }
                }
                try await group.waitForAll()
            }
            try await Harness.loopsCaughtUp()
        }
        stop()
        try await Harness.loopsCaughtUp()
        // Stopped: the listening sockets are closed, and a connect is refused.
        let late = try await FaceClient.connect(.loop, to: url)
        guard case .failed(.connectFailed(_, let error))? = late.log.events.first else {
            throw FaceFailure("after the stop: \(late.log.events.map(Harness.brief))")
        }
        #expect(error == .connectionRefused)
    }
}

/// `stop(closing:reason:)`: every open connection is closed with the code, and so is one that opens
/// later; nothing new is accepted.
@Suite("Stopping a server and closing its connections", .timeLimit(.minutes(3)))
struct StopClosingTests {
    @Test("stop(closing: .goingAway) closes every open connection of every client face with 1001 and its reason",
          arguments: ServerFace.nonBlocking)
    func closesEveryOpenConnection(_ face: ServerFace) async throws {
        try await withServer(face) { server in
            var clients: [FaceClient] = []
            for clientFace in ClientFace.allCases {
                let client = try await FaceClient.connect(clientFace, to: server.url())
                try client.expectOpen()
                try await client.send(.text("hello from \(clientFace)"))
                #expect(try await client.log.messages(1) == [.text("hello from \(clientFace)")])
                clients.append(client)
            }
            let webSocketServer = try #require(server.server)
            webSocketServer.stop(closing: .goingAway, reason: "bye")
            for client in clients {
                #expect(try await client.log.closeStatus() == Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true),
                        "\(client.face) client")
            }
            for (index, _) in clients.enumerated() {
                let status = try await server.log.connection(index).closeStatus()
                #expect(status.code == .goingAway)
                #expect(status.wasClean)
            }
            #expect(try await Harness.offPool { webSocketServer.waitUntilIdle(timeout: Harness.patience) })
            try await Harness.loopsCaughtUp()
            let late = try await FaceClient.connect(.async, to: server.url())
            guard case .failed(.connectFailed)? = late.log.events.first else {
                throw FaceFailure("accepted after the stop: \(late.log.events.map(Harness.brief))")
            }
        }
    }

    @Test("A connection whose handshake was under way at stop(closing:) opens and is closed with the same code and reason",
          arguments: ServerFace.nonBlocking)
    func connectionThatOpensLater(_ face: ServerFace) async throws {
        // The decision on the request stops the server first: the connection was accepted before
        // the stop and opens after it.
        let stopping = Locked<WebSocketServer?>(nil)
        var setup = ServerSetup()
        setup.handshake = { _ in
            stopping.withLock { $0 }?.stop(closing: .goingAway, reason: "bye")
            return .accept()
        }
        try await withServer(face, setup) { server in
            stopping.withLock { $0 = server.server }
            let client = try await FaceClient.connect(.loop, to: server.url())
            try client.expectOpen()
            let status = try await client.log.closeStatus()
            #expect(status == Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true))
            if face != .async {
                // The async face's `connections` had ended: the connection never reached a task.
                #expect(try await server.log.connection().closeStatus().code == .goingAway)
            }
            try await Harness.loopsCaughtUp()
            let late = try await FaceClient.connect(.loop, to: server.url())
            guard case .failed(.connectFailed)? = late.log.events.first else {
                throw FaceFailure("accepted after the stop: \(late.log.events.map(Harness.brief))")
            }
        }
    }
}

/// A server that one loop accepts for (a Unix socket; every server where the kernel does not spread
/// connections over several listeners) stops on every loop: its listener closes only once the loop
/// that watches it has let go of it.
@Suite("Stopping a server one loop accepts for", .timeLimit(.minutes(3)))
struct StopOneListenerTests {
    @Test("A stop while the accepting loop is busy disturbs no socket that loop opens meanwhile",
          .enabled(if: EventLoops.defaultCount > 1, "one event loop only: nothing runs the stop elsewhere"))
    func stopWhileTheAcceptingLoopIsBusy() async throws {
        let loops = try EventLoops.all()
        var setup = ServerSetup()
        setup.unixSocketPath = Harness.unixSocketPath()
        let unixServer = try FaceServer.start(.loop, setup)
        try await withServer(.loop) { target in
            let log = Transcript()
            let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: target.port))
            let stopping = try #require(unixServer.server)
            // On a thread of its own, so that the busy loop waits for nothing the pool runs.
            let client = try await Harness.offPool { () throws -> WebSocket in
                // The loop that watches the Unix listener (the first) is kept busy...
                let blocked = Mailbox<Bool>()
                let release = Mailbox<Bool>()
                defer { release.put(true) }
                loops[0].execute {
                    blocked.put(true)
                    _ = release.take(timeout: Harness.patience)
                }
                guard blocked.take(timeout: Harness.patience) == true else { throw FaceFailure("the loop did not run") }
                // ...while a client of that loop is queued there (its socket is made once the loop
                // is free again, after the other loops ran their part of the stop)...
                let client = try WebSocket.startClient(request, via: WebSocketEndpoint(url: request.url),
                                                       configuration: Harness.configuration(), options: Harness.options(),
                                                       consumer: .loopHandler { _, event in log.append(event) },
                                                       system: .live, loop: loops[0])
                // ...and the server stops.
                stopping.stop()
                for loop in loops.dropFirst() {
                    let done = Mailbox<Bool>()
                    loop.execute { done.put(true) }
                    guard done.take(timeout: Harness.patience) == true else { throw FaceFailure("loop \(loop.index) did not run") }
                }
                return client
            }
            // The client's socket (perhaps the listener's old descriptor number) works.
            try await log.wait(for: "the opening", timeout: Harness.patience) { !$0.isEmpty }
            guard case .open? = log.events.first else { throw FaceFailure("the client: \(log.events.map(Harness.brief))") }
            try client.send(text: "after the stop")
            try await log.wait(for: "the echo", timeout: Harness.patience) { $0.contains(.message(.text("after the stop"))) }
            try client.sendClose()
            #expect(try await log.closeStatus().wasClean)
        }
        await unixServer.stop()
    }
}
