// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// ALPN (RFC 7301): the client offers `http/1.1`; the server selects it when offered and goes on
/// without ALPN otherwise.
@Suite struct ALPNTests {
    /// A handshake between an OpenSSL client offering `alpn` and a server session.
    func serverMeeting(alpn: [UInt8]?) throws -> TLSSession {
        let client = PlainOpenSSLClient(alpn: alpn)
        var server = try TLSContext(Configurations.server()).makeServerSession()
        for _ in 0..<10 {
            let done = client.advance()
            server.receive(client.takeOutput())
            client.receive(SessionPair.take(&server))
            if done, server.status == .established { break }
        }
        return server
    }

    @Test func aClientWithoutALPNIsServed() throws {
        let server = try serverMeeting(alpn: nil)
        #expect(server.status == .established)
        #expect(server.negotiatedApplicationProtocol == nil)
    }

    @Test func aClientOfferingOnlyOtherProtocolsIsServedWithoutALPN() throws {
        let server = try serverMeeting(alpn: [2] + Array("h2".utf8) + [8] + Array("spdy/3.1".utf8))
        #expect(server.status == .established)
        #expect(server.negotiatedApplicationProtocol == nil)
    }

    @Test func http11IsSelectedAmongOthers() throws {
        let server = try serverMeeting(alpn: [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8))
        #expect(server.status == .established)
        #expect(server.negotiatedApplicationProtocol == "http/1.1")
    }

    static let http11: [UInt8] = Array("http/1.1".utf8)
    static let selectionCases: [([UInt8], Bool)] = [
        ([], false),
        ([8] + http11, true),
        ([0, 8] + http11, false),                  // an empty name: malformed
        ([9] + http11, false),                     // runs past the end
        ([8] + Array("http/1.0".utf8), false),
        ([7] + Array("http/1.".utf8), false),
    ]

    @Test(arguments: selectionCases)
    func selection(list: [UInt8], selects: Bool) {
        let choice = list.withUnsafeBufferPointer { ALPN.select(in: $0) }
        #expect((choice != nil) == selects)
        if let choice { #expect(Array(list[choice.offset..<(choice.offset + choice.count)]) == Array("http/1.1".utf8)) }
    }
}
#endif
