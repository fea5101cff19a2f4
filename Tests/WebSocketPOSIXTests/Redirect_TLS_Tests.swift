// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketTLS
import TLSTestSupport
import TransportTestSupport
@testable import WebSocketPOSIX

#if os(Linux)
/// Redirects between wss servers with different keys: every hop verifies TLS for its own host with
/// the same trust settings, so a pin refuses a hop to a server whose key it does not name.
@Suite("Redirects over TLS: each hop verified, pins included", .onTestThreads)
struct Redirect_TLS_Tests {
    /// Runs `body` with a wss server using `identity` that redirects every request to `location`
    /// (or, with `nil`, an echo server).
    func withTLSServer(_ identity: TestIdentity, redirectingTo location: String?, _ body: (UInt16) throws -> Void) throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: tlsServerOptions(identity))
        let running = try RunningServer(server, handshake: { _ in
            location.map { .reject(status: 302, headers: ["Location": $0]) } ?? .accept()
        })
        defer { #expect(running.stop()) }
        try body(running.port)
    }

    @Test("A hop from one wss server to another with another key: followed without pins, refused by a pin on the first key")
    func pinnedHop() throws {
        let pki = TestPKI.shared
        try withTLSServer(pki.fromOtherCA, redirectingTo: nil) { targetPort in
            try withTLSServer(pki.server, redirectingTo: "wss://localhost:\(targetPort)/landed") { firstPort in
                let url = "wss://localhost:\(firstPort)/start"
                // Both roots trusted: the hop is followed and verified for its host.
                let open = try BlockingWebSocket.connect(to: url, configuration: testConfiguration(),
                                                         options: tlsClientOptions(trusting: [pki.ca, pki.otherCA]))
                #expect(open.handshake.resource == "/landed")
                try open.close()
                // Pinned to the first server's key: the first hop passes, the second is refused.
                let pinned = try tlsClientOptions(trusting: [pki.ca, pki.otherCA]) { $0.pinnedPublicKeys = [pki.server.pin] }
                let failure = error { try BlockingWebSocket.connect(to: url, configuration: testConfiguration(), options: pinned) }
                guard case .tls(let tlsError)? = failure else { throw TLSTestFailure("got \(String(describing: failure))") }
                #expect(tlsError.kind == .pinMismatch)
            }
        }
    }

    @Test("wss to ws is refused even when the ws server is there")
    func downgradeRefused() throws {
        try withServer { plain in
            try withTLSServer(TestPKI.shared.server, redirectingTo: plain.url("/plain")) { port in
                let failure = error {
                    try BlockingWebSocket.connect(to: "wss://localhost:\(port)/", configuration: testConfiguration(),
                                                  options: tlsClientOptions())
                }
                guard case .redirectRefused(let redirect, _)? = failure else {
                    throw TLSTestFailure("got \(String(describing: failure))")
                }
                #expect(redirect.isDowngrade)
            }
        }
    }
}
#endif
