// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

/// A peer that is not a trusted proxy, on a server that takes the PROXY protocol: a header's
/// signature ends the connection; anything else is a direct client's request, whatever its first
/// byte, and reaches the connection whole however it was cut.
@Suite("An untrusted peer: a PROXY signature is refused, a direct client's request goes through whole")
struct UntrustedPeerTests {
    /// A server session for a peer at 127.0.0.1, trusting only 10.0.0.0/8.
    static func session() throws -> SocketSession {
        var transport = TransportOptions()
        transport.proxyProtocol = try TrustedProxies(["10.0.0.0/8"])
        var (session, _) = try SessionRig.accepted(transport: transport)
        session.expectProxyHeader(from: PP.address("127.0.0.1", 50_000), options: transport)
        return session
    }

    /// Feeds `text` in pieces cut at `cuts`, then returns the session.
    static func feed(_ text: [UInt8], cuts: [Int]) throws -> SocketSession {
        var session = try Self.session()
        var start = 0
        for end in cuts + [text.count] where end > start {
            text[start..<end].withUnsafeBytes { session.received($0) }
            start = end
        }
        return session
    }

    static let upgrade = Array("GET /chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8)

    @Test("Version 1 and 2 signatures end the connection, whole or a byte at a time",
          arguments: [Array("PROXY TCP4 203.0.113.7 127.0.0.1 51000 80\r\n".utf8),
                      [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x21, 0x11, 0x00, 0x0C] as [UInt8]])
    func signaturesRefused(header: [UInt8]) throws {
        for cuts in [[], Array(1..<header.count)] {
            let session = try Self.feed(header + Self.upgrade, cuts: cuts)
            guard case .proxyProtocol(let error)? = session.pipeline.failure else {
                Issue.record("not refused: \(String(describing: session.pipeline.failure)), cuts \(cuts.count)")
                continue
            }
            #expect(error.code == .untrustedSource)
        }
    }

    @Test("Requests that begin like a signature (P..., an empty line) reach the connection whole, cut anywhere",
          arguments: ["GET", "POST", "PUT", "PRI", "\r\nGET", "PROX"])
    func directClients(start: String) throws {
        // The request line's method replaced: the connection answers what it is given.
        let request = Array(start.utf8) + Self.upgrade.drop(while: { $0 != UInt8(ascii: " ") })
        for cuts in [[], [1], [2], [3], [4], [5], Array(1..<12)] {
            var session = try Self.feed(request, cuts: cuts)
            #expect(session.pipeline.failure == nil, "\(start) cut at \(cuts)")
            #expect(!session.awaitsProxyHeader)
            // What reached the connection: a GET upgrade (alone or after an empty line) is a
            // handshake request; any other method is answered with an error status.
            let events = session.pipeline.pullEvents()
            if start.hasSuffix("GET") {
                let asked = events.contains { if case .handshakeRequest = $0 { return true } else { return false } }
                #expect(asked, "\(start) cut at \(cuts): \(events)")
            } else {
                let answer = String(decoding: session.pipeline.connection.takeOutput(), as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 4"), "\(start) cut at \(cuts): \(answer) \(events)")
            }
        }
    }
}
