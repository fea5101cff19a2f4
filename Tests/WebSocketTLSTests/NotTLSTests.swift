// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// Peers that do not speak TLS: plain HTTP to a TLS port, a TLS client meeting a clear-text server,
/// garbage.
@Suite struct NotTLSTests {
    func serverSession() throws -> TLSSession {
        try TLSContext(Configurations.server()).makeServerSession()
    }

    func clientSession() throws -> TLSSession {
        try TLSContext(Configurations.client()).makeClientSession(serverName: "localhost")
    }

    @Test(arguments: [
        "GET /chat HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\r\n",
        "POST / HTTP/1.1\r\n\r\n",
        "HEAD / HTTP/1.1\r\n\r\n",
        "PUT / HTTP/1.1\r\n\r\n",
        "CONNECT localhost:443 HTTP/1.1\r\n\r\n",
    ])
    func plainHTTPToAServerIsNotTLS(request: String) throws {
        var server = try serverSession()
        server.receive(Array(request.utf8))
        #expect(server.tlsError?.kind == .notTLS)
        #expect(server.tlsError?.reason.contains("the client did not speak TLS") == true)
        #expect(SessionPair.readAll(&server).isEmpty)
    }

    @Test(arguments: Split.all)
    func plainHTTPIsRecognizedAtAnySplit(split: Split) throws {
        let server = try serverSession()
        var pair = SessionPair(client: try clientSession(), server: server, split: split)
        var generator = pair.generator
        SessionPair.deliver(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8), to: &pair.server,
                            read: &pair.serverRead, split: split, generator: &generator)
        #expect(pair.server.tlsError?.kind == .notTLS)
    }

    @Test(arguments: [
        "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
        "SSH-2.0-OpenSSH_9.6\r\n",
    ])
    func aServerAnsweringInClearTextIsNotTLS(answer: String) throws {
        var client = try clientSession()
        _ = SessionPair.take(&client)
        client.receive(Array(answer.utf8))
        #expect(client.tlsError?.kind == .notTLS)
        #expect(client.tlsError?.reason.contains("the server did not answer in TLS") == true)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func garbageFailsBothRoles(seed: UInt64) throws {
        var generator = Connection.SeededGenerator(seed: seed)
        let garbage = (0..<2_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var server = try serverSession()
        server.receive(garbage)
        guard case .failed(.tls) = server.status else {
            Issue.record("server: \(server.status)")
            return
        }
        var client = try clientSession()
        client.receive(garbage)
        guard case .failed(.tls) = client.status else {
            Issue.record("client: \(client.status)")
            return
        }
    }

    @Test func aRecordHeaderWithAHugeLengthIsNotTLS() throws {
        var server = try serverSession()
        server.receive([0x16, 0x03, 0x01, 0xFF, 0xFF])
        #expect(server.tlsError?.kind == .notTLS)
    }

    @Test func nothingIsReadOnceFailed() throws {
        var server = try serverSession()
        server.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        let status = server.status
        server.receive(Array(repeating: 0x16, count: 100))
        server.receiveEOF()
        #expect(server.status == status)
        #expect(server.bufferedCiphertextCount == 0)
    }
}
#endif
