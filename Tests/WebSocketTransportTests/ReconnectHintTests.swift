// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("WebSocketError.isWorthReconnecting: causes that may pass, against refusals that come back")
struct WebSocketErrorReconnectHintTests {
    static func rejected(_ status: Int) -> WebSocketError {
        .handshakeFailed(.rejected(Connection.HTTPResponse(
            head: Connection.HTTPResponseHead(version: Connection.HTTPVersion(major: 1, minor: 1), status: status, reason: "", headers: [:]),
            body: [])))
    }

    @Test("Worth another attempt: timeouts, a cut handshake, 5xx answers, a lost connection")
    func transient() {
        let worth: [WebSocketError] = [
            .timedOut(.connect), .timedOut(.receive), .handshakeFailed(.timedOut), .handshakeFailed(.endOfStream),
            Self.rejected(500), Self.rejected(503), .addressResolutionFailed(host: "example.invalid", reason: "try again"),
            .closed(Connection.CloseStatus(code: .serviceRestart, reason: "", wasClean: true)),
            .closed(Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false)),
        ]
        for error in worth { #expect(error.isWorthReconnecting, "\(error)") }
    }

    @Test("Not worth it: 4xx answers, a bad URL or argument, a normal close, a refused redirect")
    func final() {
        let final: [WebSocketError] = [
            Self.rejected(400), Self.rejected(403), Self.rejected(404), .invalidURL("nope"), .invalidArgument("x"),
            .tlsUnavailable, .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)),
            .tooManyRedirects([]), .cancelled,
        ]
        for error in final { #expect(!error.isWorthReconnecting, "\(error)") }
    }
}
