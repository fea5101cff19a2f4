// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketDeflate

@Suite("Prepared messages with permessage-deflate negotiated")
struct PreparedMessageDeflateTests {
    @Test("Sent uncompressed (RSV1 clear, RFC 7692 §6) between compressed messages: the client decodes every one")
    func uncompressedBetweenCompressed() throws {
        var (client, server, extensions) = try deflatePair()
        #expect(extensions.count == 1)
        let repeated = String(repeating: "compressible text ", count: 200)
        let prepared = Connection.PreparedMessage(text: repeated)
        for round in 0..<5 {
            // Compressed, with context takeover: the prepared message must not disturb either context.
            try server.send(text: repeated + "\(round)")
            let compressed = server.takeOutput()
            #expect(compressed[0] & 0x40 == 0x40, "round \(round): compressed")
            #expect(compressed.count < repeated.utf8.count / 4)
            try server.send(prepared)
            let plain = server.takeOutput()
            #expect(plain == prepared.wireBytes)
            #expect(plain[0] == 0x81, "round \(round): FIN, text, RSV1 clear")
            try server.send(binary: Array((repeated + "binary \(round)").utf8))
            client.receive(compressed + plain + server.takeOutput())
            #expect(drain(&client) == [.text(repeated + "\(round)"), .text(repeated),
                                       .binary(Array((repeated + "binary \(round)").utf8))], "round \(round)")
            // The other direction is untouched.
            try client.send(text: "ack \(round)")
            #expect(pump(&client, into: &server) == [.text("ack \(round)")])
        }
    }

    @Test("The same prepared bytes decode on connections with different deflate parameters")
    func sharedAcrossParameters() throws {
        let prepared = Connection.PreparedMessage(binary: [UInt8](repeating: 7, count: 3000), fragmentationSize: 1000)
        var offer = PerMessageDeflate.Offer()
        offer.serverNoContextTakeover = true
        offer.serverMaxWindowBits = 9
        for client in [PerMessageDeflate(), PerMessageDeflate(clientOffers: [offer]), nil] {
            var (peer, server, _) = try deflatePair(client: client)
            try server.send(prepared)
            #expect(pump(&server, into: &peer) == [.binary([UInt8](repeating: 7, count: 3000))])
        }
    }
}
