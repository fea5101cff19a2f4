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
@testable import WebSocketAsync

@Suite("Socket addresses", .timeLimit(.minutes(3)))
struct AddressTests {
    @Test("remoteAddress and localAddress: both ends agree, on the loop and off it, and after the end")
    func addressesAgree() async throws {
        let accepted = Mailbox<WebSocket>()
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: Harness.configuration(),
                                         options: Harness.options()) { socket, event in
            if case .open = event { accepted.put(socket) }
        }
        defer { server.stop() }
        let client = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                 options: Harness.options())
        let serverSide = try #require(try await Harness.offPool { accepted.take(timeout: Harness.patience) })
        let clientRemote = try #require(client.remoteAddress)
        let clientLocal = try #require(client.localAddress)
        #expect(clientRemote == serverSide.localAddress)
        #expect(clientLocal == serverSide.remoteAddress)
        #expect("\(clientRemote)" == "127.0.0.1:\(server.port)")
        // On the socket's own loop: the same answers.
        let onLoop = await withCheckedContinuation { continuation in
            client.loop.execute { continuation.resume(returning: (client.remoteAddress, client.localAddress)) }
        }
        #expect(onLoop.0 == clientRemote && onLoop.1 == clientLocal)
        _ = try await client.close()
        // Known before the end, kept after it.
        #expect(client.remoteAddress == clientRemote)
    }

    /// Code on two loops (a handler's place), running at once, asks for the addresses of the other
    /// loop's socket. Asking must not wait for the other loop: each loop is busy in that code, so
    /// two loops waiting for each other would never answer. The two loops are the test's own, which
    /// it may hold as long as it takes both to be in there at once.
    @Test("Two loops asking at once for the addresses of each other's sockets are answered")
    func loopsAskAcrossLoops() async throws {
        let loops = [try Harness.privateLoop(), try Harness.privateLoop()]
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: Harness.configuration(),
                                         options: Harness.options()) { _, _ in }
        defer { server.stop() }
        let url = Harness.url("127.0.0.1", server.port)
        let first = try await WebSocket.connect(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port)),
                                                via: WebSocketEndpoint(parsing: url), configuration: Harness.configuration(),
                                                options: Harness.options(), system: .live, loop: loops[0])
        let second = try await WebSocket.connect(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: server.port)),
                                                 via: WebSocketEndpoint(parsing: url), configuration: Harness.configuration(),
                                                 options: Harness.options(), system: .live, loop: loops[1])
        let inside = Locked(0)
        let answers = Locked<[String]>([])
        for (loop, other) in [(loops[0], second), (loops[1], first)] {
            loop.execute {
                // Both loops are in here at once before either asks.
                inside.withLock { $0 += 1 }
                inside.broadcast()
                _ = inside.wait(until: { $0 == 2 }, deadline: now() + Harness.patience, now: now)
                let answer = "\(other.remoteAddress.map { "\($0)" } ?? "nil") \(other.localAddress == nil ? "nil" : "known")"
                answers.withLock { $0.append(answer) }
                answers.broadcast()
            }
        }
        let answered = try await Harness.offPool {
            answers.wait(until: { $0.count == 2 }, deadline: now() + Harness.patience, now: now)
        }
        #expect(answered, "not answered: the loops waited for each other")
        #expect(answers.withLock { $0 } == Array(repeating: "127.0.0.1:\(server.port) known", count: 2))
        first.cancel()
        second.cancel()
    }

    @Test("TCP_NODELAY on both ends of a TCP connection by default, on neither with noDelay off", arguments: [true, false])
    func noDelay(_ noDelay: Bool) async throws {
        var options = Harness.options()
        options.noDelay = noDelay
        let accepted = Mailbox<WebSocket>()
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: Harness.configuration(), options: options) { socket, event in
            if case .open = event { accepted.put(socket) }
        }
        defer { server.stop() }
        let client = try await WebSocket.connect(to: Harness.url("127.0.0.1", server.port), configuration: Harness.configuration(),
                                                 options: options)
        let serverSide = try #require(try await Harness.offPool { accepted.take(timeout: Harness.patience) })
        for socket in [client, serverSide] {
            let value = await withCheckedContinuation { continuation in
                socket.loop.execute {
                    var value: Int32 = -1
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    if let descriptor = socket.socket?.descriptor {
                        _ = getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length)
                    }
                    continuation.resume(returning: value)
                }
            }
            #expect((value != 0) == noDelay, "TCP_NODELAY is \(value)")
        }
        _ = try await client.close()
    }

}
