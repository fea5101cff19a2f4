// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
import WebSocketDeflate
@testable import WebSocketPOSIX

/// A client and a server of this module over real loopback sockets.
@Suite("Loopback: client against server over TCP and Unix sockets", .onTestThreads)
struct LoopbackTests {
    /// One text and one binary message round trip, then a clean close from the client.
    private func roundTrip(_ client: BlockingWebSocket) throws {
        try client.send(text: "hello")
        #expect(try client.receive() == .text("hello"))
        try client.send(binary: [1, 2, 3])
        #expect(try client.receive() == .binary([1, 2, 3]))
        let status = try client.close()
        #expect(status == Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))
        #expect(client.closeStatus == status)
        #expect(client.transportFailure == nil)
        #expect(try client.receive() == nil)
    }

    @Test("IPv4: 127.0.0.1")
    func ipv4() throws {
        try withServer(host: "127.0.0.1") { server in
            #expect(server.server.localAddress.family == .ipv4)
            #expect(server.server.localAddress.host == "127.0.0.1")
            #expect(server.port != 0)
            let client = try BlockingWebSocket.connect(to: server.url("/v4"), options: testOptions())
            #expect(client.remoteAddress?.port == server.port)
            #expect(client.handshake.resource == "/v4")
            try roundTrip(client)
        }
    }

    @Test("IPv6: ::1", .enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback (::1): IPv6 NOT tested"))
    func ipv6() throws {
        try withServer(host: "::1") { server in
            #expect(server.server.localAddress.family == .ipv6)
            #expect(server.server.localAddress.description == "[::1]:\(server.port)")
            #expect(server.url() == "ws://[::1]:\(server.port)/")
            let client = try BlockingWebSocket.connect(to: server.url("/v6"), options: testOptions())
            #expect(client.remoteAddress?.family == .ipv6)
            try roundTrip(client)
        }
    }

    @Test("A name that resolves to several addresses: localhost")
    func localhostName() throws {
        try withServer(host: "127.0.0.1") { server in
            // localhost may resolve to ::1 first, where nothing listens: the next address is tried.
            let client = try BlockingWebSocket.connect(to: "ws://localhost:\(server.port)/", options: testOptions())
            #expect(client.remoteAddress?.host == "127.0.0.1")
            try roundTrip(client)
        }
    }

    @Test("Unix domain socket: ws+unix://PATH:RESOURCE, Host: localhost")
    func unixSocket() throws {
        let path = temporarySocketPath("loopback")
        let seen = Mailbox<Connection.HandshakeRequest>()
        let server = try BlockingWebSocketServer(unixSocketPath: path, configuration: testConfiguration(),
                                                 options: serverOptions())
        #expect(server.localAddress.unixPath == path)
        #expect(server.port == 0)
        let peer = Mailbox<String>()
        let running = try RunningServer(server, handshake: { request in
            seen.put(request)
            return .accept()
        }, handler: { socket in
            peer.put(socket.remoteAddress?.description ?? "none")
            echo(socket)
        })
        defer { #expect(running.stop()) }
        let client = try BlockingWebSocket.connect(to: "ws+unix://\(path):/chat?room=1", options: testOptions())
        let request = try #require(seen.take())
        #expect(request.host == "localhost")
        #expect(request.resource == "/chat?room=1")
        #expect(peer.take() == "unix:(unnamed)")
        try roundTrip(client)
    }

    @Test("The Unix socket file is removed when serve returns, and a stale one is replaced")
    func unixSocketFile() throws {
        let path = temporarySocketPath("stale")
        do {
            // A socket file nobody listens on any more.
            let stale = try Socket.listening(on: SocketAddress.unix(path: path), backlog: 1, system: .live)
            stale.close()
        }
        #expect(access(path, F_OK) == 0)
        let server = try BlockingWebSocketServer(unixSocketPath: path, configuration: testConfiguration())
        let running = try RunningServer(server)
        let client = try BlockingWebSocket.connect(to: .unixSocket(path: path), options: testOptions())
        try roundTrip(client)
        #expect(running.stop())
        #expect(access(path, F_OK) != 0)
    }

    @Test("A live Unix socket is not taken over")
    func unixSocketInUse() throws {
        let path = temporarySocketPath("live")
        let first = try BlockingWebSocketServer(unixSocketPath: path)
        #expect(throws: WebSocketError.bindFailed(first.localAddress, .addressInUse)) {
            _ = try BlockingWebSocketServer(unixSocketPath: path)
        }
    }

    static let sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20]

    @Test("Binary messages of every length form", arguments: sizes)
    func binarySizes(size: Int) throws {
        let configuration = testConfiguration(maxMessageSize: 32 << 20)
        try withServer(configuration: configuration) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration,
                                                       options: testOptions(receiveTimeout: .seconds(60)))
            let payload = pattern(size, seed: 7)
            try client.send(binary: payload)
            #expect(try client.receive() == .binary(payload))
            try client.close()
        }
    }

    @Test("Text messages of every length form", arguments: sizes)
    func textSizes(size: Int) throws {
        let configuration = testConfiguration(maxMessageSize: 32 << 20)
        try withServer(configuration: configuration) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration,
                                                       options: testOptions(receiveTimeout: .seconds(60)))
            let text = String(decoding: pattern(size).map { 0x20 + $0 % 0x5F }, as: UTF8.self)
            try client.send(text: text)
            #expect(try client.receive() == .text(text))
            try client.close()
        }
    }

    @Test("The default 16 MiB limit: a larger message fails the connection with 1009")
    func messageTooBig() throws {
        try withServer { server in
            var configuration = testConfiguration()
            configuration.limits.maxMessageSize = 64 << 20
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration, options: testOptions())
            try client.send(binary: [UInt8](repeating: 1, count: (16 << 20) + 1))
            #expect(try client.receive() == nil)
            #expect(client.closeStatus?.code == .messageTooBig)
        }
    }

    @Test("sendFragment: a message in pieces, a ping between them, both kinds")
    func fragmented() throws {
        try withServer { server in
            var options = testOptions()
            options.receivesControlFrames = true
            let client = try BlockingWebSocket.connect(to: server.url(), options: options)
            try client.sendFragment(Array("frag".utf8), kind: .text, isFinal: false)
            try client.sendPing(Array("between".utf8))
            try client.sendFragment(Array("men".utf8), kind: .text, isFinal: false)
            try client.sendFragment(Array("ted ✓".utf8), kind: .text, isFinal: true)
            #expect(try client.receive() == .pong(Array("between".utf8)))
            #expect(try client.receive() == .text("fragmented ✓"))

            try client.sendFragment([1, 2], kind: .binary, isFinal: false)
            #expect(throws: WebSocketError.connection(.fragmentKindMismatch)) {
                try client.sendFragment([3], kind: .text, isFinal: true)
            }
            #expect(throws: WebSocketError.connection(.messageInProgress)) {
                try client.send(text: "not now")
            }
            try client.sendFragment([], kind: .binary, isFinal: false)
            try client.sendFragment([3], kind: .binary, isFinal: true)
            #expect(try client.receive() == .binary([1, 2, 3]))
            try client.close()
        }
    }

    @Test("Fragment delivery: a large message arrives in pieces")
    func fragmentDelivery() throws {
        try withServer { server in
            var configuration = testConfiguration()
            configuration.delivery = .fragments
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration, options: testOptions())
            let payload = pattern(1 << 20)
            try client.send(binary: payload)
            var received: [UInt8] = []
            var pieces = 0
            while true {
                guard case .fragment(let fragment)? = try client.receive() else {
                    Issue.record("expected a fragment")
                    break
                }
                #expect(fragment.kind == .binary)
                #expect(fragment.isFirst == (pieces == 0))
                pieces += 1
                received += fragment.bytes
                if fragment.isFinal { break }
            }
            #expect(received == payload)
            #expect(pieces > 1)
            try client.close()
        }
    }

    @Test("Pings: the server answers the client's, the client answers the server's")
    func pingsAndPongs() throws {
        let serverSaw = Mailbox<WebSocketMessage>()
        var options = serverOptions()
        options.receivesControlFrames = true
        try withServer(options: options, handler: { socket in
            do {
                try socket.sendPing(Array("from server".utf8))
                serverSaw.put(try socket.receive() ?? .text("closed"))
                _ = try socket.receive()   // the client's close
            } catch {
                serverSaw.put(.text("error \(error)"))
            }
        }) { server in
            var options = testOptions()
            options.receivesControlFrames = true
            let client = try BlockingWebSocket.connect(to: server.url(), options: options)
            #expect(try client.receive() == .ping(Array("from server".utf8)))
            // The automatic pong went out while receive() ran.
            #expect(serverSaw.take() == .pong(Array("from server".utf8)))
            try client.sendPing([9])
            #expect(try client.receive() == .pong([9]))
            #expect(throws: WebSocketError.connection(.controlPayloadTooLarge)) {
                try client.sendPing([UInt8](repeating: 0, count: 126))
            }
            try client.close()
        }
    }

    @Test("Without receivesControlFrames, pongs are not returned")
    func pongsHidden() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            try client.sendPing([1])
            try client.send(text: "after the ping")
            #expect(try client.receive() == .text("after the ping"))
            try client.close()
        }
    }

    @Test("Close codes from the client", arguments: [
        Connection.CloseFrame(code: .normalClosure), Connection.CloseFrame(code: .goingAway), Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000), reason: "app-specific"),
    ])
    func clientCloses(frame: Connection.CloseFrame) throws {
        let serverStatus = Mailbox<Connection.CloseStatus>()
        try withServer(handler: { socket in
            while (try? socket.receive()) != nil {}
            serverStatus.put(socket.closeStatus ?? Connection.CloseStatus(code: Connection.CloseCode(rawValue: 0), reason: "none", wasClean: false))
        }) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            let status = try client.close(code: frame.code, reason: frame.reason)
            // The server echoes the code (RFC 6455 §5.5.1); the status keeps the first Close frame's.
            #expect(status.code == frame.code)
            #expect(status.wasClean)
            #expect(serverStatus.take() == Connection.CloseStatus(code: frame.code, reason: frame.reason, wasClean: true))
        }
    }

    @Test("Close codes from the server", arguments: [
        Connection.CloseFrame(code: .normalClosure), Connection.CloseFrame(code: .goingAway), Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000), reason: "app-specific"),
    ])
    func serverCloses(frame: Connection.CloseFrame) throws {
        let serverStatus = Mailbox<Connection.CloseStatus>()
        try withServer(handler: { socket in
            if let status = try? socket.close(code: frame.code, reason: frame.reason) { serverStatus.put(status) }
        }) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            #expect(try client.receive() == nil)
            #expect(client.closeStatus == Connection.CloseStatus(code: frame.code, reason: frame.reason, wasClean: true))
            #expect(serverStatus.take()?.wasClean == true)
            #expect(throws: WebSocketError.connection(.closeAlreadySent)) { try client.send(text: "late") }
            // close() after the end is harmless and reports the same status.
            #expect(try client.close() == client.closeStatus)
        }
    }

    @Test("A close code that may not be sent is refused and nothing is sent")
    func invalidCloseCode() throws {
        try withServer { server in
            let client = try BlockingWebSocket.connect(to: server.url(), options: testOptions())
            #expect(throws: WebSocketError.connection(.invalidCloseCode(.abnormalClosure))) {
                try client.close(code: .abnormalClosure)
            }
            try client.send(text: "still open")
            #expect(try client.receive() == .text("still open"))
            try client.close()
        }
    }

    @Test("Extensions pass through the configuration: permessage-deflate negotiated and used")
    func deflate() throws {
        var configuration = testConfiguration()
        configuration.extensions = [PerMessageDeflate()]
        try withServer(configuration: configuration) { server in
            let client = try BlockingWebSocket.connect(to: server.url(), configuration: configuration, options: testOptions())
            #expect(client.handshake.extensions.map(\.name) == ["permessage-deflate"])
            let text = String(repeating: "compressible ", count: 10_000)
            try client.send(text: text)
            #expect(try client.receive() == .text(text))
            try client.send(binary: pattern(100_000))
            #expect(try client.receive() == .binary(pattern(100_000)))
            try client.close()
        }
    }

    @Test("Subprotocol negotiation: the server picks one the client offered")
    func subprotocols() throws {
        try withServer(handshake: { request in
            .accept(subprotocol: request.subprotocols.first { ["chat.v2", "chat.v1"].contains($0) })
        }) { server in
            let both = try BlockingWebSocket.connect(to: server.url(), subprotocols: ["chat.v1", "chat.v2"],
                                                     options: testOptions())
            #expect(both.subprotocol == "chat.v1")
            try both.close()
            let none = try BlockingWebSocket.connect(to: server.url(), subprotocols: ["other"], options: testOptions())
            #expect(none.subprotocol == nil)
            try none.close()
        }
    }

    @Test("A server decision the RFC forbids (a subprotocol not offered) becomes 500")
    func invalidDecision() throws {
        try withServer(handshake: { _ in .accept(subprotocol: "never-offered") }) { server in
            let response = try #require(rejection { try BlockingWebSocket.connect(to: server.url(), options: testOptions()) })
            #expect(response.status == 500)
        }
    }

    @Test("Rejection: 403 with headers and a body, as the client sees it")
    func rejected() throws {
        try withServer(handshake: { request in
            request.head.headers["Authorization"] == "Bearer good"
                ? .accept()
                : .reject(status: 403, headers: ["X-Reason": "token"], body: Array("go away\n".utf8))
        }) { server in
            let response = try #require(rejection { try BlockingWebSocket.connect(to: server.url(), options: testOptions()) })
            #expect(response.status == 403)
            #expect(response.headers["X-Reason"] == "token")
            #expect(response.body == Array("go away\n".utf8))
            #expect(WebSocketError.handshakeFailed(.rejected(response)).description
                == "handshake rejected: HTTP 403 Forbidden: go away")
            let allowed = try BlockingWebSocket.connect(to: server.url(), headers: ["Authorization": "Bearer good"],
                                                        options: testOptions())
            try allowed.close()
        }
    }

    @Test("The server's handshake callback sees the whole request")
    func requestSeen() throws {
        let seen = Mailbox<Connection.HandshakeRequest>()
        try withServer(handshake: { request in
            seen.put(request)
            return .accept(headers: ["X-Server": "posix"])
        }) { server in
            let client = try BlockingWebSocket.connect(to: server.url("/path?q=1"), subprotocols: ["a", "b"],
                                                       headers: ["Origin": "http://example.com", "X-Client": "test"],
                                                       options: testOptions())
            let request = try #require(seen.take())
            #expect(request.resource == "/path?q=1")
            #expect(request.host == "127.0.0.1:\(server.port)")
            #expect(request.origin == "http://example.com")
            #expect(request.subprotocols == ["a", "b"])
            #expect(request.head.headers["X-Client"] == "test")
            #expect(client.handshake.headers["X-Server"] == "posix")
            try client.close()
        }
    }

    @Test("Many clients at once, each on its own server thread")
    func concurrentClients() throws {
        try withServer { server in
            let results = Locked<[Int: Bool]>([:])
            let done = Locked(0)
            for index in 0..<16 {
                try spawnDetachedThread {
                    var ok = false
                    if let client = try? BlockingWebSocket.connect(to: server.url(), options: testOptions()) {
                        let text = "client \(index)"
                        ok = (try? client.send(text: text)) != nil && (try? client.receive()) == .text(text)
                        _ = try? client.close()
                    }
                    results.withLock { $0[index] = ok }
                    done.withLock { $0 += 1 }
                    done.broadcast()
                }
            }
            #expect(done.wait(until: { $0 == 16 }, deadline: now() + .seconds(20), now: now))
            #expect(results.withLock { $0.values.filter { $0 }.count } == 16)
        }
    }
}
