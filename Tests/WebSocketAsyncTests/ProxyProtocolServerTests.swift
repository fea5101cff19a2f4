// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

@Suite("A server behind a load balancer: PROXY protocol headers from trusted proxies only")
struct ProxyProtocolServerTests {
    /// A server trusting `trusted` for PROXY headers; the client address of each connection that
    /// opens, as the socket reports it, goes to `addresses`.
    static func server(trusting trusted: [String], addresses: Locked<[String]>) throws -> WebSocketServer {
        var options = testOptions()
        options.proxyProtocol = try TrustedProxies(trusted)
        return try WebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(), options: options) { socket, event in
            switch event {
            case .open: addresses.withLock { $0.append(socket.clientAddress?.description ?? "none") }
            case .message(let message): try? socket.send(message)
            default: break
            }
        }
    }

    /// Sends `prefix`, then a client's opening handshake, in `pieces` writes; returns whether the
    /// server answered 101 and echoed a message (false: it closed the connection without a byte).
    static func connect(port: UInt16, prefix: [UInt8], pieces: Int = 1) async -> Bool {
        await blocking {
            do {
                let socket = try RawSocket.connect(port: port)
                var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
                let bytes = prefix + client.takeOutput()
                let size = max(1, bytes.count / pieces)
                var start = 0
                while start < bytes.count {
                    socket.write(Array(bytes[start..<min(bytes.count, start + size)]))
                    start += size
                }
                var opened = false
                while true {
                    guard let read = socket.read(timeout: Harness.patience), !read.isEmpty else { return false }
                    client.receive(read)
                    while let event = client.nextEvent() {
                        switch event {
                        case .handshakeCompleted:
                            opened = true
                            try client.send(text: "through the balancer")
                            socket.write(client.takeOutput())
                        case .text(let text):
                            socket.close()
                            return opened && text == "through the balancer"
                        default: break
                        }
                    }
                }
            } catch {
                return false
            }
        }
    }

    static let v1: [UInt8] = Array("PROXY TCP4 203.0.113.7 127.0.0.1 51000 80\r\n".utf8)

    /// A version 2 PROXY header: TCP over IPv4, from 198.51.100.9:40000 to 127.0.0.1:443.
    static let v2: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x21, 0x11, 0x00, 12,
                              198, 51, 100, 9, 127, 0, 0, 1, 0x9C, 0x40, 0x01, 0xBB]

    @Test("From a trusted proxy: the header's client address, versions 1 and 2, whole or in pieces")
    func trustedProxy() async throws {
        let addresses = Locked<[String]>([])
        let server = try Self.server(trusting: ["127.0.0.0/8"], addresses: addresses)
        defer { server.stop() }
        #expect(await Self.connect(port: server.port, prefix: Self.v1))
        #expect(await Self.connect(port: server.port, prefix: Self.v2))
        #expect(await Self.connect(port: server.port, prefix: Self.v1, pieces: 40))
        #expect(await Self.connect(port: server.port, prefix: Self.v2, pieces: 30))
        #expect(addresses.withLock { $0 } == ["203.0.113.7:51000", "198.51.100.9:40000", "203.0.113.7:51000", "198.51.100.9:40000"])
    }

    @Test("From a trusted proxy, a missing or malformed header ends the connection before any WebSocket byte")
    func trustedProxyWithoutAHeader() async throws {
        let addresses = Locked<[String]>([])
        let server = try Self.server(trusting: ["127.0.0.1"], addresses: addresses)
        defer { server.stop() }
        #expect(await Self.connect(port: server.port, prefix: []) == false)
        #expect(await Self.connect(port: server.port, prefix: Array("PROXY TCP4 203.0.113.007 127.0.0.1 1 2\r\n".utf8)) == false)
        var badLength = Self.v2
        badLength[15] = 11   // a length that does not fit the IPv4 addresses
        #expect(await Self.connect(port: server.port, prefix: badLength) == false)
        #expect(addresses.withLock { $0 }.isEmpty)
        // The server goes on.
        #expect(await Self.connect(port: server.port, prefix: Self.v1))
    }

    @Test("From a peer not trusted: a PROXY header ends the connection, a direct client is served with its own address")
    func untrustedPeer() async throws {
        let addresses = Locked<[String]>([])
        let server = try Self.server(trusting: ["10.0.0.0/8", "fd00::/8"], addresses: addresses)
        defer { server.stop() }
        #expect(await Self.connect(port: server.port, prefix: Self.v1) == false)
        #expect(await Self.connect(port: server.port, prefix: Self.v2) == false)
        #expect(await Self.connect(port: server.port, prefix: []))
        let seen = addresses.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.hasPrefix("127.0.0.1:") == true)
    }
}
