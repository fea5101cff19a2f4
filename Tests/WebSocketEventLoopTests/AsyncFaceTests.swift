#if os(Linux)
import Glibc
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX
import TransportTestSupport
@testable import WebSocketEventLoop

/// What the next call of `iterator` did, as text: a message, `cancelled`, or another error.
private func nextOutcome(_ iterator: inout EventLoopWebSocket.Messages.Iterator) async -> String {
    do throws(WebSocketError) {
        return "message \(String(describing: try await iterator.next()))"
    } catch .cancelled {
        return "cancelled"
    } catch {
        return "error \(error)"
    }
}

@Suite struct AsyncFaceTests {
    /// An async-face echo server whose connection tasks record which thread they ran on.
    func asyncEchoServer(onLoop: Locked<Int>? = nil, maxPendingConnections: Int = 128,
                         options: TransportOptions = TransportOptions()) throws -> EventLoopServer {
        let server = try EventLoopServer(maxPendingConnections: maxPendingConnections, configuration: clientConfiguration(),
                                         options: options)
        Task(executorPreference: server.loops[0]) {
            await server.run { socket in
                if socket.loop.inLoop { onLoop?.withLock { $0 += 1 } }
                do {
                    for try await message in socket.messages { try await socket.send(message) }
                } catch {}
            }
        }
        return server
    }

    @Test func echoesOverTheAsyncFaceWithTasksOnTheConnectionsLoop() async throws {
        try await offPool {
            let onLoop = Locked(0)
            let server = try asyncEchoServer(onLoop: onLoop)
            let messages: [WebSocketMessage] = [.text("hello"), .binary(pattern(200_000)), .text("")]
            #expect(echoRoundTrip(port: server.port, messages: messages) == nil)
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            #expect(onLoop.withLock { $0 } == 1)
            server.stop()
        }
    }

    @Test func manyClientsBeyondThePendingLimitAreAllServed() async throws {
        try await offPool {
            raiseDescriptorLimit()
            // A limit far below the clients: accepting pauses and resumes as tasks take connections.
            let server = try asyncEchoServer(maxPendingConnections: 4)
            let failures = try onThreads(150) { index in
                echoRoundTrip(port: server.port, messages: (0..<4).map { .text("client \(index) message \($0)") })
            }
            #expect(failures.compactMap { $0 } == [])
            #expect(server.waitUntilIdle(timeout: .seconds(60)))
            server.stop()
        }
    }

    /// A reader on another executor (the global pool, not the loop): every take that finds
    /// nothing ready and every send hop to the loop, since the batches are confined to it.
    @Test func aTaskOffTheLoopReadsAndSendsEveryMessage() async throws {
        try await offPool {
            let server = try EventLoopServer(configuration: clientConfiguration())
            let offLoop = Locked(0)
            let accepting = Task.detached {
                for await socket in server.connections {
                    Task.detached {
                        do {
                            for try await message in socket.messages {
                                if !socket.loop.inLoop { offLoop.withLock { $0 += 1 } }
                                try await socket.send(message)
                            }
                        } catch {}
                    }
                }
            }
            let messages: [WebSocketMessage] = (0..<50).map { .text("message \($0)") } + [.binary(pattern(300_000))]
            let failures = try onThreads(8) { _ in echoRoundTrip(port: server.port, messages: messages) }
            #expect(failures.compactMap { $0 } == [])
            #expect(offLoop.withLock { $0 } == 8 * messages.count)
            #expect(server.waitUntilIdle(timeout: .seconds(30)))
            server.stop()
            accepting.cancel()
        }
    }

    /// A reader waiting for a message, on the loop or off it, cancelled while it waits or before:
    /// each call throws `.cancelled`, and the connection goes on with nothing lost.
    @Test(.timeLimit(.minutes(1))) func cancellingAWaitingReaderThrowsCancelledAndLosesNothing() async throws {
        let server = try EventLoopServer(configuration: clientConfiguration())
        let outcomes = Locked<[String]>([])
        let task = Task(executorPreference: server.loops[0]) {
            await server.run { socket in
                // 1. On the loop: takes the client's first message, then waits until cancelled.
                let gotFirst = Gate()
                let waiting = Task(executorPreference: socket.executor) { () async -> String in
                    var iterator = socket.messages.makeAsyncIterator()
                    guard case .text("first")? = try? await iterator.next() else { return "no first message" }
                    gotFirst.open()
                    return await nextOutcome(&iterator)
                }
                await gotFirst.wait()
                waiting.cancel()
                let waitingOutcome = await waiting.value
                outcomes.withLock { $0.append("waiting: \(waitingOutcome)") }
                // 2. Cancelled before it asks, on the loop and off it.
                let early = Task(executorPreference: socket.executor) { () async -> String in
                    withUnsafeCurrentTask { $0?.cancel() }
                    var iterator = socket.messages.makeAsyncIterator()
                    return await nextOutcome(&iterator)
                }
                let earlyOutcome = await early.value
                outcomes.withLock { $0.append("early: \(earlyOutcome)") }
                let elsewhere = Task.detached { () async -> String in
                    withUnsafeCurrentTask { $0?.cancel() }
                    var iterator = socket.messages.makeAsyncIterator()
                    return await nextOutcome(&iterator)
                }
                let elsewhereOutcome = await elsewhere.value
                outcomes.withLock { $0.append("elsewhere: \(elsewhereOutcome)") }
                // 3. Still open: tell the client, then echo.
                do {
                    try await socket.send(.text("ready"))
                    for try await message in socket.messages { try await socket.send(message) }
                } catch {}
            }
        }
        let port = server.port
        let replies = try await offPool { () throws -> [WebSocketMessage?] in
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(port)/", configuration: clientConfiguration(),
                                                       options: clientOptions())
            try client.send(.text("first"))
            let ready = try client.receive()
            try client.send(.text("still here"))
            let echo = try client.receive()
            try client.close()
            return [ready, echo]
        }
        #expect(replies == [.text("ready"), .text("still here")])
        #expect(outcomes.withLock { $0 } == ["waiting: cancelled", "early: cancelled", "elsewhere: cancelled"])
        #expect(server.waitUntilIdle(timeout: .seconds(30)))
        server.stop()
        await task.value
    }

    @Test(.timeLimit(.minutes(2))) func aReaderThatFallsBehindStopsTheSocketReadingAndLosesNothing() async throws {
        var options = TransportOptions()
        options.maxUndeliveredBytes = 4 << 10
        let server = try EventLoopServer(configuration: clientConfiguration(), options: options)
        let received = Locked<[WebSocketMessage]>([])
        let release = Gate()
        let allReceived = Gate()
        let task = Task(executorPreference: server.loops[0]) {
            await server.run { socket in
                do {
                    for try await message in socket.messages {
                        // Hold the first message until the client has sent everything.
                        await release.wait()
                        if received.withLock({ $0.append(message); return $0.count }) == 400 { allReceived.open() }
                    }
                } catch {}
                allReceived.open()  // the messages ended early: the comparison below says what is missing
            }
        }
        let port = server.port
        let sent = (0..<400).map { WebSocketMessage.binary(pattern(1024, seed: UInt8(truncatingIfNeeded: $0))) }
        let client = try await offPool {
            try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(port)/", configuration: clientConfiguration(), options: clientOptions())
        }
        try await offPool { for message in sent { try client.send(message) } }
        release.open()
        await allReceived.wait()
        #expect(received.withLock { $0 } == sent)
        _ = try await offPool { try client.close() }
        server.stop()
        await task.value
    }

    @Test func closeReturnsTheStatusOnceTheSocketIsClosed() async throws {
        let server = try EventLoopServer(configuration: clientConfiguration())
        let statuses = Locked<[Connection.CloseStatus]>([])
        let task = Task(executorPreference: server.loops[0]) {
            await server.run { socket in
                statuses.withLock { $0.append(Connection.CloseStatus(code: .noStatusReceived, reason: "", wasClean: false, failure: nil)) }
                let status = await socket.close(code: .goingAway, reason: "bye")
                statuses.withLock { $0[0] = status }
            }
        }
        let port = server.port
        let closeStatus = try await offPool { () throws -> Connection.CloseStatus? in
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(port)/", configuration: clientConfiguration(),
                                                       options: clientOptions())
            _ = try client.receive()
            return client.closeStatus
        }
        #expect(closeStatus?.code == .goingAway)
        #expect(closeStatus?.reason == "bye")
        #expect(server.waitUntilIdle(timeout: .seconds(30)))
        server.stop()
        await task.value
        #expect(statuses.withLock { $0.first?.wasClean } == true)
    }

    @Test func theConnectionsSequenceEndsAfterStop() async throws {
        let server = try EventLoopServer(configuration: clientConfiguration())
        server.stop()
        var iterator = server.connections.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
#endif
