import Dispatch
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketDispatch

/// The Dispatch client through a proxy played by the test on a raw socket.
@Suite("Dispatch client through a proxy", .timeLimit(.minutes(1)))
struct DispatchProxyTests {
    static func options(proxyPort: UInt16) throws -> TransportOptions {
        var options = TransportOptions()
        options.proxy = try .url("http://127.0.0.1:\(proxyPort)")
        return options
    }

    /// Reads until the end of an HTTP head (CONNECT's), within `timeout`.
    static func readHead(_ peer: RawSocket) -> String? {
        var head: [UInt8] = []
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard let bytes = peer.read(timeout: .seconds(5)), !bytes.isEmpty else { return nil }
            head += bytes
        }
        return String(decoding: head, as: UTF8.self)
    }

    @Test("CONNECT first, an HTTP/1.0 200, then the WebSocket handshake and messages inside the tunnel")
    func tunnel() async throws {
        let listener = try RawListener()
        let log = EventLog()
        _ = try connectClient("ws://example.invalid:8080/chat", options: try Self.options(proxyPort: listener.port), log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        let connect = try #require(await blocking { Self.readHead(peer) })
        #expect(connect.hasPrefix("CONNECT example.invalid:8080 HTTP/1.1\r\n"))
        // An HTTP/1.0 answer; the tunnel is then the WebSocket server's.
        peer.write(Array("HTTP/1.0 200 Connection established\r\n\r\n".utf8))
        var server = try await blocking { Result { try peer.acceptHandshake() } }.get()
        try await log.wait(for: "open") { !$0.isEmpty }
        try server.send(text: "through the tunnel")
        peer.write(server.takeOutput())
        try await log.wait(for: "the message") { $0.contains(.text("through the tunnel")) }
        peer.close()
    }

    @Test("A proxy that never answers: the handshake timeout covers the proxy's setup")
    func silentProxy() async throws {
        let listener = try RawListener()
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .milliseconds(300)
        let log = EventLog()
        _ = try connectClient("ws://example.invalid/", configuration: configuration,
                              options: try Self.options(proxyPort: listener.port), log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        let end = try await log.waitForEnd(timeout: .seconds(10))
        #expect(end == .failed(.handshakeFailed(.timedOut)))
        #expect(await blocking { peer.readUntilEOF(timeout: .seconds(5)) })
    }

    @Test("A 407 is a proxy error with the status and the challenge")
    func authenticationRequired() async throws {
        let listener = try RawListener()
        let log = EventLog()
        _ = try connectClient("ws://example.invalid/", options: try Self.options(proxyPort: listener.port), log: log)
        let peer = try await blocking { Result { try listener.accept() } }.get()
        _ = await blocking { Self.readHead(peer) }
        peer.write(Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n".utf8))
        let end = try await log.waitForEnd(timeout: .seconds(10))
        guard case .failed(.proxy(let error)) = end else {
            Issue.record("expected a proxy error, got \(end)")
            return
        }
        #expect(error.code == .authenticationRequired)
        #expect(error.status == 407)
        #expect(error.headers["Proxy-Authenticate"] == "Basic realm=\"x\"")
    }
}

extension Array where Element: Equatable {
    func ends(with suffix: [Element]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
