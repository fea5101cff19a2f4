// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The one-line descriptions adapters log and the command-line tool prints (Descriptions.swift):
/// what each says, and that a peer's bytes show only as printable characters.
@Suite("Descriptions of close statuses, handshake failures and violations")
struct DescriptionTests {
    @Test("CloseStatus: code, its name, the peer's reason quoted, the failure said in words", arguments: [
        (Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true), "1000 (normal closure)"),
        (Connection.CloseStatus(code: Connection.CloseCode(rawValue: 4000), reason: "bye", wasClean: true), "4000 \"bye\""),
        (Connection.CloseStatus(code: .goingAway, reason: "tab\tclosed\u{7}", wasClean: true), "1001 (going away) \"tabclosed\""),
        (Connection.CloseStatus(code: .abnormalClosure, reason: "connection closed without a close frame", wasClean: false,
                     failure: .unexpectedEndOfStream),
         "1006 (abnormal closure): connection lost without a close frame"),
        (Connection.CloseStatus(code: .abnormalClosure, reason: "keepalive timeout", wasClean: false, failure: .keepaliveTimeout),
         "1006 (abnormal closure): keepalive timeout"),
        (Connection.CloseStatus(code: .abnormalClosure, reason: "close handshake timed out", wasClean: false, failure: .closeTimeout),
         "1006 (abnormal closure): closing handshake timed out"),
        (Connection.CloseStatus(code: .abnormalClosure, reason: "aborted", wasClean: false, failure: .aborted),
         "1006 (abnormal closure): connection aborted"),
        (Connection.CloseStatus(code: .invalidPayloadData, reason: "invalid UTF-8 in text message", wasClean: false,
                     failure: .protocolViolation(Connection.ProtocolViolation(.invalidUTF8))),
         "1007 (invalid payload data): peer violated the protocol: invalid UTF-8 in text message"),
    ])
    func closeStatus(status: Connection.CloseStatus, expected: String) {
        #expect(status.description == expected)
    }

    @Test("The status a real connection ends with reads as the README shows it")
    func statusOfARealClose() throws {
        var (client, server) = try openPair()
        try client.close()
        let events = pump(&client, into: &server)
        guard case .closed(let status)? = events.last else { throw TestFailure("\(events)") }
        #expect("\(status)" == "1000 (normal closure)")
    }

    @Test("Every registered close code has its name; unregistered and private codes have none", arguments: [
        (1000, "normal closure"), (1001, "going away"), (1002, "protocol error"), (1003, "unsupported data"),
        (1005, "no status code"), (1006, "abnormal closure"), (1007, "invalid payload data"),
        (1008, "policy violation"), (1009, "message too big"), (1010, "mandatory extension"),
        (1011, "internal error"), (1012, "service restart"), (1013, "try again later"), (1014, "bad gateway"),
        (1015, "TLS handshake failure"),
    ] as [(UInt16, String)])
    func closeCodeNames(code: UInt16, name: String) {
        #expect(Connection.CloseCode(rawValue: code).name == name)
        #expect(Connection.CloseCode(rawValue: code) == Connection.CloseCode(rawValue: code))
    }

    @Test("Codes without a name", arguments: [1004, 1016, 2999, 3000, 4000, 4999] as [UInt16])
    func unnamedCodes(code: UInt16) {
        #expect(Connection.CloseCode(rawValue: code).name == nil)
        #expect(Connection.CloseStatus(code: Connection.CloseCode(rawValue: code), reason: "", wasClean: true).description == "\(code)")
    }

    @Test("HandshakeFailure: each case in one line", arguments: [
        (Connection.HandshakeFailure.invalidResponse(.invalidAccept), "invalid handshake response: wrong or missing Sec-WebSocket-Accept"),
        (.invalidRequest(.missingUpgrade), "invalid handshake request: Upgrade: websocket required"),
        (.timedOut, "opening handshake timed out"),
        (.endOfStream, "connection closed during the opening handshake"),
    ])
    func handshakeFailure(failure: Connection.HandshakeFailure, expected: String) {
        #expect(failure.description == expected)
    }

    @Test("ProtocolViolation: its reason and the code it closes with")
    func protocolViolation() {
        #expect(Connection.ProtocolViolation(.invalidUTF8).description == "invalid UTF-8 in text message (1007)")
        #expect(Connection.ProtocolViolation(.frameTooLarge).description == "frame too large (1009)")
        #expect(Connection.ProtocolViolation(.unknownOpcode(3)).description == "unknown opcode 3 (1002)")
    }

    @Test("ExtensionNegotiationError describes itself by its reason")
    func extensionNegotiationError() {
        #expect(Connection.ExtensionNegotiationError("server_max_window_bits out of range").description == "server_max_window_bits out of range")
    }
}
