// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// A server of `face` on 127.0.0.1 (an echo of text and binary messages) whose system calls go
/// through `faults`, so that its descriptors are counted; the async face's `run` task with it.
private func burstServer(_ face: ServerFace, faults: Faults, maxPendingConnections: Int = 128)
    throws -> (server: WebSocketServer, serving: Task<Void, Never>?)
{
    let echo: WebSocket.EventHandler = { socket, event in
        if case .message(let message) = event, message.isData { try? socket.send(message) }
    }
    let serverFace: ServerCore.Face
    switch face {
    case .loop: serverFace = .loopHandler(echo)
    case .queue: serverFace = .queueHandler(DispatchQueue(label: "burst.server", attributes: .concurrent), echo)
    case .async: serverFace = .async(ConnectionQueue(limit: maxPendingConnections))
    case .blocking: throw FaceFailure("no blocking face here")
    }
    let server = try WebSocketServer(addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil, backlog: 1024,
                                     configuration: Harness.configuration(), options: Harness.options(), loops: nil,
                                     handshake: { _ in .accept() }, face: serverFace, system: faults.system)
    guard face == .async else { return (server, nil) }
    let serving = Task {
        await server.run { socket in
            do throws(WebSocketError) {
                for try await message in socket.messages { try await socket.send(message) }
            } catch {}
        }
    }
    return (server, serving)
}

/// `count` loop-handler clients started at once (their system calls through `faults`), each sending
/// one text and closing once it is echoed. Every client's end goes to the returned transcript:
/// `.message(.text("echoed"))` for one that got its echo and closed cleanly, its end otherwise.
private func burst(_ count: Int, port: UInt16, faults: Faults) throws -> Transcript {
    let outcomes = Transcript()
    let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))
    for index in 0..<count {
        let text = "client \(index)"
        let echoed = Locked(false)
        let handler: WebSocket.EventHandler = { socket, event in
            switch event {
            case .open:
                try? socket.send(text: text)
            case .message(.text(let received)):
                if received == text { echoed.withLock { $0 = true } }
                try? socket.sendClose()
            case .closed(let status):
                outcomes.append(echoed.withLock { $0 } && status.wasClean ? .message(.text("echoed")) : .closed(status))
            case .failed(let error):
                outcomes.append(.failed(error))
            case .message, .drained:
                break
            }
        }
        _ = try WebSocket.startClient(request, via: WebSocketEndpoint(url: request.url), configuration: Harness.configuration(),
                                      options: Harness.options(), consumer: .loopHandler(handler), system: faults.system)
    }
    return outcomes
}

/// Bursts of clients at once, and many clients on one loop: every client is served, every
/// descriptor is closed at the end (counted through the system-call shim).
@Suite("Bursts of clients", .serialized, .timeLimit(.minutes(3)))
struct BurstTests {
    @Test("1,000 clients at once against each server face: every one echoed and closed cleanly; no descriptor left open",
          arguments: ServerFace.nonBlocking)
    func thousandClients(_ face: ServerFace) async throws {
        raiseDescriptorLimit()
        let faults = Faults()
        let (server, serving) = try burstServer(face, faults: faults)
        let clients = 1000
        let outcomes = try burst(clients, port: server.port, faults: faults)
        let seen = try await outcomes.wait(for: "\(clients) clients to end", timeout: .seconds(120)) { $0.count >= clients }
        let echoed = seen.count { $0 == .message(.text("echoed")) }
        #expect(echoed == clients, "not served: \(Set(seen.filter { $0 != .message(.text("echoed")) }.map(Harness.brief)))")
        // Every connection's socket is closed once the server counts none; the listeners once the
        // loops have run the stop.
        #expect(try await Harness.offPool { server.waitUntilIdle(timeout: .seconds(60)) })
        server.stop()
        if let serving { await serving.value }
        try await Harness.loopsCaughtUp()
        #expect(faults.openDescriptors.isEmpty, "still open: \(faults.openDescriptors.count)")
    }

    @Test("The async face with a pending limit far below the burst: accepting pauses and resumes, every client is served")
    func asyncFaceBeyondThePendingLimit() async throws {
        raiseDescriptorLimit()
        let faults = Faults()
        let (server, serving) = try burstServer(.async, faults: faults, maxPendingConnections: 4)
        let clients = 300
        let outcomes = try burst(clients, port: server.port, faults: faults)
        let seen = try await outcomes.wait(for: "\(clients) clients to end", timeout: .seconds(120)) { $0.count >= clients }
        #expect(seen.count { $0 == .message(.text("echoed")) } == clients, "\(Set(seen.map(Harness.brief)))")
        #expect(try await Harness.offPool { server.waitUntilIdle(timeout: .seconds(60)) })
        server.stop()
        await serving?.value
        try await Harness.loopsCaughtUp()
        #expect(faults.openDescriptors.isEmpty)
    }

    @Test("Many clients of every face on one loop, against a server on that same loop: each exchanges its messages")
    func manyClientsOnOneLoop() async throws {
        raiseDescriptorLimit()
        var setup = ServerSetup()
        setup.loops = 1
        let loop = try EventLoops.all()[0]
        try await withServer(.loop, setup) { server in
            let request = Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port))
            let endpoint = WebSocketEndpoint(url: request.url)
            let perFace = 100
            let rounds = 3
            let outcomes = Transcript()
            let handlerQueue = DispatchQueue(label: "one loop", attributes: .concurrent)
            // Handler faces: each client sends its rounds one after the other, closing after the last echo.
            var handlerSockets: [WebSocket] = []
            for index in 0..<(2 * perFace) {
                let onQueue = index % 2 == 1
                let received = Locked(0)
                let name = "client \(index)"
                let handler: WebSocket.EventHandler = { socket, event in
                    switch event {
                    case .open:
                        if !socket.loop.inLoop, !onQueue { outcomes.append(.failed(.invalidArgument("\(name) off its loop"))) }
                        try? socket.send(text: "\(name) round 0")
                    case .message(.text(let text)):
                        let round = received.withLock { count in
                            count += 1
                            return count
                        }
                        guard text == "\(name) round \(round - 1)" else {
                            outcomes.append(.failed(.invalidArgument("\(name) got \(text)")))
                            return
                        }
                        if round < rounds { try? socket.send(text: "\(name) round \(round)") } else { try? socket.sendClose() }
                    case .closed(let status):
                        outcomes.append(received.withLock { $0 } == rounds && status.wasClean ? .message(.text("done")) : .closed(status))
                    case .failed(let error):
                        outcomes.append(.failed(error))
                    case .message, .drained:
                        break
                    }
                }
                let consumer: Consumer = onQueue ? .queueHandler(DispatchQueue(label: name, target: handlerQueue), handler) : .loopHandler(handler)
                handlerSockets.append(try WebSocket.startClient(request, via: endpoint, configuration: Harness.configuration(),
                                                                options: Harness.options(), consumer: consumer, system: .live, loop: loop))
            }
            // The async face: a task per client.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<perFace {
                    group.addTask {
                        let socket = try await WebSocket.connect(request, via: endpoint, configuration: Harness.configuration(),
                                                                 options: Harness.options(), system: .live, loop: loop)
                        var messages = socket.messages.makeAsyncIterator()
                        var ok = socket.loop === loop
                        for round in 0..<rounds {
                            let text = "async \(index) round \(round)"
                            try await socket.send(.text(text))
                            ok = try await messages.next() == .text(text) && ok
                        }
                        let status = try await socket.close()
                        outcomes.append(ok && status.wasClean ? .message(.text("done")) : .closed(status))
                    }
                }
                try await group.waitForAll()
            }
            let total = 3 * perFace
            let seen = try await outcomes.wait(for: "\(total) clients to end", timeout: .seconds(120)) { $0.count >= total }
            #expect(seen.count { $0 == .message(.text("done")) } == total, "\(Set(seen.map(Harness.brief)))")
            #expect(handlerSockets.allSatisfy { $0.loop === loop })
            #expect(server.log.connections.count == total)
        }
    }
}
