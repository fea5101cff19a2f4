// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// Renegotiation is off (SSL_OP_NO_RENEGOTIATION): a TLS 1.2 client that asks for a new handshake
/// on an established connection gets a refusal, not a ServerHello.
@Suite struct RenegotiationTests {
    @Test func aServerRefusesRenegotiation() throws {
        let client = PlainOpenSSLClient(alpn: nil, tls12: true)
        var server = try TLSContext(Configurations.server()).makeServerSession()
        for _ in 0..<10 {
            let done = client.advance()
            server.receive(client.takeOutput())
            client.receive(SessionPair.take(&server))
            if done, server.status == .established { break }
        }
        try #require(server.negotiatedVersion == .v1_2)
        #expect(client.renegotiate())
        _ = client.advance()
        let hello = client.takeOutput()
        #expect(hello.first == 0x16, "the new ClientHello: a handshake record, under the connection's keys")
        server.receive(hello)
        #expect(SessionPair.readAll(&server).isEmpty)
        let answer = SessionPair.take(&server)
        // One encrypted alert record (no_renegotiation): 5 bytes of header, an 8-byte explicit
        // nonce, 2 bytes of alert, a 16-byte tag.
        #expect(answer.first == 0x15)
        #expect(answer.count == 5 + 8 + 2 + 16)
        // The client gives up with a fatal alert, which fails the server's session.
        client.receive(answer)
        _ = client.advance()
        server.receive(client.takeOutput())
        _ = SessionPair.readAll(&server)
        #expect(server.tlsError?.kind == .protocolError)
    }
}
#endif
