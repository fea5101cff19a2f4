import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// The async face: connect, messages, send, close, cancellation; and the server's connections.
@Suite("Async face", .timeLimit(.minutes(1)))
struct AsyncFaceTests {
    @Test("connect, send, messages and close against an async server")
    func roundTrip() async throws {
        let server = try WebSocketServer { request in .accept(subprotocol: request.subprotocols.first) }
        defer { server.stop() }
        let serverTask = Task {
            var statuses: [Connection.CloseStatus] = []
            for await socket in server.connections {
                for try await message in socket.messages { try await socket.send(message) }
                statuses.append(try await socket.close())
                break
            }
            return statuses
        }
        try await withTimeout {
            let socket = try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port), subprotocols: ["echo"])
            #expect(socket.handshake?.subprotocol == "echo")
            try await socket.send(.text("hello"))
            try await socket.send(.binary([1, 2, 3]))
            var received: [WebSocketMessage] = []
            for try await message in socket.messages {
                received.append(message)
                if received.count == 2 { break }
            }
            #expect(received == [.text("hello"), .binary([1, 2, 3])])
            let status = try await socket.close(code: Connection.CloseCode(rawValue: 4000), reason: "done")
            #expect(status == Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4000), reason: "", wasClean: true))
            // The sequence has ended: a clean close ends it without an error.
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == nil)
            // Sends after the close are refused.
            await #expect(throws: WebSocketError.self) { try await socket.send(.text("late")) }
        }
        let statuses = try await withTimeout { try await serverTask.value }
        #expect(statuses.count == 1)
        #expect(statuses.first?.code == Connection.CloseCode(rawValue: 4000))
        #expect(statuses.first?.wasClean == true)
    }

    @Test("Cancelling a task waiting in messages: CancellationError, the connection stays usable")
    func cancelMessagesWait() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let socket = try await withTimeout { try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port)) }
        let waiting = Task {
            var iterator = socket.messages.makeAsyncIterator()
            return try await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await withTimeout { try await waiting.value } }

        // A task cancelled before it waits is answered at once.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = socket.messages.makeAsyncIterator()
            return try await iterator.next()
        }
        await #expect(throws: CancellationError.self) { try await withTimeout { try await early.value } }

        // Nothing was lost or broken: the next message still arrives.
        try await socket.send(.text("still here"))
        let next = try await withTimeout {
            var iterator = socket.messages.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(next == .text("still here"))
        _ = try await withTimeout { try await socket.close() }
    }

    @Test("messages throws the close status when the connection is lost")
    func messagesThrowOnFailure() async throws {
        let listener = try RawListener()
        let url = Loopback.url("127.0.0.1", listener.port)
        let connecting = Task { try await WebSocket.connect(to: url) }
        let peer = try await blocking { Result { try listener.accept() } }.get()
        var server = try await blocking { Result { try peer.acceptHandshake() } }.get()
        let socket = try await withTimeout { try await connecting.value }
        try server.send(text: "before the end")
        peer.write(server.takeOutput())
        peer.close()
        let (received, failure) = try await withTimeout {
            var received: [WebSocketMessage] = []
            do {
                for try await message in socket.messages { received.append(message) }
                return (received, nil as WebSocketError?)
            } catch let error as WebSocketError {
                return (received, error)
            }
        }
        // The message that arrived before the end comes first, then the error with the status.
        #expect(received == [.text("before the end")])
        guard case .closed(let status)? = failure else { throw TestFailure("ended with \(String(describing: failure))") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .unexpectedEndOfStream)
    }

    @Test("connect throws the refusal with its status and body")
    func connectRejected() async throws {
        let server = try WebSocketServer { _ in .reject(status: 401, headers: ["WWW-Authenticate": "Basic"], body: Array("who?".utf8)) }
        defer { server.stop() }
        do {
            _ = try await withTimeout { try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port)) }
            Issue.record("connected")
        } catch WebSocketError.handshakeFailed(let failure) {
            let response = try #require(failure.rejected)
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == "Basic")
            #expect(response.body == Array("who?".utf8))
        }
    }

    @Test("Cancelling connect closes the socket")
    func cancelConnect() async throws {
        let listener = try RawListener()
        let url = Loopback.url("127.0.0.1", listener.port)
        let connecting = Task { try await WebSocket.connect(to: url) }
        let peer = try await blocking { Result { try listener.accept() } }.get()
        connecting.cancel()
        await #expect(throws: CancellationError.self) { try await withTimeout { try await connecting.value } }
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(3)) })
    }

    @Test("messages on a socket with an event handler throws eventHandlerInUse")
    func messagesOnHandlerSocket() async throws {
        let server = try makeEchoServer()
        defer { server.stop() }
        let log = EventLog()
        let client = try connectClient(Loopback.url("127.0.0.1", server.port), log: log)
        try await log.wait(for: "open") { !$0.isEmpty }
        await #expect(throws: WebSocketError.eventHandlerInUse) {
            var iterator = client.messages.makeAsyncIterator()
            _ = try await iterator.next()
        }
        try startClose(client)
        try await log.waitForEnd()
    }
}
