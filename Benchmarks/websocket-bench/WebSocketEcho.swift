// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import EchoServerSupport
import WebSocketCore
import WebSocketPOSIX

/// Ours: a `BlockingWebSocketServer` on 127.0.0.1 that echoes binary messages (one thread per
/// connection), and `BlockingWebSocket` clients, both with their default configuration
/// (`TCP_NODELAY` on).
final class WebSocketEcho: EchoSystem {
    let server: BlockingWebSocketServer
    let serving: JoinableThread
    let url: String
    let payload: [UInt8]
    let clientOptions: TransportOptions

    /// - Parameters:
    ///   - tls: `wss://`, with the TLS workloads' contexts (``BenchTLS``).
    ///   - clientTLS: the client's context instead of ``BenchTLS/client`` (one that resumes sessions).
    init(size: Int, tls: Bool = false, clientTLS: (any TLSLayerFactory)? = nil) {
        do throws(WebSocketError) {
            var serverOptions = TransportOptions()
            if tls { serverOptions.tls = BenchTLS.server }
            server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, options: serverOptions)
        } catch {
            fail("WebSocket echo server: \(error)")
        }
        url = tls ? "wss://localhost:\(server.port)/echo" : "ws://127.0.0.1:\(server.port)/echo"
        payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var options = TransportOptions()
        options.receiveTimeout = .seconds(10)  // a lost echo ends the benchmark instead of hanging it
        if tls { options.tls = clientTLS ?? BenchTLS.client }
        clientOptions = options
        let server = self.server
        serving = JoinableThread {
            do throws(WebSocketError) {
                try server.serve { socket in
                    while let message = try? socket.receive() {
                        if case .binary(let bytes) = message { try? socket.send(binary: bytes) }
                    }
                }
            } catch {
                fail("WebSocket echo server: \(error)")
            }
        }
    }

    func connect() -> BlockingWebSocket {
        do throws(WebSocketError) {
            return try BlockingWebSocket.connect(to: url, options: clientOptions)
        } catch {
            fail("WebSocket echo client: \(error)")
        }
    }

    func roundTrip(_ client: BlockingWebSocket) {
        do throws(WebSocketError) {
            try client.send(binary: payload)
            guard case .binary(let echo)? = try client.receive(), echo.count == payload.count else {
                fail("WebSocket echo client: no echo (closed: \(String(describing: client.closeStatus)))")
            }
        } catch {
            fail("WebSocket echo client: \(error)")
        }
    }

    func close(_ client: BlockingWebSocket) {
        _ = try? client.close()
    }

    func stop() {
        server.stop()
        serving.join()
    }
}
