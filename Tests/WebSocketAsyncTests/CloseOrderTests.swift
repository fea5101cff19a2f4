// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// RFC 6455 §5.5.1: nothing is sent after a Close, so a Close asked for while data handed over
/// before it still waits for room goes after that data, never ahead of it (the data would be lost).
@Suite("A Close after data waiting for room (RFC 6455 §5.5.1)", .timeLimit(.minutes(4)))
struct CloseOrder_5_5_1 {
    /// What the server received: the sizes of the binary messages, then how the connection ended.
    final class Received: Sendable {
        let sizes = Locked<[Int]>([])
        private let end = Locked<(status: Connection.CloseStatus?, waiter: CheckedContinuation<Connection.CloseStatus?, Never>?)>((nil, nil))

        func ended(_ status: Connection.CloseStatus) {
            let waiter = end.withLock { end in
                end.status = status
                defer { end.waiter = nil }
                return end.waiter
            }
            waiter?.resume(returning: status)
        }

        /// How the connection ended, once it has; `nil` after 60 seconds (a failure bound).
        func ending() async -> Connection.CloseStatus? {
            await withCheckedContinuation { (continuation: CheckedContinuation<Connection.CloseStatus?, Never>) in
                if let status = end.withLock({ end -> Connection.CloseStatus? in
                    if end.status == nil { end.waiter = continuation }
                    return end.status
                }) {
                    return continuation.resume(returning: status)
                }
                Task { [end] in
                    try? await Task.sleep(for: Harness.patience)
                    let waiter = end.withLock { end in
                        defer { end.waiter = nil }
                        return end.waiter
                    }
                    waiter?.resume(returning: nil)
                }
            }
        }
    }

    /// A server that records one connection, and a client whose output buffer is over its
    /// high-water mark (64 KiB) with nothing written (the send calls report EAGAIN), with one more
    /// binary message of 1,000 bytes waiting for room behind it.
    static func clientWithDataWaiting() async throws -> (server: WebSocketServer, received: Received, socket: WebSocket, faults: Faults) {
        let received = Received()
        let server = try WebSocketServer(port: 0, configuration: testConfiguration()) { _, event in
            switch event {
            case .message(.binary(let bytes)): received.sizes.withLock { $0.append(bytes.count) }
            case .closed(let status): received.ended(status)
            default: break
            }
        }
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = 64 << 10
        let endpoint = try WebSocketEndpoint(parsing: "ws://127.0.0.1:\(server.port)/")
        let faults = Faults()
        let socket = try await WebSocket.connect(Connection.ClientOptions(url: endpoint.url), via: endpoint, configuration: configuration,
                                                 options: testOptions(), system: faults.system)
        faults.always(.send, .wouldBlock)
        try await socket.send(.binary(pattern(100 << 10)))
        _ = await socket.awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            _ = socket.peek { $0.sendOrWait(.binary(pattern(1_000))) { _ in } }
            #expect(socket.peek { $0.hasPendingSends })
            completion(.success(()))
            return nil
        }
        return (server, received, socket, faults)
    }

    /// Lets the client write again (and wakes its loop with a message from the server: an
    /// edge-triggered backend reports writability again only with a new event), then waits for the
    /// server's end of the connection.
    static func release(_ server: WebSocketServer, _ faults: Faults, _ received: Received) async -> Connection.CloseStatus? {
        faults.always(.send, nil)
        server.broadcast(text: "write again")
        return await received.ending()
    }

    @Test("sendClose() from another thread: the Close follows the waiting message")
    func sendCloseFromAnotherThread() async throws {
        let (server, received, socket, faults) = try await Self.clientWithDataWaiting()
        defer { server.stop() }
        try socket.sendClose(code: .normalClosure, reason: "done")
        // The loop carries the send out in its turn; this waits for that turn to be over.
        _ = await socket.awaitLoop { (_: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            completion(.success(()))
            return nil
        }
        let ending = await Self.release(server, faults, received)
        #expect(received.sizes.withLock { $0 } == [100 << 10, 1_000])
        #expect(ending?.code == .normalClosure && ending?.reason == "done" && ending?.wasClean == true, "\(String(describing: ending))")
    }

    @Test("The session's close (what close() and a reconnecting client's stop do): the Close follows the waiting message")
    func sessionClose() async throws {
        let (server, received, socket, faults) = try await Self.clientWithDataWaiting()
        defer { server.stop() }
        let result = await socket.awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            do throws(WebSocketError) {
                try socket.session.close(code: .goingAway, reason: "", completion: nil)
                completion(.success(()))
            } catch {
                completion(.failure(error))
            }
            socket.act()
            socket.markDirty()
            return nil
        }
        #expect((try? result.get()) != nil, "\(result)")
        let ending = await Self.release(server, faults, received)
        #expect(received.sizes.withLock { $0 } == [100 << 10, 1_000])
        #expect(ending?.code == .goingAway && ending?.wasClean == true, "\(String(describing: ending))")
    }

    @Test("An async send of a Close waits behind the message; an invalid code is still refused at once")
    func asyncSendOfClose() async throws {
        let (server, received, socket, faults) = try await Self.clientWithDataWaiting()
        defer { server.stop() }
        let invalid = await socket.awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            do throws(WebSocketError) {
                try socket.session.close(code: .abnormalClosure, reason: "", completion: nil)
                completion(.success(()))
            } catch {
                completion(.failure(error))
            }
            return nil
        }
        #expect((try? invalid.get()) == nil, "1006 may not be sent")
        // What the async send(.close(…)) does on the loop: the Close waits behind the message.
        let queued = Locked<Result<Void, WebSocketError>?>(nil)
        _ = await socket.awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            _ = socket.peek { $0.sendOrWait(.close(Connection.CloseFrame(code: .normalClosure))) { result in queued.withLock { $0 = result } } }
            socket.act()
            socket.markDirty()
            completion(.success(()))
            return nil
        }
        #expect(queued.withLock { $0 } == nil, "the Close went ahead of the waiting message")
        let ending = await Self.release(server, faults, received)
        #expect(queued.withLock { $0.map { (try? $0.get()) != nil } } == true)
        #expect(received.sizes.withLock { $0 } == [100 << 10, 1_000])
        #expect(ending?.code == .normalClosure && ending?.wasClean == true, "\(String(describing: ending))")
    }

    @Test("A server's stop(closing:) while a connection's data waits for room: the Close follows the data, every byte arrives")
    func serverStopWithDataWaiting() async throws {
        let faults = Faults()
        let accepted = Mailbox<WebSocket>()
        var configuration = testConfiguration()
        configuration.limits.maxBufferedOutput = 64 << 10
        let server = try shimServer(faults.system, configuration: configuration, handler: { socket, event in
            if case .open = event { accepted.put(socket) }
        })
        defer { server.stop() }
        let client = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", configuration: testConfiguration(),
                                                 options: testOptions())
        let socket = try #require(try await Harness.offPool { accepted.take(timeout: Harness.patience) })
        // Nothing the server sends is written: 100 KiB over the high-water mark, 1,000 bytes waiting.
        faults.always(.send, .wouldBlock)
        try await socket.send(.binary(pattern(100 << 10)))
        let waiting = await socket.awaitLoop { (socket: WebSocket, completion: @escaping SessionCompletion<Void>) -> UInt64? in
            _ = socket.peek { $0.sendOrWait(.binary(pattern(1_000))) { _ in } }
            completion(socket.peek { $0.hasPendingSends } ? .success(()) : .failure(.invalidArgument("nothing waits")))
            return nil
        }
        #expect((try? waiting.get()) != nil, "\(waiting)")
        server.stop(closing: .goingAway, reason: "bye")
        // Writes again; a message from the client wakes the server's loop (an edge-triggered backend
        // reports writability again only with a new event).
        faults.always(.send, nil)
        try await client.send(.text("write again"))
        var sizes: [Int] = []
        do {
            for try await message in client.messages { if case .binary(let bytes) = message { sizes.append(bytes.count) } }
        } catch {
            Issue.record("the client's messages ended with \(error)")
        }
        #expect(sizes == [100 << 10, 1_000])
        #expect(client.closeStatus?.code == .goingAway && client.closeStatus?.reason == "bye",
                "\(String(describing: client.closeStatus))")
    }

}
