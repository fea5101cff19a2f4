// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// The tasks `WebSocketServer.run(_:)` starts have their cancellation followed once for their
/// whole life (`TaskCancellationWatch`), not by a handler per wait: these tests hold its waits to
/// what every other wait promises (`.cancelled` at once, the connection open, no message lost),
/// and another task's waits on the same socket to their own cancellation.
@Suite("Cancellation of the tasks that run(_:) starts", .timeLimit(.minutes(3)))
struct ServedTaskCancellationTests {
    /// Waits until `condition` holds on the socket's loop (asked again after each answer; the
    /// failure bound is generous).
    private func waitOnLoop(_ socket: WebSocket, _ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        let deadline = now() + Harness.patience
        while !(await socket.onLoopAwaited(condition)) {
            guard now() < deadline else { throw FaceFailure("never saw \(what)") }
            await Task.yield()
        }
    }

    /// A server whose connections `body` serves (`run(_:)`), the task running it, and a raw client
    /// connected to it.
    private func served(_ body: nonisolated(nonsending) @escaping @Sendable (WebSocket) async -> Void) async throws
        -> (server: WebSocketServer, serving: Task<Void, Never>, peer: RawSocket, client: Connection)
    {
        let server = try WebSocketServer(configuration: Harness.configuration(), options: Harness.options())
        let serving = Task { await server.run(body) }
        let (peer, connection, _) = try await RawPeers.client(port: server.port)
        return (server, serving, peer, connection)
    }

    /// Stops the server, waits for `run(_:)` to return, and closes the raw client.
    private func stop(_ server: WebSocketServer, _ serving: Task<Void, Never>, _ peer: RawSocket) async {
        server.stop()
        await serving.value
        peer.close()
    }

    /// Sends `text` from the raw client.
    private func say(_ text: String, _ client: inout Connection, _ peer: RawSocket) throws {
        try client.send(text: text)
        peer.write(client.takeOutput())
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("A served task cancelled while it waits for a message: .cancelled at once, the connection open, the next message read by another task")
    func cancelledWhileWaiting() async throws {
        let outcome = Transcript()
        let served = Mailbox<WebSocket>()
        var (server, serving, peer, client) = try await self.served { socket in
            served.put(socket)
            do throws(WebSocketError) {
                for try await message in socket.messages { outcome.append(.message(message)) }
                outcome.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
            } catch {
                outcome.append(.failed(error))
            }
        }
        try say("first", &client, peer)
        try await outcome.wait(for: "the first message") { !$0.isEmpty }
        let socket = try #require(await blocking { served.take() })
        let batches = try #require(socket.asyncBatches)
        try await waitOnLoop(socket, "the served task waiting") { batches.hasWaiter }

        serving.cancel()
        let end = try await outcome.end()
        #expect(end == .failed(.cancelled))
        #expect(socket.state == .open)

        // Nothing was lost, and the socket is still readable, by a task that is not cancelled.
        try say("after the cancellation", &client, peer)
        #expect(try await socket.receive(timeout: Harness.patience) == .text("after the cancellation"))
        #expect(outcome.messages == [.text("first")])
        await stop(server, serving, peer)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("A served task cancelled while busy elsewhere: its next wait is .cancelled without waiting, after the messages already there")
    func cancelledBeforeWaiting() async throws {
        let outcome = Transcript()
        let gate = Mailbox<Bool>()
        var (server, serving, peer, client) = try await served { socket in
            do throws(WebSocketError) {
                var iterator = socket.messages.makeAsyncIterator()
                if let first = try await iterator.next() { outcome.append(.message(first)) }
                // Away from the socket (a suspension of its own) while the task is cancelled and a
                // second message arrives.
                _ = await blocking { gate.take() }
                while let message = try await iterator.next() { outcome.append(.message(message)) }
                outcome.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
            } catch {
                outcome.append(.failed(error))
            }
        }
        try say("first", &client, peer)
        try await outcome.wait(for: "the first message") { !$0.isEmpty }
        try say("second", &client, peer)
        serving.cancel()
        gate.put(true)
        let end = try await outcome.end()
        #expect(end == .failed(.cancelled))
        // The message that was there when the task asked came first, unless it was still on its way.
        #expect(outcome.messages.first == .text("first"))
        #expect(outcome.messages.count <= 2)
        await stop(server, serving, peer)
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test("Another task reading a served socket is cancelled by its own cancellation, and only by it")
    func anotherTaskOnTheSameSocket() async throws {
        let outcome = Transcript()
        let readerOutcome = Transcript()
        let readers = Mailbox<Task<WebSocketMessage?, any Error>>()
        let served = Mailbox<WebSocket>()
        var (server, serving, peer, client) = try await self.served { socket in
            served.put(socket)
            // A second task, on the same loop, reads the socket while the served task waits for it:
            // its waits are not the served task's, and its cancellation must reach them.
            let reader = Task(executorPreference: socket.executor) { try await socket.receive(timeout: nil) }
            readers.put(reader)
            do {
                _ = try await reader.value
                readerOutcome.append(.message(.text("the reader was not cancelled")))
            } catch {
                readerOutcome.append(.failed((error as? WebSocketError) ?? .invalidArgument("\(error)")))
            }
            // The served task itself goes on reading, uncancelled.
            do throws(WebSocketError) {
                for try await message in socket.messages { outcome.append(.message(message)) }
                outcome.append(.closed(socket.closeStatus ?? Harness.unknownEnd))
            } catch {
                outcome.append(.failed(error))
            }
        }
        let socket = try #require(await blocking { served.take() })
        let reader = try #require(await blocking { readers.take() })
        let batches = try #require(socket.asyncBatches)
        try await waitOnLoop(socket, "the second task waiting") { batches.hasWaiter }
        reader.cancel()
        try await readerOutcome.wait(for: "the reader's end") { !$0.isEmpty }
        #expect(readerOutcome.events == [.failed(.cancelled)])

        try say("to the served task", &client, peer)
        try await outcome.wait(for: "the served task's message") { !$0.isEmpty }
        #expect(outcome.events.first == .message(.text("to the served task")))
        try client.close()
        peer.write(client.takeOutput())
        let end = try await outcome.end()
        guard case .closed = end else { throw FaceFailure("ended with \(Harness.brief(end))") }
        await stop(server, serving, peer)
    }
}
