import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

@Suite("Many connections at once", .timeLimit(.minutes(1)))
struct ManyClientsTests {
    @Test("200 concurrent clients against one server, each exchanging a few messages")
    func twoHundredClients() async throws {
        raiseDescriptorLimit()
        let server = try makeEchoServer(queue: DispatchQueue(label: "echo", attributes: .concurrent))
        defer { server.stop() }
        let url = Loopback.url("127.0.0.1", server.port)
        let clients = 200
        let succeeded = try await withTimeout(.seconds(40), "200 clients") {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<clients {
                    group.addTask {
                        let socket = try await WebSocket.connect(to: url)
                        var iterator = socket.messages.makeAsyncIterator()
                        for round in 0..<3 {
                            let text = "client \(index) round \(round)"
                            try await socket.send(.text(text))
                            guard try await iterator.next() == .text(text) else { return false }
                        }
                        let bytes = payload(1000 + index)
                        try await socket.send(.binary(bytes))
                        guard try await iterator.next() == .binary(bytes) else { return false }
                        let status = try await socket.close()
                        guard try await iterator.next() == nil else { return false }
                        return status.wasClean && status.code == .normalClosure
                    }
                }
                var count = 0
                for try await ok in group where ok { count += 1 }
                return count
            }
        }
        #expect(succeeded == clients)
    }
}
