// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// What the next call of `iterator` did, as text: a message, `cancelled`, or another error.
private func nextOutcome(_ iterator: inout WebSocket.Messages.Iterator) async -> String {
    do throws(WebSocketError) {
        return "message \(String(describing: try await iterator.next()))"
    } catch .cancelled {
        return "cancelled"
    } catch {
        return "error \(error)"
    }
}

/// The async face: messages, receive with a timeout, cancellation, close, sends from other
/// threads, and the server's `run` and `connections`.
@Suite("The async face", .timeLimit(.minutes(3)))
struct AsyncFaceTests {
    @Test("messages ends after a clean close; receive returns nil; sends are refused")
    func messagesEndAfterACleanClose() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            try await socket.send(.text("one"))
            try await socket.send(.binary([1, 2, 3]))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("one"))
            #expect(try await iterator.next() == .binary([1, 2, 3]))
            let status = try await socket.close(code: Connection.CloseCode(rawValue: 4000), reason: "done")
            #expect(status == Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4000), reason: "", wasClean: true))
            #expect(socket.closeStatus == status)
            #expect(try await iterator.next() == nil)
            var fresh = socket.messages.makeAsyncIterator()
            #expect(try await fresh.next() == nil)
            #expect(try await socket.receive(timeout: Harness.patience) == nil)
            await #expect(throws: WebSocketError.self) { try await socket.send(.text("late")) }
            #expect(throws: WebSocketError.self) { try socket.send(text: "late") }
        }
    }

    /// Reads a socket's messages from an actor's method: `for try await` passes the actor as the
    /// iterator's isolation, and the iterator (`nonisolated(nonsending)`) runs there. That the code
    /// after each `await` runs on the actor is the compiler's doing; `assertIsolated` only says so.
    /// What could fail here is the reading itself from an actor: every message, in order.
    actor Reader {
        func read(_ socket: WebSocket, count: Int) async throws(WebSocketError) -> [WebSocketMessage] {
            var received: [WebSocketMessage] = []
            for try await message in socket.messages {
                assertIsolated("messages resumed its reader off the reader's actor")
                received.append(message)
                if received.count == count { break }
            }
            return received
        }
    }

    @Test("messages read from an actor's method: every message arrives, in order")
    func messagesOnAnActor() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            let sent = (0..<200).map { WebSocketMessage.text("message \($0)") }
            for message in sent { try await socket.send(message) }
            #expect(try await Reader().read(socket, count: sent.count) == sent)
            #expect(try await socket.close().wasClean)
        }
    }

    @Test("messages throws .closed with the status when the connection is lost, after the messages that came before")
    func messagesThrowOnALostConnection() async throws {
        let (socket, peer, connection) = try await RawPeers.asyncClient()
        var server = connection
        try server.send(text: "before the end")
        peer.write(server.takeOutput())
        peer.close()
        var received: [WebSocketMessage] = []
        var failure: WebSocketError?
        do throws(WebSocketError) {
            for try await message in socket.messages { received.append(message) }
        } catch {
            failure = error
        }
        #expect(received == [.text("before the end")])
        guard case .closed(let status)? = failure else { throw FaceFailure("ended with \(String(describing: failure))") }
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
        #expect(status.failure == .unexpectedEndOfStream)
        // Every later call says the same.
        await #expect(throws: WebSocketError.closed(status)) { try await socket.receive(timeout: Harness.patience) }
    }

    @Test("A server's async connection: messages throws .closed when its client vanishes")
    func serverMessagesThrowOnALostConnection() async throws {
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let outcome = Transcript()
        let serving = Task {
            await server.run { socket in
                do throws(WebSocketError) {
                    for try await message in socket.messages { outcome.append(.message(message)) }
                    outcome.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
                } catch {
                    outcome.append(.failed(error))
                }
            }
        }
        let (peer, connection, _) = try await RawPeers.client(port: server.port)
        var client = connection
        try client.send(text: "then gone")
        peer.write(client.takeOutput())
        try await outcome.wait(for: "the message") { !$0.isEmpty }
        peer.closeWithReset()
        let end = try await outcome.end()
        guard case .failed(.closed(let status)) = end else { throw FaceFailure("ended with \(Harness.brief(end))") }
        #expect(status.code == .abnormalClosure)
        #expect(outcome.messages == [.text("then gone")])
        server.stop()
        await serving.value
    }

    @Test("receive(timeout:) times out without harm, then returns the next message")
    func receiveTimeoutIsNotFatal() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            let start = now()
            await #expect(throws: WebSocketError.timedOut(.receive)) { try await socket.receive(timeout: .milliseconds(50)) }
            #expect(now() - start >= .milliseconds(50))
            #expect(socket.state == .open)
            try await socket.send(.text("after the timeout"))
            #expect(try await socket.receive(timeout: Harness.patience) == .text("after the timeout"))
            // A timeout again, then the messages sequence goes on where receive left off.
            await #expect(throws: WebSocketError.timedOut(.receive)) { try await socket.receive(timeout: .milliseconds(10)) }
            try await socket.send(.text("second"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("second"))
            #expect(try await socket.close().wasClean)
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("Cancelling a reader waiting for a message, on the loop or off it, or before it asks: .cancelled, and the next call gets the message")
    func cancellingAWaitingReader() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            // 1. A reader on the socket's loop takes the first message, then waits until cancelled.
            let gotFirst = Transcript()
            let waiting = Task(executorPreference: socket.executor) { () async -> String in
                var iterator = socket.messages.makeAsyncIterator()
                guard case .text("first")? = try? await iterator.next() else { return "no first message" }
                gotFirst.append(.message(.text("first")))
                return await nextOutcome(&iterator)
            }
            try await socket.send(.text("first"))
            try await gotFirst.wait(for: "the first message") { !$0.isEmpty }
            waiting.cancel()
            #expect(await waiting.value == "cancelled")
            // 2. A reader off the loop, waiting: cancelled.
            let offLoop = Task.detached { () async -> String in
                var iterator = socket.messages.makeAsyncIterator()
                return await nextOutcome(&iterator)
            }
            offLoop.cancel()
            #expect(await offLoop.value == "cancelled")
            // 3. Cancelled before it asks, on the loop and off it.
            let early = Task(executorPreference: socket.executor) { () async -> String in
                withUnsafeCurrentTask { $0?.cancel() }
                var iterator = socket.messages.makeAsyncIterator()
                return await nextOutcome(&iterator)
            }
            #expect(await early.value == "cancelled")
            let earlyElsewhere = Task.detached { () async -> String in
                withUnsafeCurrentTask { $0?.cancel() }
                do throws(WebSocketError) {
                    return "message \(String(describing: try await socket.receive(timeout: nil)))"
                } catch {
                    return "\(error)"
                }
            }
            #expect(await earlyElsewhere.value == "\(WebSocketError.cancelled)")
            // Still open, nothing lost.
            try await socket.send(.text("still here"))
            #expect(try await socket.receive(timeout: Harness.patience) == .text("still here"))
            #expect(try await socket.close().wasClean)
        }
    }

    @Test("Receives cancelled again and again while echoes arrive: every message is read once, in order")
    func cancellationsLoseNoMessage() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            let count = 300
            var received: [WebSocketMessage] = []
            var cancelled = 0
            var sent = 0
            while received.count < count {
                // A reader waits; a message goes out, and every other reader is cancelled while its
                // echo is on the way (or arriving): a cancelled read leaves the echo to a later one.
                let reader = Task { try await socket.receive(timeout: Harness.patience) }
                if sent < count {
                    try await socket.send(.text("m\(sent)"))
                    sent += 1
                }
                if sent % 2 == 0 { reader.cancel() }
                switch await reader.result {
                case .success(let message?): received.append(message)
                case .success(nil): throw FaceFailure("the connection ended after \(received.count) messages")
                case .failure(WebSocketError.cancelled): cancelled += 1
                case .failure(let error): throw error
                }
            }
            #expect(received == (0..<count).map { .text("m\($0)") })
            #expect(cancelled > 0)
            #expect(try await socket.close().wasClean)
        }
    }

    @Test("Cancelling an async connect throws .cancelled and closes the socket")
    func cancellingConnect() async throws {
        let listener = try RawListener()
        defer { listener.close() }
        let url = Harness.url("127.0.0.1", listener.port)
        let connecting = Task { try await WebSocket.connect(to: url, configuration: Harness.configuration(), options: Harness.options()) }
        // The TCP connection is made; the peer never answers the opening handshake.
        let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
        connecting.cancel()
        await #expect(throws: WebSocketError.cancelled) { try await connecting.value }
        #expect(try await Harness.offPool { peer.readUntilEOF(timeout: Harness.patience) })
    }

    @Test("An async connect that fails at once throws at once, every time (its wait may reach the loop after the end)")
    func connectThatFailsAtOnce() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        for _ in 0..<300 {
            let error = try await Harness.withTimeout(Harness.patience, "a refused connect") { () async -> WebSocketError? in
                do throws(WebSocketError) {
                    _ = try await WebSocket.connect(to: Harness.url("127.0.0.1", port), configuration: Harness.configuration(),
                                                    options: Harness.options())
                    return nil
                } catch {
                    return error
                }
            }
            guard case .connectFailed(_, .connectionRefused)? = error else {
                throw FaceFailure("connecting to a closed port: \(String(describing: error))")
            }
        }
    }

    @Test("close() returns the status on both ends: the server's async close with 1001 and a reason")
    func closeReturnsTheStatus() async throws {
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let serverStatus = Transcript()
        let serving = Task {
            await server.run { socket in
                do throws(WebSocketError) {
                    serverStatus.append(.closed(try await socket.close(code: .goingAway, reason: "bye")))
                } catch {
                    serverStatus.append(.failed(error))
                }
            }
        }
        let socket = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                 options: Harness.options())
        #expect(try await socket.receive(timeout: Harness.patience) == nil)
        #expect(socket.closeStatus == Connection.CloseStatus(code: .goingAway, reason: "bye", wasClean: true))
        #expect(try await serverStatus.closeStatus() == Connection.CloseStatus(code: .goingAway, reason: "", wasClean: true))
        // Closing again returns the same status.
        #expect(try await socket.close() == socket.closeStatus)
        server.stop()
        await serving.value
    }

    @Test("Sends from other threads reach the peer in each thread's order", arguments: ClientFace.nonBlocking)
    func sendsFromOtherThreads(_ face: ClientFace) async throws {
        try await withServer(.loop) { server in
            let client = try await FaceClient.connect(face, to: server.url())
            try client.expectOpen()
            let socket = try #require(client.webSocket)
            let threads = 4
            let perThread = 250
            let finished = Transcript()
            for thread in 0..<threads {
                try spawnDetachedThread {
                    var failure: WebSocketError? = socket.loop.inLoop ? .invalidArgument("a test thread on the loop") : nil
                    for index in 0..<perThread where failure == nil {
                        do throws(WebSocketError) {
                            try socket.send(text: "\(thread):\(index)")
                        } catch {
                            failure = error
                        }
                    }
                    finished.append(failure.map { .failed($0) } ?? .message(.text("\(thread)")))
                }
            }
            let threadEnds = try await finished.wait(for: "the threads") { $0.count == threads }
            #expect(threadEnds.allSatisfy { if case .message = $0 { true } else { false } }, "\(threadEnds.map(Harness.brief))")
            let echoes = try await client.log.messages(threads * perThread)
            for thread in 0..<threads {
                let mine = echoes.compactMap { message -> Int? in
                    guard case .text(let text) = message else { return nil }
                    let parts = text.split(separator: ":")
                    return parts[0] == "\(thread)" ? Int(parts[1]) : nil
                }
                #expect(mine == Array(0..<perThread), "thread \(thread)")
            }
            #expect(try await client.close().wasClean)
        }
    }

    @Test("A server's connection sends from another thread: 1,000 messages in order, then its Close")
    func serverSendsFromAnotherThread() async throws {
        let opened = Mailbox<WebSocket>()
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options()) { socket, event in
            if case .open = event { opened.put(socket) }
        }
        defer { server.stop() }
        let client = try await FaceClient.connect(.blocking, to: Harness.url("127.0.0.1", server.port))
        try client.expectOpen()
        let socket = try #require(try await Harness.offPool { opened.take(timeout: Harness.patience) })
        try await Harness.offPool {
            for index in 0..<1000 { try socket.send(text: "\(index)") }
            try socket.sendClose(code: .goingAway)
        }
        #expect(try await client.log.messages(1000) == (0..<1000).map { .text("\($0)") })
        #expect(try await client.log.closeStatus().code == .goingAway)
    }

    @Test("run serves many clients at once, each connection's task on its loop")
    func runServesMany() async throws {
        raiseDescriptorLimit()
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let offLoop = Locked(0)
        let serving = Task {
            await server.run { socket in
                if !socket.loop.inLoop { offLoop.withLock { $0 += 1 } }
                do throws(WebSocketError) {
                    for try await message in socket.messages { try await socket.send(message) }
                } catch {}
            }
        }
        let url = Harness.url("127.0.0.1", server.port)
        let clients = 150
        let served = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<clients {
                group.addTask {
                    let socket = try await WebSocket.connect(to: url, configuration: Harness.configuration(), options: Harness.options())
                    var ok = true
                    for round in 0..<3 {
                        let message = WebSocketMessage.text("client \(index) round \(round)")
                        try await socket.send(message)
                        ok = try await socket.receive(timeout: Harness.patience) == message && ok
                    }
                    return try await socket.close().wasClean && ok
                }
            }
            var count = 0
            for try await ok in group where ok { count += 1 }
            return count
        }
        #expect(served == clients)
        #if os(Linux)
        #expect(offLoop.withLock { $0 } == 0)
        #endif
        #expect(try await Harness.offPool { server.waitUntilIdle(timeout: Harness.patience) })
        server.stop()
        await serving.value
    }

    @Test("connections ends after stop: at once when stopped first, for a task waiting in it, and after the open ones are taken")
    func connectionsEndAfterStop() async throws {
        // Stopped before anyone asks.
        let stopped = try WebSocketServer()
        stopped.stop()
        var first = stopped.connections.makeAsyncIterator()
        #expect(await first.next() == nil)

        // A task waiting for the next connection.
        let idle = try WebSocketServer()
        let waiting = Task { () async -> Bool in
            var iterator = idle.connections.makeAsyncIterator()
            return await iterator.next() == nil
        }
        idle.stop()
        #expect(await waiting.value)

        // Connections open and not taken yet at the stop are still handed out, then the end.
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let url = Harness.url("127.0.0.1", server.port)
        let clients = [try await WebSocket.connect(to: url, configuration: Harness.configuration(), options: Harness.options()),
                       try await WebSocket.connect(to: url, configuration: Harness.configuration(), options: Harness.options())]
        server.stop()
        var iterator = server.connections.makeAsyncIterator()
        var taken: [WebSocket] = []
        while let socket = await iterator.next() { taken.append(socket) }
        #expect(taken.count == 2)
        for (socket, client) in zip(taken, clients) {
            try await client.send(.text("taken after the stop"))
            #expect(try await socket.receive(timeout: Harness.patience) == .text("taken after the stop"))
            async let clientEnd = client.receive(timeout: Harness.patience)
            #expect(try await socket.close().wasClean)
            #expect(try await clientEnd == nil)
        }
    }

    @Test("On a socket of a handler face, messages and receive throw eventHandlerInUse", arguments: [ClientFace.loop, .queue])
    func handlerSocketsHaveNoMessages(_ face: ClientFace) async throws {
        try await withServer(.loop) { server in
            let client = try await FaceClient.connect(face, to: server.url())
            let socket = try #require(client.webSocket)
            await #expect(throws: WebSocketError.eventHandlerInUse) {
                var iterator = socket.messages.makeAsyncIterator()
                _ = try await iterator.next()
            }
            await #expect(throws: WebSocketError.eventHandlerInUse) { try await socket.receive(timeout: .seconds(1)) }
            #expect(try await client.close().wasClean)
        }
    }
}

/// The async `send(_:)` answers at once when the connection refuses the message.
@Suite("The async send's verdict", .timeLimit(.minutes(3)))
struct AsyncSendVerdictTests {
    @Test("An async send before the connection opens (a handler-face socket) throws notOpen")
    func beforeOpening() async throws {
        let listener = try RawListener()
        defer { listener.close() }
        let socket = try WebSocket.connect(to: Harness.url("127.0.0.1", listener.port), configuration: Harness.configuration(),
                                           options: Harness.options()) { _, _ in }
        // The peer accepts TCP and never answers the opening handshake.
        let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
        await #expect(throws: WebSocketError.connection(.notOpen)) {
            try await Harness.withTimeout(Harness.patience, "the send") { try await socket.send(.text("too early")) }
        }
        socket.cancel()
        #expect(try await Harness.offPool { peer.readUntilEOF(timeout: Harness.patience) })
    }

    @Test("An async send after the connection ended throws at once")
    func afterTheEnd() async throws {
        try await withServer(.loop) { server in
            let socket = try await WebSocket.connect(to: server.url(), configuration: Harness.configuration(), options: Harness.options())
            #expect(try await socket.close().wasClean)
            await #expect(throws: WebSocketError.connection(.closeAlreadySent)) {
                try await Harness.withTimeout(Harness.patience, "the send") { try await socket.send(.text("too late")) }
            }
        }
    }
}

@Suite("A reader that stays behind", .timeLimit(.minutes(3)))
struct LaggingReaderTests {
    /// `receive()` takes one message at a time; a reader always one message behind never empties the
    /// batches. What it took must not stay in memory until it catches up (with a peer that never
    /// pauses, that would be never).
    @Test("receive() one message behind for 1,000 messages: the batches hold about what is unread")
    func oneBehind() async throws {
        let (server, client, socket, batches) = try await asyncServerAndClient(serverOptions: Harness.options())
        defer { server.stop() }
        // One message ahead of the reader, then one more for each one it reads.
        try await client.send(.text("0"))
        var largest = 0
        for index in 1...1000 {
            try await client.send(.text("\(index)"))
            let message = try await socket.receive(timeout: Harness.patience)
            #expect(message == .text("\(index - 1)"))
            let stored = await socket.onLoopAwaited { batches.storedCount }
            largest = max(largest, stored)
        }
        #expect(largest <= 130, "the batches grew to \(largest) messages with one or two unread")
        _ = try await client.close()
    }
}

@Suite("What a consumer holds", .timeLimit(.minutes(3)))
struct HeldMessagesTests {
    /// Empty messages cost six bytes each on the wire and nothing in payload; counted by payload
    /// alone, a flood of them would be read and kept without bound while nobody takes them.
    /// (What `maxUndeliveredBytes` bounds is in SocketSessionEventTests.)
    @Test("A flood of empty messages to a reader that takes none: the socket stops reading at maxUndeliveredMessages")
    func emptyMessagesAreCounted() async throws {
        var options = Harness.options()
        options.maxUndeliveredMessages = 100
        let (server, client, socket, batches) = try await asyncServerAndClient(serverOptions: options)
        defer { server.stop() }
        let flood = 25_000  // over 140 KiB: more than two reads of 64 KiB
        for _ in 0..<flood { try await client.send(.binary([])) }
        // Until the socket stops reading, or (the failure) has read the whole flood.
        var state = (reading: true, stored: 0)
        let deadline = ContinuousClock.now + Harness.patience
        while state.reading, state.stored < flood, ContinuousClock.now < deadline {
            state = await socket.onLoopAwaited { (socket.peek { $0.wantsInput }, batches.storedCount) }
        }
        #expect(!state.reading, "still reading with \(state.stored) messages held")
        // One read (64 KiB, about 11,000 empty frames) may pass the limit; no more.
        #expect(state.stored < 12_000)
        client.cancel()
    }
}

/// An async-face server with `serverOptions`, a client connected to it, and the server's side of
/// that connection with its message batches.
private func asyncServerAndClient(serverOptions: TransportOptions) async throws
    -> (server: WebSocketServer, client: WebSocket, socket: WebSocket, batches: MessageBatches)
{
    let server = try WebSocketServer(configuration: Harness.configuration(), options: serverOptions)
    do {
        let client = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                 options: Harness.options())
        var connections = server.connections.makeAsyncIterator()
        let socket = try #require(await connections.next())
        let batches = try #require(socket.asyncBatches)
        return (server, client, socket, batches)
    } catch {
        server.stop()
        throw error
    }
}
