// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore

// The errors are structs over internal enums so that a case can be added without breaking a user's
// exhaustive switch. These tests use only the public surface, as an application would: building,
// comparing, matching in `switch` and `catch`, and reading what a case carries.
@Suite("Error values: built, compared, matched and read through public members only")
struct ErrorValueTests {
    @Test("A payload-free member matches in a switch, and a thrown error matches in catch")
    func matching() {
        let error = Connection.UsageError.notOpen
        switch error {
        case .closeAlreadySent: Issue.record("matched the wrong member")
        case .notOpen: break
        default: Issue.record("no member matched")
        }
        do {
            throw Connection.UsageError.outputBufferFull
        } catch Connection.UsageError.notOpen {
            Issue.record("caught as the wrong member")
        } catch Connection.UsageError.outputBufferFull {
            // expected
        } catch {
            Issue.record("not caught as outputBufferFull: \(error)")
        }
    }

    @Test("What a case carries reads back through its property, nil for any other case")
    func payloads() {
        let code = Connection.CloseCode(rawValue: 1006)
        let error = Connection.UsageError.invalidCloseCode(code)
        #expect(error.invalidCloseCode == code)
        #expect(error.subprotocolNotOffered == nil)
        #expect(error != .invalidCloseCode(.normalClosure))
        #expect(error == .invalidCloseCode(Connection.CloseCode(rawValue: 1006)))

        let response = Connection.HTTPResponse(head: Connection.HTTPResponseHead(version: Connection.HTTPVersion(major: 1, minor: 1),
                                                                           status: 403, reason: "Forbidden", headers: [:]),
                                               body: [])
        let failure = Connection.HandshakeFailure.rejected(response)
        #expect(failure.rejected == response)
        #expect(failure.invalidResponse == nil)
        #expect(Connection.HandshakeFailure.invalidResponse(.invalidAccept).invalidResponse == .invalidAccept)

        #expect(Connection.HandshakeError.methodNotAllowed("PUT").methodNotAllowed == "PUT")
        #expect(Connection.HandshakeError.methodNotAllowed("PUT").httpStatus == 405)
        #expect(WebSocketURLError.invalidPort("x").invalidPort == "x")
        #expect(WebSocketURLError.invalidPort("x").portOutOfRange == nil)

        let kind = Connection.ProtocolViolation.Kind.unknownOpcode(3)
        #expect(kind.unknownOpcode == 3)
        #expect(kind.invalidCloseCode == nil)
        let violation = Connection.ProtocolViolation(kind)
        let failed = Connection.CloseStatus.Failure.protocolViolation(violation)
        #expect(failed.protocolViolation == violation)
        #expect(Connection.CloseStatus.Failure.aborted.protocolViolation == nil)
    }

    @Test("Errors thrown by the connection match the public members")
    func thrownByTheConnection() throws {
        var client = try Connection(role: .client(Connection.ClientOptions(url: try WebSocketURL(parsing: "ws://example.com/"))))
        do {
            try client.send(text: "too early")
            Issue.record("sent before the handshake")
        } catch .notOpen {
            // expected: typed throws give the member directly
        } catch {
            Issue.record("unexpected \(error)")
        }
        do {
            _ = try WebSocketURL(parsing: "http://example.com/")
            Issue.record("parsed an http URL")
        } catch {
            #expect(error.unsupportedScheme == "http")
        }
    }
}
