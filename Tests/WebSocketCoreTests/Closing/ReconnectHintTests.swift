// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("CloseStatus.isWorthReconnecting: lost connections and the peer's try-again codes")
struct ReconnectHintTests {
    static func clean(_ code: UInt16) -> Connection.CloseStatus {
        Connection.CloseStatus(code: Connection.CloseCode(rawValue: code), reason: "", wasClean: true)
    }

    @Test("Clean closes with 1001, 1011, 1012, 1013 and 1014 are worth another connection", arguments: [1001, 1011, 1012, 1013, 1014] as [UInt16])
    func peerSaysTryAgain(code: UInt16) {
        #expect(Self.clean(code).isWorthReconnecting)
    }

    @Test("A normal close, the peer's refusals and application codes are not", arguments: [1000, 1002, 1003, 1007, 1008, 1009, 1010, 3000, 4000, 4999] as [UInt16])
    func peerMeantIt(code: UInt16) {
        #expect(!Self.clean(code).isWorthReconnecting)
    }

    @Test("Lost connections are: no Close (1006), close and keepalive timeouts, the stream cut")
    func lost() {
        #expect(Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false).isWorthReconnecting)
        for failure in [Connection.CloseStatus.Failure.closeTimeout, .keepaliveTimeout, .unexpectedEndOfStream] {
            #expect(Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: failure).isWorthReconnecting)
        }
    }

    @Test("A protocol violation (it would happen again) and a close this side aborted are not")
    func notAgain() {
        let violation = Connection.ProtocolViolation(.invalidUTF8)
        #expect(!Connection.CloseStatus(code: violation.closeCode, reason: "", wasClean: false,
                                        failure: .protocolViolation(violation)).isWorthReconnecting)
        #expect(!Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: .aborted).isWorthReconnecting)
    }
}
