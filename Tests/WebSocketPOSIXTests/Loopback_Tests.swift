import Testing
import WebSocketCore
@testable import WebSocketPOSIX

/// A client and a server of this module over real loopback sockets.
@Suite("Loopback: client against server over TCP and Unix sockets")
struct LoopbackTests {
    @Test("IPv4: a text and a binary message go round 127.0.0.1")
    func ipv4() throws {
        try withServer(host: "127.0.0.1") { server in
            #expect(server.server.localAddress.family == .ipv4)
            let client = try BlockingWebSocket.connect(to: server.url("/v4"), options: testOptions())
            try client.send(text: "hello")
            #expect(try client.receive() == .text("hello"))
            try client.send(binary: [1, 2, 3])
            #expect(try client.receive() == .binary([1, 2, 3]))
            let status = try client.close()
            #expect(status.code == .normalClosure)
            #expect(status.wasClean)
            #expect(client.remoteAddress?.port == server.port)
        }
    }
}
