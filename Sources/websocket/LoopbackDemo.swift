// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import WebSocketCore
import WebSocketPOSIX

/// The same protocol over real sockets: a `BlockingWebSocketServer` on 127.0.0.1 (a free port) and a
/// `BlockingWebSocket` client, in one process.
enum LoopbackDemo {
    static func run() {
        print("\n── the same over real sockets (WebSocketPOSIX, 127.0.0.1) " + String(repeating: "─", count: 24))
        do throws(WebSocketError) {
            let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0)
            let stopped = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { @Sendable in
                try? server.serve { socket in
                    while case .text(let text)? = try? socket.receive() { try? socket.send(text: "echo: " + text) }
                }
                stopped.signal()
            }
            print("  server listening on \(ServeCommand.url(of: server.localAddress))")
            let client = try BlockingWebSocket.connect(to: ServeCommand.url(of: server.localAddress))
            print("  client connected from \(client.localAddress.map { "\($0)" } ?? "?")")
            try client.send(text: "hello over TCP")
            if case .text(let reply)? = try client.receive() { print("  client received \"\(reply)\"") }
            let status = try client.close()
            print("  client closed: \(describe(status)), clean \(status.wasClean)")
            server.stop()
            stopped.wait()
        } catch {
            print("  loopback demo skipped: \(error)")
        }
    }
}
