import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// Redirects followed by the Dispatch client: a new connection for each hop, on the socket's queue.
@Suite("Dispatch client redirects", .timeLimit(.minutes(1)))
struct DispatchRedirectTests {
    @Test("A 307 to another server opens there; messages flow over the new connection")
    func followed() async throws {
        let target = try WebSocketServer { _ in .accept() }
        defer { target.stop() }
        let landed = Loopback.url("127.0.0.1", target.port, "/landed")
        let first = try WebSocketServer { _ in .reject(status: 307, headers: ["Location": landed]) }
        defer { first.stop() }
        let serverTask = Task {
            for await socket in target.connections {
                for try await message in socket.messages { try await socket.send(message) }
                break
            }
        }
        try await withTimeout {
            let socket = try await WebSocket.connect(to: Loopback.url("127.0.0.1", first.port, "/start"))
            #expect(socket.handshake?.resource == "/landed")
            try await socket.send(.text("over the second hop"))
            var echoed: WebSocketMessage?
            for try await message in socket.messages {
                echoed = message
                break
            }
            #expect(echoed == .text("over the second hop"))
            _ = try await socket.close()
        }
        serverTask.cancel()
    }

    @Test("A redirect loop ends at maxRedirects with the hops")
    func loop() async throws {
        let server = try WebSocketServer { _ in .reject(status: 302, headers: ["Location": "/again"]) }
        defer { server.stop() }
        let options = { var options = TransportOptions(); options.maxRedirects = 2; return options }()
        do {
            _ = try await withTimeout {
                try await WebSocket.connect(to: Loopback.url("127.0.0.1", server.port, "/start"), options: options)
            }
            Issue.record("connected")
        } catch WebSocketError.tooManyRedirects(let hops) {
            #expect(hops.count == 4)
            #expect(hops.last?.resource == "/again")
        }
    }
}
