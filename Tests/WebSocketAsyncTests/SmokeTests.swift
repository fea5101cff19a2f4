import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

@Suite("Smoke", .timeLimit(.minutes(2)))
struct SmokeTests {
    @Test("A loop-face echo server and an async client")
    func echo() async throws {
        let server = try WebSocketServer(port: 0) { socket, event in
            if case .message(let message) = event { try? socket.send(message) }
        }
        defer { server.stop() }
        let client = try await WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/")
        try await client.send(.text("hello"))
        let reply = try await client.receive(timeout: .seconds(10))
        #expect(reply == .text("hello"))
        try await client.send(.binary([1, 2, 3]))
        #expect(try await client.receive(timeout: .seconds(10)) == .binary([1, 2, 3]))
        let status = try await client.close()
        #expect(status.wasClean)
        #expect(status.code == .normalClosure)
    }

    @Test("An async server and a queue-face client")
    func asyncServer() async throws {
        let server = try WebSocketServer(port: 0)
        let serving = Task {
            await server.run { socket in
                do { for try await message in socket.messages { try await socket.send(message) } } catch {}
            }
        }
        let events = Locked<[WebSocketEvent]>([])
        let t00 = now()
        _ = try WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", queue: DispatchQueue(label: "q")) { socket, event in
            print("event", event, now() - t00)
            events.withLock { $0.append(event) }
            events.broadcast()
            switch event {
            case .open: try? socket.send(text: "one")
            case .message(.text("one")): try? socket.sendClose()
            default: break
            }
        }
        let t0 = now()
        let ended = events.wait(until: { $0.contains { if case .closed = $0 { true } else { false } } },
                                deadline: now() + .seconds(20), now: now)
        #expect(ended)
        print("ended after", now() - t0, events.withLock { $0 })
        let t1 = now()
        defer { print("stopped after", now() - t1) }
        let all = events.withLock { $0 }
        #expect(all.contains(.message(.text("one"))))
        server.stop()
        await serving.value
    }
}
