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
@testable import WebSocketPOSIX


/// Socket options for tests: every wait bounded, so that a broken test fails instead of hanging,
/// and generous, so that a loaded machine (busy cores, ThreadSanitizer) does not fail one that works.
func testOptions(receiveTimeout: Duration? = .seconds(60)) -> TransportOptions {
    var options = TransportOptions()
    options.receiveTimeout = receiveTimeout
    options.connectTimeout = .seconds(60)
    options.writeTimeout = .seconds(60)
    return options
}

/// Socket options for a test server's connections: no receive timeout (a loaded machine must not
/// make the server hang up); ``RunningServer/stop(closing:)`` ends them.
func serverOptions() -> TransportOptions { testOptions(receiveTimeout: nil) }

/// A configuration whose timers are failure bounds only (a test of a timer sets its own).
func testConfiguration(maxMessageSize: Int? = nil) -> Connection.Configuration {
    var configuration = Connection.Configuration()
    configuration.timeouts.handshake = .seconds(60)
    configuration.timeouts.close = .seconds(60)
    if let maxMessageSize {
        configuration.limits.maxMessageSize = maxMessageSize
        configuration.limits.maxFrameSize = maxMessageSize
    }
    return configuration
}

/// Echoes text as text and binary as binary until the connection ends.
@Sendable func echo(_ socket: BlockingWebSocket) {
    while let message = try? socket.receive() {
        switch message {
        case .text(let text): try? socket.send(text: text)
        case .binary(let bytes): try? socket.send(binary: bytes)
        case .fragment, .ping, .pong, .close: break
        }
    }
}

/// A server running `serve` on its own thread, stopped (and waited for) by ``stop()``.
final class RunningServer: Sendable {
    let server: BlockingWebSocketServer
    private let finished = Locked(false)

    init(_ server: BlockingWebSocketServer,
         handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
         handler: @escaping @Sendable (BlockingWebSocket) -> Void = echo) throws {
        self.server = server
        let finished = self.finished
        try spawnDetachedThread {
            try? server.serve(handshake: handshake, handler: handler)
            finished.withLock { $0 = true }
            finished.broadcast()
        }
    }

    var port: UInt16 { server.port }

    /// The `ws://` URL of `resource` on this server (TCP servers).
    func url(_ resource: String = "/") -> String {
        let address = server.localAddress
        let host = address.family == .ipv6 ? "[\(address.host ?? "")]" : (address.host ?? "")
        return "ws://\(host):\(port)\(resource)"
    }

    /// Stops the server and waits (10 seconds at most) for `serve` to return.
    @discardableResult
    func stop(code: Connection.CloseCode = .goingAway) -> Bool {
        server.stop(closing: code)
        return finished.wait(until: { $0 }, deadline: now() + .seconds(10), now: now)
    }
}

/// Runs `body` with an echo server (or `handler`) on 127.0.0.1, then stops it.
func withServer<Result>(host: String = "127.0.0.1", configuration: Connection.Configuration = testConfiguration(),
                        options: TransportOptions = serverOptions(),
                        handshake: @escaping @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { _ in .accept() },
                        handler: @escaping @Sendable (BlockingWebSocket) -> Void = echo,
                        _ body: (RunningServer) throws -> Result) throws -> Result {
    let server = try BlockingWebSocketServer(host: host, port: 0, configuration: configuration, options: options)
    let running = try RunningServer(server, handshake: handshake, handler: handler)
    defer { #expect(running.stop(), "serve() did not return after stop()") }
    return try body(running)
}

/// Whether this machine has an IPv6 loopback (`::1`) to bind to.
let hasIPv6Loopback: Bool = {
    guard case .success(let addresses) = AddressResolution.resolve(host: "::1", port: 0, passive: true),
          let address = addresses.first else { return false }
    return (try? Socket.listening(on: address, backlog: 1, system: .live)) != nil
}()

/// A unique path for a Unix socket in the temporary directory.
func temporarySocketPath(_ name: String) -> String {
    "/tmp/wsposix-\(getpid())-\(name)-\(UInt32.random(in: 0...UInt32.max)).sock"
}

/// The error `body` throws; `nil` (and a recorded issue) when it returns.
func error<Value>(_ body: () throws -> Value,
                  sourceLocation: SourceLocation = #_sourceLocation) -> WebSocketError? {
    do {
        _ = try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch let error as WebSocketError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The refusing response a connect reports; `nil` (and a recorded issue) for anything else.
func rejection(_ body: () throws -> BlockingWebSocket,
               sourceLocation: SourceLocation = #_sourceLocation) -> Connection.HTTPResponse? {
    let thrown = error(body, sourceLocation: sourceLocation)
    switch thrown {
    case .handshakeFailed(let failure)? where failure.rejected != nil: return failure.rejected
    case let other:
        Issue.record("expected a rejection, got \(String(describing: other))", sourceLocation: sourceLocation)
        return nil
    }
}
