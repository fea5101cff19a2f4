// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketDeflate

@Suite("permessage-deflate round trips and copy semantics")
struct DeflateRoundTripTests {
    /// Every combination of the four parameters, from the client's offer and the server's policy.
    static var combinations: [(PerMessageDeflate.Offer, PerMessageDeflate.ServerPolicy)] {
        var result: [(PerMessageDeflate.Offer, PerMessageDeflate.ServerPolicy)] = []
        for serverReset in [false, true] {
            for clientReset in [false, true] {
                for serverBits in [nil, 8, 11, 15] as [Int?] {
                    for clientBits in [PerMessageDeflate.Offer.ClientWindow.unspecified, .acceptsAny, .bits(8), .bits(12)] {
                        var offer = PerMessageDeflate.Offer()
                        offer.serverNoContextTakeover = serverReset
                        offer.clientNoContextTakeover = clientReset
                        offer.serverMaxWindowBits = serverBits
                        offer.clientMaxWindowBits = clientBits
                        var policy = PerMessageDeflate.ServerPolicy()
                        policy.clientMaxWindowBits = serverBits == 11 ? 9 : nil
                        policy.maxWindowBits = clientReset ? 10 : 15
                        result.append((offer, policy))
                    }
                }
            }
        }
        return result
    }

    static func randomMessage(_ rng: inout Connection.SeededGenerator) -> (Connection.MessageKind, [UInt8]) {
        let words = ["hello", "world", "κόσμε", "🎉", "websocket", "deflate", " ", "\n", "0123456789"]
        if Bool.random(using: &rng) {
            var s = ""
            for _ in 0..<Int.random(in: 0...400, using: &rng) { s += words.randomElement(using: &rng)! }
            return (.text, Array(s.utf8))
        }
        let n = Int.random(in: 0...3000, using: &rng)
        let alphabet = UInt8.random(in: 1...255, using: &rng)
        return (.binary, (0..<n).map { _ in UInt8.random(in: 0...alphabet, using: &rng) })
    }

    @Test("Every parameter combination round-trips random messages both ways")
    func allCombinations() throws {
        var rng = Connection.SeededGenerator(seed: 99)
        for (index, (offer, policy)) in Self.combinations.enumerated() {
            var (client, server, extensions) = try deflatePair(client: PerMessageDeflate(clientOffers: [offer]),
                                                               server: PerMessageDeflate(serverPolicy: policy), seed: UInt64(index))
            #expect(extensions.count == 1, "combination \(index)")
            for _ in 0..<6 {
                let (kind, payload) = Self.randomMessage(&rng)
                let expected: Connection.Event = kind == .text ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)
                if kind == .text { try client.send(text: String(decoding: payload, as: UTF8.self)) } else { try client.send(binary: payload) }
                #expect(pump(&client, into: &server) == [expected], "combination \(index)")
                if kind == .text { try server.send(text: String(decoding: payload, as: UTF8.self)) } else { try server.send(binary: payload) }
                #expect(pump(&server, into: &client) == [expected], "combination \(index)")
            }
        }
    }

    @Test("Compressed messages really are smaller, fragmented ones too, and opt-out sends plain frames")
    func compressionHappens() throws {
        var config = configuration(PerMessageDeflate())
        config.fragmentationSize = 10
        var (client, server, _) = try deflatePair(clientConfig: config)
        let text = String(repeating: "compressible text ", count: 500)
        try client.send(text: text)
        let wire = client.takeOutput()
        #expect(wire.count < text.utf8.count / 10)
        #expect(wire[0] == 0x41)  // RSV1 on the first frame, not final
        server.receive(wire)
        #expect(drain(&server) == [.text(text)])
        try client.send(text: text, compress: false)
        let plain = client.takeOutput()
        #expect(plain[0] == 0x01)
        server.receive(plain)
        #expect(drain(&server) == [.text(text)])
    }

    @Test("Caller-streamed fragments are compressed one by one and read back whole")
    func streamedFragments() throws {
        var (client, server, _) = try deflatePair()
        let parts = ["first part, ", "second part, ", "", "last part"]
        for (i, part) in parts.enumerated() {
            try client.sendFragment(Array(part.utf8), kind: .text, isFinal: i == parts.count - 1)
            try client.ping([UInt8(i)])
        }
        let events = pump(&client, into: &server)
        #expect(events.filter { if case .text = $0 { return true } else { return false } } == [.text(parts.joined())])
    }

    /// Found by the `deflate` fuzz target: a message whose last fragment is empty ended with the
    /// `00 00 FF FF` of an earlier fragment (zlib skips a second flush with nothing new), so the tail
    /// the peer appends started a block that the next message then corrupted (1007).
    @Test("A streamed message ending with an empty fragment, then more messages, reads back under every takeover mode",
          arguments: [false, true])
    func emptyFinalFragment(noContextTakeover: Bool) throws {
        var offer = PerMessageDeflate.Offer()
        offer.clientNoContextTakeover = noContextTakeover
        offer.serverNoContextTakeover = noContextTakeover
        var (client, server, _) = try deflatePair(client: PerMessageDeflate(clientOffers: [offer]))
        for sender in 0..<2 {
            var (from, to) = sender == 0 ? (client, server) : (server, client)
            try from.sendFragment(Array("Hello".utf8), kind: .text, isFinal: false)
            try from.sendFragment([], kind: .text, isFinal: true)
            // Every fragment empty, compressed.
            try from.sendFragment([], kind: .binary, isFinal: false)
            try from.sendFragment([], kind: .binary, isFinal: true)
            try from.send(text: "Hello")
            try from.send(text: "Hello, again")
            #expect(pump(&from, into: &to) == [.text("Hello"), .binary([]), .text("Hello"), .text("Hello, again")])
            if sender == 0 { (client, server) = (from, to) }
        }
    }

    @Test("Copying a connection forks its compression state: copies act like two fresh connections")
    func copySemantics() throws {
        var (client, server, _) = try deflatePair()
        try server.send(text: "shared history shared history")
        client.receive(server.takeOutput())
        _ = drain(&client)
        var forkedServer = server
        var forkedClient = client
        try server.send(text: "branch A: shared history")
        try forkedServer.send(text: "branch B: something else entirely")
        let a = server.takeOutput()
        let b = forkedServer.takeOutput()
        client.receive(a)
        forkedClient.receive(b)
        #expect(drain(&client) == [.text("branch A: shared history")])
        #expect(drain(&forkedClient) == [.text("branch B: something else entirely")])
        // And each branch matches a connection that lived that history alone.
        var (freshClient, freshServer, _) = try deflatePair()
        try freshServer.send(text: "shared history shared history")
        freshClient.receive(freshServer.takeOutput())
        _ = drain(&freshClient)
        try freshServer.send(text: "branch A: shared history")
        #expect(freshServer.takeOutput() == a)
        // Feeding the other branch's bytes to the first client fails or differs: the states really are apart.
        try forkedServer.send(text: "something else entirely")
        client.receive(forkedServer.takeOutput())
        #expect(drain(&client) != [.text("something else entirely")])
    }

    @Test("Large messages at the limit round-trip; one byte over fails with 1009")
    func limitEdges() throws {
        let limit = 200_000
        var (client, server, _) = try deflatePair(serverConfig: configuration(PerMessageDeflate(), maxMessageSize: limit))
        try client.send(binary: [UInt8](repeating: 7, count: limit))
        #expect(pump(&client, into: &server) == [.binary([UInt8](repeating: 7, count: limit))])
        try client.send(binary: [UInt8](repeating: 7, count: limit + 1))
        #expect(pump(&client, into: &server).first == .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))
    }
}
