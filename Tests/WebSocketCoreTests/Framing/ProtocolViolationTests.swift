// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// Every way a peer can break RFC 6455 §5, with the close code the connection must send.
@Suite("Protocol violations (§5, §7.1.7, §7.4, §8.1)")
struct ProtocolViolationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var toServer: Bool
        var bytes: [UInt8]
        var kind: Connection.ProtocolViolation.Kind
        var code: UInt16
        var testDescription: String { name }
    }

    static var longLength: [UInt8] { [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 1, 2, 3, 4] }

    static let cases: [Case] = [
        Case(name: "RSV1 without extension", toServer: true, bytes: clientFrame(0x1, [0x41], rsv: 0x40), kind: .reservedBitsSet, code: 1002),
        Case(name: "RSV2", toServer: true, bytes: clientFrame(0x2, [], rsv: 0x20), kind: .reservedBitsSet, code: 1002),
        Case(name: "RSV3 on a ping", toServer: false, bytes: frame(0x9, [], rsv: 0x10), kind: .reservedBitsSet, code: 1002),
        Case(name: "opcode 3", toServer: true, bytes: clientFrame(0x3, []), kind: .unknownOpcode(3), code: 1002),
        Case(name: "opcode 0xB", toServer: false, bytes: frame(0xB, []), kind: .unknownOpcode(0xB), code: 1002),
        Case(name: "unmasked client frame", toServer: true, bytes: frame(0x1, [0x41]), kind: .unmaskedFrame, code: 1002),
        Case(name: "masked server frame", toServer: false, bytes: frame(0x1, [0x41], key: [1, 2, 3, 4]), kind: .maskedFrame, code: 1002),
        Case(name: "64-bit length with the top bit set", toServer: true, bytes: longLength, kind: .invalidLength, code: 1002),
        Case(name: "fragmented ping", toServer: true, bytes: clientFrame(0x9, [], fin: false), kind: .fragmentedControlFrame, code: 1002),
        Case(name: "126-byte ping", toServer: true, bytes: clientFrame(0x9, [UInt8](repeating: 0, count: 126)), kind: .controlFrameTooLarge, code: 1002),
        Case(name: "126-byte close", toServer: false, bytes: frame(0x8, [0x03, 0xE8] + [UInt8](repeating: 0x41, count: 124)), kind: .controlFrameTooLarge, code: 1002),
        Case(name: "continuation with nothing to continue", toServer: true, bytes: clientFrame(0x0, [0x41]), kind: .unexpectedContinuation, code: 1002),
        Case(name: "new message inside a fragmented one", toServer: true,
             bytes: clientFrame(0x1, [0x41], fin: false) + clientFrame(0x1, [0x42]), kind: .expectedContinuation, code: 1002),
        Case(name: "invalid UTF-8 in one frame", toServer: true, bytes: clientFrame(0x1, [0x41, 0xFF]), kind: .invalidUTF8, code: 1007),
        Case(name: "text ending inside a sequence", toServer: false, bytes: frame(0x1, [0xE2, 0x82]), kind: .invalidUTF8, code: 1007),
        Case(name: "surrogate in text", toServer: true, bytes: clientFrame(0x1, [0xED, 0xA0, 0x80]), kind: .invalidUTF8, code: 1007),
        Case(name: "close with 1 byte", toServer: true, bytes: clientFrame(0x8, [0x03]), kind: .invalidClosePayload, code: 1002),
        Case(name: "close code 999", toServer: true, bytes: clientFrame(0x8, [0x03, 0xE7]), kind: .invalidCloseCode(999), code: 1002),
        Case(name: "close code 1004", toServer: true, bytes: clientFrame(0x8, [0x03, 0xEC]), kind: .invalidCloseCode(1004), code: 1002),
        Case(name: "close code 1005", toServer: false, bytes: frame(0x8, [0x03, 0xED]), kind: .invalidCloseCode(1005), code: 1002),
        Case(name: "close code 1006", toServer: true, bytes: clientFrame(0x8, [0x03, 0xEE]), kind: .invalidCloseCode(1006), code: 1002),
        Case(name: "close code 1015", toServer: true, bytes: clientFrame(0x8, [0x03, 0xF7]), kind: .invalidCloseCode(1015), code: 1002),
        Case(name: "close code 1016", toServer: true, bytes: clientFrame(0x8, [0x03, 0xF8]), kind: .invalidCloseCode(1016), code: 1002),
        Case(name: "close code 2999", toServer: true, bytes: clientFrame(0x8, [0x0B, 0xB7]), kind: .invalidCloseCode(2999), code: 1002),
        Case(name: "close code 5000", toServer: true, bytes: clientFrame(0x8, [0x13, 0x88]), kind: .invalidCloseCode(5000), code: 1002),
        Case(name: "close code 65535", toServer: true, bytes: clientFrame(0x8, [0xFF, 0xFF]), kind: .invalidCloseCode(65535), code: 1002),
        Case(name: "close reason not UTF-8", toServer: true, bytes: clientFrame(0x8, [0x03, 0xE8, 0xCE]), kind: .invalidCloseReason, code: 1007),
    ]

    @Test("The violation is reported, its close code sent, the connection closed", arguments: cases)
    func violation(_ c: Case) throws {
        var (client, server) = try openPair()
        var events: [Connection.Event]
        let output: [UInt8]
        var state: Connection.State
        if c.toServer {
            server.receive(c.bytes)
            events = drain(&server)
            output = server.takeOutput()
            state = server.state
            #expect(server.shouldCloseTransport)
        } else {
            client.receive(c.bytes)
            events = drain(&client)
            output = client.takeOutput()
            state = client.state
            #expect(client.shouldCloseTransport)
        }
        let violation = Connection.ProtocolViolation(c.kind)
        #expect(violation.closeCode.rawValue == c.code)
        let status = Connection.CloseStatus(code: Connection.CloseCode(rawValue: c.code), reason: violation.reason, wasClean: false, failure: .protocolViolation(violation))
        #expect(events == [.protocolViolation(violation), .closed(status)])
        #expect(state == .closed(status))
        let frames = decodeFrames(output)
        #expect(frames.count == 1)
        #expect(frames.first.flatMap(closeCode) == c.code)
        #expect(frames.first?.masked == !c.toServer)
    }

    @Test("Input after a violation is ignored")
    func inputAfterFailureIgnored() throws {
        var (_, server) = try openPair()
        server.receive(frame(0x1, [0x41]))
        _ = drain(&server)
        _ = server.takeOutput()
        server.receive(clientFrame(0x1, [0x41]))
        server.receive(clientFrame(0x9, [1]))
        #expect(drain(&server).isEmpty)
        #expect(server.pendingOutputCount == 0)
        #expect(server.bufferedInputCount == 0)
    }

    @Test("Fail fast: invalid UTF-8 fails in the middle of a frame, before the rest arrives")
    func failFastMidFrame() throws {
        var (_, server) = try openPair()
        // "κόσμε" then an invalid sequence, in a frame that announces 100 bytes of which 12 arrive.
        let payload = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xF4, 0x90] + [UInt8](repeating: 0x41, count: 87)
        let wire = clientFrame(0x1, payload)
        server.receive(wire[0..<(2 + 4 + 13)])
        let events = drain(&server)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.invalidUTF8)))
    }

    @Test("Fail fast across fragments: the bad byte is in the second fragment")
    func failFastAcrossFragments() throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x1, [0xF0, 0x9F], fin: false))
        #expect(drain(&server).isEmpty)
        server.receive(clientFrame(0x0, [0x41], fin: false))
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.invalidUTF8)))
    }

    @Test("Every valid close code is accepted and echoed", arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as [UInt16])
    func validCloseCodes(code: UInt16) throws {
        var (_, server) = try openPair()
        server.receive(clientFrame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)))
        let frame = Connection.CloseFrame(code: Connection.CloseCode(rawValue: code), reason: "bye")
        #expect(drain(&server) == [.closeReceived(frame), .closed(Connection.CloseStatus(code: Connection.CloseCode(rawValue: code), reason: "bye", wasClean: true))])
        #expect(decodeFrames(server.takeOutput()).map(closeCode) == [code])
    }

    @Test("CloseCode.isValidOnWire over every 16-bit value")
    func closeCodeValidity() {
        for raw in 0...UInt16.max {
            let expected = (1000...1003).contains(raw) || (1007...1014).contains(raw) || (3000...4999).contains(raw)
            #expect(Connection.CloseCode(rawValue: raw).isValidOnWire == expected)
        }
    }
}
