// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketDeflate

@Suite("permessage-deflate read from a lent buffer (receive(lending:))")
struct DeflateLentInputTests {
    @Test("Compressed messages, whole and fragmented, lent in any split: the same events and output as copied in",
          arguments: [1, 2, 3] as [UInt64])
    func sameAsCopied(seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        var fragmented = configuration(PerMessageDeflate())
        fragmented.fragmentationSize = 700
        var (client, server, extensions) = try deflatePair(clientConfig: seed == 2 ? fragmented : nil, seed: seed)
        #expect(extensions.count == 1)
        var sent: [Connection.Event] = []
        for index in 0..<20 {
            let (kind, payload) = DeflateRoundTripTests.randomMessage(&rng)
            let compress = index % 5 != 0   // some plain frames among the compressed ones
            if kind == .text {
                try client.send(text: String(decoding: payload, as: UTF8.self), compress: compress)
                sent.append(.text(String(decoding: payload, as: UTF8.self)))
            } else {
                try client.send(binary: payload, compress: compress)
                sent.append(.binary(payload))
            }
        }
        let wire = client.takeOutput()
        var copied = server
        copied.receive(wire)
        #expect(drain(&copied) == sent)
        let reference = copied.takeOutput()
        for readSize in [wire.count, 1, 97, Int.random(in: 500...3000, using: &rng)] {
            var lent = server
            var events: [Connection.Event] = []
            var offset = 0
            while offset < wire.count {
                var buffer = Array(wire[offset..<min(wire.count, offset + readSize)])
                offset += buffer.count
                buffer.withUnsafeMutableBytes { bytes in
                    lent.receive(lending: bytes) { view in
                        switch view {
                        case .text(let text): events.append(.text(String(decoding: text, as: UTF8.self)))
                        case .binary(let data): events.append(.binary(Array(data)))
                        case .other(let event): events.append(event)
                        }
                    }
                    bytes.initializeMemory(as: UInt8.self, repeating: 0x5C)
                }
            }
            #expect(events == sent, "reads of \(readSize)")
            #expect(lent.takeOutput() == reference, "reads of \(readSize)")
        }
    }
}
