// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// The session's memory stays bounded whatever the peer sends: each limit of TLSLimits, and
/// OpenSSL's own.
@Suite struct LimitsTests {
    /// A ClientHello that announces 131,071 bytes (OpenSSL accepts ClientHellos up to 128 KiB), then
    /// endless 16 KiB handshake records continuing it.
    static func clientHelloFlood(records: Int) -> [UInt8] {
        let fragment = [UInt8](repeating: 0, count: 16 << 10)
        var flood: [UInt8] = [0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0x01, 0xFF, 0xFF] + fragment.dropFirst(4)
        for _ in 1..<records { flood += [0x16, 0x03, 0x01, 0x40, 0x00] + fragment }
        return flood
    }

    @Test func aHandshakeFloodIsCutOffAtTheLimit() throws {
        var configuration = Configurations.server()
        configuration.limits.maxHandshakeBytes = 32 << 10
        var server = try TLSContext(configuration).makeServerSession()
        let flood = Self.clientHelloFlood(records: 8)
        var offset = 0
        while offset < flood.count, server.status == .establishing {
            let end = min(flood.count, offset + 4_096)
            server.receive(Array(flood[offset..<end]))
            offset = end
            #expect(server.bufferedCiphertextCount <= 32 << 10)
        }
        #expect(server.tlsError?.kind == .limitExceeded)
        #expect(server.tlsError?.reason.contains("maxHandshakeBytes") == true)
        #expect(offset <= 36 << 10, "cut off within one piece of the limit")
    }

    @Test("Bytes over the handshake limit in one read fail as they fail byte by byte: the handshake reads up to the limit first")
    func overTheLimitInOneReadFailsAsInPieces() throws {
        var configuration = Configurations.server()
        configuration.limits.maxHandshakeBytes = 3_000
        let context = try TLSContext(configuration)
        // Not TLS at all, and longer than the limit (a fuzzer's find: whole, it failed for the limit;
        // byte by byte, for not being TLS).
        let notTLS = Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8) + [UInt8](repeating: 0x61, count: 3_005)
        var whole = try context.makeServerSession()
        whole.receive(notTLS)
        var bytewise = try context.makeServerSession()
        for byte in notTLS where bytewise.status == .establishing { bytewise.receive([byte]) }
        let error = try #require(whole.tlsError)
        #expect(error.kind == bytewise.tlsError?.kind)
        #expect(error.reason == bytewise.tlsError?.reason)
        #expect(error.kind != .limitExceeded)
    }

    @Test("A handshake that ends within the limit is not over it for the application data that follows in the same read")
    func applicationDataAfterTheHandshakeInOneRead() throws {
        // What a client's handshake sends the server, measured on a first exchange (the sizes are the
        // same from one exchange to the next with the same configurations).
        var probe = try TLSContext(Configurations.server()).makeServerSession()
        var probeClient = try TLSContext(Configurations.client()).makeClientSession(serverName: "localhost")
        let probeHello = SessionPair.take(&probeClient)
        probe.receive(probeHello)
        probeClient.receive(SessionPair.take(&probe))
        let budget = probeHello.count + SessionPair.take(&probeClient).count

        // A server with room for exactly that; the client's Finished and 5,000 bytes of data in one read.
        var configuration = Configurations.server()
        configuration.limits.maxHandshakeBytes = budget
        var server = try TLSContext(configuration).makeServerSession()
        var client = try TLSContext(Configurations.client()).makeClientSession(serverName: "localhost")
        let hello = SessionPair.take(&client)
        server.receive(hello)
        client.receive(SessionPair.take(&server))
        let finished = SessionPair.take(&client)
        try #require(hello.count + finished.count == budget)
        let data = (0..<5_000).map { UInt8(truncatingIfNeeded: $0) }
        client.send(data)
        server.receive(finished + SessionPair.take(&client))
        #expect(server.status == .established)
        #expect(SessionPair.readAll(&server) == data)
    }

    @Test func aHandshakeFloodFailsWithTheDefaultLimits() throws {
        var server = try TLSContext(Configurations.server()).makeServerSession()
        let flood = Self.clientHelloFlood(records: 64)
        var offset = 0
        while offset < flood.count {
            let end = min(flood.count, offset + 65_536)
            server.receive(Array(flood[offset..<end]))
            offset = end
            #expect(server.bufferedCiphertextCount <= TLSLimits().maxBufferedCiphertext)
        }
        // OpenSSL refuses the 128 KiB ClientHello of zeros before our 256 KiB limit is reached.
        guard case .failed(.tls) = server.status else {
            Issue.record("\(server.status)")
            return
        }
        #expect(server.bufferedCiphertextCount == 0)
    }

    @Test func aCertificateChainOverTheLimitFailsTheHandshake() throws {
        var client = Configurations.client()
        client.limits.maxCertificateChainBytes = 200
        var pair = try SessionPair(client: client, server: Configurations.server())
        pair.run()
        #expect(pair.client.tlsError?.kind == .handshakeFailed)
        #expect(pair.client.tlsError?.reason.contains("excessive message size") == true)
    }

    @Test func ciphertextThatIsNotReadIsBounded() throws {
        var server = Configurations.server()
        server.limits.maxBufferedCiphertext = 32 << 10
        var pair = try SessionPair(client: Configurations.client(), server: server)
        pair.run()
        pair.client.send([UInt8](repeating: 7, count: 100_000))
        let records = SessionPair.take(&pair.client)
        var offset = 0
        while offset < records.count, pair.server.status == .established {
            let end = min(records.count, offset + 4_096)
            pair.server.receive(Array(records[offset..<end]))  // and never read
            offset = end
            #expect(pair.server.bufferedCiphertextCount <= 32 << 10)
        }
        #expect(pair.server.tlsError?.kind == .limitExceeded)
        #expect(pair.server.tlsError?.reason.contains("maxBufferedCiphertext") == true)
    }

    @Test func oneReceiveLargerThanTheLimitFails() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.run()
        pair.server.receive([UInt8](repeating: 0x17, count: TLSLimits().maxBufferedCiphertext + 1))
        #expect(pair.server.tlsError?.kind == .limitExceeded)
        #expect(pair.server.bufferedCiphertextCount == 0)
    }

    @Test func theCiphertextLimitHoldsAtLeastOneRecord() throws {
        var server = Configurations.server()
        server.limits.maxBufferedCiphertext = 10
        var pair = try SessionPair(client: Configurations.client(), server: server)
        pair.run()
        pair.client.send([UInt8](repeating: 1, count: 16 << 10))
        pair.run()
        #expect(pair.serverRead.count == 16 << 10)
    }

    @Test func aRecordOverTheMaximumIsAProtocolError() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.run()
        pair.server.receive([0x17, 0x03, 0x03, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 100))
        #expect(SessionPair.readAll(&pair.server).isEmpty)
        #expect(pair.server.tlsError?.kind == .protocolError)
    }

    @Test func aCorruptRecordIsAProtocolError() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        pair.run()
        pair.client.send(Array("hello".utf8))
        var record = SessionPair.take(&pair.client)
        record[record.count - 1] ^= 1
        pair.server.receive(record)
        #expect(SessionPair.readAll(&pair.server).isEmpty)
        #expect(pair.server.tlsError?.kind == .protocolError)
        #expect(pair.server.tlsError?.reason.contains("bad record mac") == true)
        // The alert for the client, a last word.
        #expect(pair.server.pendingOutputCount > 0)
    }

    @Test func bytesSentBeforeTheHandshakeAreBounded() throws {
        var client = Configurations.client()
        client.limits.maxBufferedPlaintext = 1_000
        var session = try TLSContext(client).makeClientSession(serverName: "localhost")
        session.send([UInt8](repeating: 1, count: 1_000))
        #expect(session.status == .establishing)
        session.send([1])
        #expect(session.tlsError?.kind == .limitExceeded)
        #expect(session.bufferedPlaintextCount == 0)
    }

    @Test func aPeerThatDoesNotTakeItsOutputIsCutOff() throws {
        var server = Configurations.server()
        server.limits.maxPendingOutput = 1_000
        var pair = try SessionPair(client: Configurations.client(), server: server)
        pair.run()
        pair.server.send([UInt8](repeating: 1, count: 900))
        pair.client.send([2])
        pair.server.receive(SessionPair.take(&pair.client))
        #expect(pair.server.status == .established, "under the limit")
        pair.server.send([UInt8](repeating: 1, count: 900))
        pair.client.send([3])
        pair.server.receive(SessionPair.take(&pair.client))
        #expect(pair.server.tlsError?.kind == .limitExceeded)
        #expect(pair.server.tlsError?.reason.contains("maxPendingOutput") == true)
    }
}
#endif
