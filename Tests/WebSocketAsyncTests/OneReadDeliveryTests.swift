// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketAsync
import WebSocketCore
import WebSocketTransport

/// A read that holds many messages is served with the face's handler taken out once for the whole
/// read (`EventHandlerBox`): every message of it still reaches that handler, whole and in order,
/// with the control frames between them answered where they stand. The loop handler's read takes
/// whole messages by the short pull and hands the rest of a read to the general loop at the first
/// message that pull does not take (a ping, a fragmented message): the burst mixes them.
@Suite("Many messages in one read: each to the loop face's handler, in order")
struct OneReadDeliveryTests {
    enum Face: String, CaseIterable, CustomTestStringConvertible {
        case loopHandler, lendingHandler
        var testDescription: String { rawValue }
    }

    @Test(
        "Text and binary messages written in one burst, with pings and fragmented messages between them, all echoed in order",
        arguments: Face.allCases)
    func burstEchoedInOrder(face: Face) async throws {
        let log = EventLog()
        let server: WebSocketServer
        switch face {
        case .lendingHandler:
            server = try LendingFaceTests.echoServer(log: log)
        case .loopHandler:
            server = try WebSocketServer(
                addresses: Socket.listenAddresses(host: "127.0.0.1", port: 0), unixSocketPath: nil,
                backlog: 16, configuration: testConfiguration(), options: testOptions(), loops: 1,
                handshake: nil,
                face: .loopHandler({ socket, event in
                    switch event {
                    case .message(.binary(let bytes)): try? socket.send(binary: bytes)
                    case .message(.text(let text)): try? socket.send(text: text)
                    default: log.append(event)
                    }
                }))
        }
        defer { server.stop() }
        let sent: [WebSocketMessage] = (0..<120).map { index in
            index % 3 == 0
                ? .text("message \(index) " + String(repeating: "ü", count: index % 40))
                : .binary(payload([0, 1, 125, 126, 300][index % 5], seed: UInt8(truncatingIfNeeded: index)))
        }
        let outcome: String? = await blocking {
            do {
                var client = try LendingFaceTests.RawClient(port: server.port)
                for (index, message) in sent.enumerated() {
                    if index % 11 == 5 {
                        // In three fragments, cut within the text's ASCII start.
                        let (bytes, kind): ([UInt8], Connection.MessageKind) = switch message {
                        case .text(let text): (Array(text.utf8), .text)
                        case .binary(let bytes): (bytes, .binary)
                        default: ([], .binary)
                        }
                        let cuts = [0, min(3, bytes.count), min(7, bytes.count), bytes.count]
                        for part in 0..<3 {
                            try client.connection.sendFragment(bytes[cuts[part]..<cuts[part + 1]], kind: kind, isFinal: part == 2)
                        }
                    } else {
                        try client.connection.send(message)
                    }
                    if index % 7 == 0 { try client.connection.ping([UInt8(truncatingIfNeeded: index)]) }
                }
                // One write of all of it: the server's reads each hold many messages.
                let burst = client.connection.takeOutput()
                client.socket.write(burst)
                for (index, message) in sent.enumerated() {
                    let echoed = try client.roundTrip(nil)
                    guard echoed == message else { return "echo \(index) is \(echoed), not \(message)" }
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome == nil)
        try await log.wait(for: "the opening") { $0.contains { if case .open = $0 { true } else { false } } }
    }
}
