// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

@Suite("The blocking server's lifetime and idle limits: the same session decides them as for the non-blocking one")
struct LifetimeLimits_Tests {
    @Test("A silent client of an echo handler is closed with 1001 \"idle timeout\"; one past its lifetime with \"connection lifetime reached\"")
    func limits() throws {
        for (limits, reason) in [(LifetimeLimits(idleTimeout: .milliseconds(300)), "idle timeout"),
                                 (LifetimeLimits(maxLifetime: .milliseconds(300)), "connection lifetime reached")] {
            var options = serverOptions()
            options.lifetimeLimits = limits
            let server = try BlockingWebSocketServer(configuration: testConfiguration(), options: options)
            let running = try RunningServer(server, handshake: { _ in .accept() }, handler: { socket in echo(socket) })
            defer { #expect(running.stop()) }
            let client = try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(server.port)/", options: testOptions())
            while try client.receive() != nil {}
            #expect(client.closeStatus?.code == .goingAway, "\(String(describing: client.closeStatus))")
            #expect(client.closeStatus?.reason == reason, "\(String(describing: client.closeStatus))")
        }
    }
}
