// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketPOSIX

/// A burst of clients at once against the blocking server: every client gets a working connection,
/// none a 101 followed by a drop, and every descriptor comes back.
@Suite("Bursts of clients against the blocking server", .serialized, .timeLimit(.minutes(5)), .onTestThreads)
struct BurstTests {
    @Test("Every client of a burst is served", arguments: [200, 1000])
    func burst(clients: Int) throws {
        raiseDescriptorLimit()
        let faults = Faults()  // no faults: it counts the descriptors of the server and its clients
        var configuration = testConfiguration()
        // Bounds for hangs only: a loaded machine must not turn slowness into failures.
        configuration.timeouts.handshake = .seconds(90)
        configuration.timeouts.close = .seconds(30)
        var options = testOptions(receiveTimeout: .seconds(90))
        options.connectTimeout = .seconds(90)
        let (clientConfiguration, clientOptions) = (configuration, options)
        let outcomes = Locked<[String]>([])
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Errno.addressNotAvailable
        }
        do {
            // In this scope, so that the server (and its wake-up pipe) is gone before the count.
            let listening = try BlockingWebSocketServer(addresses: addresses, unixSocketPath: nil, configuration: configuration,
                                                        options: serverOptions(), backlog: 1024, system: faults.system)
            let server = try RunningServer(listening)
            defer { #expect(server.stop()) }
            let endpoint = try WebSocketEndpoint(parsing: server.url())
            let system = faults.system
            for index in 0..<clients {
                try spawnDetachedThread {
                    let outcome: String
                    do {
                        let socket = try BlockingWebSocket.connect(to: endpoint, subprotocols: [], headers: [:],
                                                                   configuration: clientConfiguration,
                                                                   options: clientOptions, system: system)
                        try socket.send(text: "client \(index)")
                        let echo = try socket.receive()
                        let status = try socket.close()
                        outcome = echo == .text("client \(index)") && status.wasClean ? "echoed" : "closed \(status)"
                    } catch {
                        outcome = "\(error)"
                    }
                    outcomes.withLock { $0.append(outcome) }
                    outcomes.broadcast()
                }
            }
            let finished = outcomes.wait(until: { $0.count == clients }, deadline: now() + .seconds(150), now: now)
            #expect(finished, "\(outcomes.withLock { $0.count }) of \(clients) finished")
        }
        let seen = outcomes.withLock { $0 }
        #expect(seen.filter { $0 == "echoed" }.count == clients, "\(Set(seen))")
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }
}
