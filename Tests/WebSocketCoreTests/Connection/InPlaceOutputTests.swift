// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("receiveAndAnswer(lending:writingOutput:_:): replies framed in the caller's buffer")
struct InPlaceOutputTests {
    @Test("An unmasked header stored in place is the header write(into:) appends", arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 1 << 20])
    func headerBytes(count: Int) {
        for opcode: UInt8 in [0x1, 0x2] {
            var appended: [UInt8] = []
            FrameHeader(fin: true, reservedBits: 0, opcodeValue: opcode, maskingKey: nil, payloadLength: UInt64(count)).write(into: &appended)
            var stored = [UInt8](repeating: 0xEE, count: FrameHeader.unmaskedSize(payloadCount: count))
            stored.withUnsafeMutableBytes { FrameHeader.storeUnmasked(opcode: opcode, payloadCount: count, into: $0) }
            #expect(stored == appended)
        }
    }

    @Test("Any header stored in one pass is the header write(into:) appends", arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 1 << 20])
    func storedHeaderBytes(count: Int) {
        for key in [nil, MaskingKey(0x12, 0x34, 0x56, 0x78)] as [MaskingKey?] {
            for (fin, bits, opcode) in [(true, 0 as UInt8, 0x1 as UInt8), (false, 0x40, 0x2), (true, 0x70, 0x0), (true, 0, 0x9)] {
                let header = FrameHeader(fin: fin, reservedBits: bits, opcodeValue: opcode, maskingKey: key, payloadLength: UInt64(count))
                var appended: [UInt8] = []
                header.write(into: &appended)
                var stored = [UInt8](repeating: 0xEE, count: header.encodedSize + 3)
                stored.withUnsafeMutableBytes { header.store(into: $0) }
                #expect(header.encodedSize == appended.count)
                #expect(Array(stored[..<header.encodedSize]) == appended)
                #expect(stored[header.encodedSize...].allSatisfy { $0 == 0xEE })
            }
        }
    }

    /// The reply the tests give each lent message: an echo, a part as binary, a part as text, nothing.
    static func reply(_ view: Connection.EventView) -> Connection.LentReply {
        switch view {
        case .binary(let bytes):
            switch bytes.count % 3 {
            case 0: return .echo
            case 1: return .binary(1..<max(1, bytes.count / 2))
            default: return .none
            }
        case .text(let bytes): return bytes.count % 2 == 0 ? .echo : .text(0..<bytes.count)
        case .other: return .none
        }
    }

    /// Everything a server writes for `wire` read in `readSize` pieces: through
    /// receiveAndAnswer(lending:writingOutput:_:) when `inPlace` (its `write` taking `take(total)` bytes
    /// of each round, the rest taken after), through receiveAndAnswer(lending:_:) otherwise.
    static func output(of server: Connection, _ wire: [UInt8], readSize: Int, inPlace: Bool,
                       take: (Int) -> Int = { $0 }) throws -> (output: [UInt8], fromCaller: Int) {
        var server = server
        var output: [UInt8] = []
        var fromCaller = 0
        var offset = 0
        while offset < wire.count {
            var buffer = Array(wire[offset..<min(wire.count, offset + readSize)])
            offset += buffer.count
            try buffer.withUnsafeMutableBytes { bytes in
                let lent = UnsafeRawBufferPointer(bytes)
                if inPlace {
                    try server.receiveAndAnswer(lending: bytes, writingOutput: { pieces in
                        var total = 0
                        for piece in pieces { total += piece.count }
                        var budget = take(total)
                        let written = budget
                        for piece in pieces where budget > 0 {
                            let n = min(budget, piece.count)
                            output += UnsafeRawBufferPointer(rebasing: piece[..<n])
                            budget -= n
                            if let base = piece.baseAddress, let start = lent.baseAddress,
                               base >= start, base < start + lent.count { fromCaller += n }
                        }
                        return written
                    }, reply)
                } else {
                    try server.receiveAndAnswer(lending: bytes, reply)
                }
                bytes.initializeMemory(as: UInt8.self, repeating: 0x77)   // the caller's again
            }
            output += server.takeOutput()
        }
        return (output, fromCaller)
    }

    static func clientTraffic(_ client: inout Connection, seed: UInt64) throws -> [UInt8] {
        var rng = Connection.SeededGenerator(seed: seed)
        for index in 0..<60 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: try client.ping((0..<Int.random(in: 0...20, using: &rng)).map { UInt8(truncatingIfNeeded: $0) })
            case 1: try client.send(text: String(repeating: "é", count: Int.random(in: 0...300, using: &rng)))
            default:
                let size = [0, 1, 125, 126, 300, 70_000][Int.random(in: 0..<6, using: &rng)] + index % 3
                try client.send(binary: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            }
        }
        return client.takeOutput()
    }

    @Test("Same output as framed into the connection, any split, whole writes and partial ones; echoes come from the caller's buffer",
          arguments: [1, 2, 3] as [UInt64])
    func sameOutput(seed: UInt64) throws {
        var fragmented = Connection.Configuration()
        fragmented.fragmentationSize = 1_000   // the client's fragments, and the server's longer replies
        var (client, server) = try openPair(client: seed == 2 ? fragmented : Connection.Configuration(),
                                            server: seed == 3 ? fragmented : Connection.Configuration(), seed: seed)
        let wire = try Self.clientTraffic(&client, seed: seed)
        var rng = Connection.SeededGenerator(seed: seed &+ 100)
        for readSize in [wire.count, 1, 333, Int.random(in: 1_000...9_000, using: &rng)] {
            let reference = try Self.output(of: server, wire, readSize: readSize, inPlace: false)
            let whole = try Self.output(of: server, wire, readSize: readSize, inPlace: true)
            #expect(whole.output == reference.output, "reads of \(readSize)")
            // Whole unfragmented messages are echoed from the caller's buffer (seed 1: all of them).
            if readSize == wire.count { #expect(whole.fromCaller > (seed == 1 ? 10_000 : 1_000)) }
            var partialRNG = Connection.SeededGenerator(seed: seed &+ UInt64(readSize))
            let partial = try Self.output(of: server, wire, readSize: readSize, inPlace: true,
                                          take: { total in Int.random(in: 0...total, using: &partialRNG) })
            #expect(partial.output == reference.output, "reads of \(readSize), partial writes")
        }
        client.receive(try Self.output(of: server, wire, readSize: wire.count, inPlace: true).output)
        #expect(drain(&client).contains { if case .binary = $0 { return true } else { return false } })
    }

    @Test("Hostile input after echoed messages: the same output (echoes, then the Close that fails the connection) as framed into the connection",
          arguments: [0, 1, 2])
    func hostileSameOutput(kind: Int) throws {
        var (client, server) = try openPair()
        for size in [10, 200, 3_000] { try client.send(binary: [UInt8](repeating: 5, count: size)) }
        try client.ping([1])
        var wire = client.takeOutput()
        var rng = Connection.SeededGenerator(seed: UInt64(kind))
        switch kind {
        case 0: wire += clientFrame(0x1, [0xC3, 0x28])                                   // invalid UTF-8: 1007
        case 1: wire += frame(0x2, [1, 2, 3])                                             // unmasked: 1002
        default: wire += (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }      // anything
        }
        wire += clientFrame(0x2, [9, 9, 9])   // after the failure: never echoed
        for readSize in [wire.count, 7, 1_000] {
            let reference = try Self.output(of: server, wire, readSize: readSize, inPlace: false)
            let inPlace = try Self.output(of: server, wire, readSize: readSize, inPlace: true)
            #expect(inPlace.output == reference.output, "reads of \(readSize)")
        }
    }

    @Test("A client's replies, masked each with a fresh key, are framed into its output: the same bytes as without in-place output")
    func clientFallsBack() throws {
        var (client, server) = try openPair()
        for size in [0, 5, 300] { try server.send(binary: [UInt8](repeating: 3, count: size)) }
        try server.send(text: "hello")
        var wire = server.takeOutput()
        var copy = client
        var reference: [UInt8] = []
        var copyWire = wire
        try copyWire.withUnsafeMutableBytes { try copy.receiveAndAnswer(lending: $0, Self.reply) }
        reference = copy.takeOutput()
        var pieces = 0
        var written: [UInt8] = []
        try wire.withUnsafeMutableBytes { bytes in
            try client.receiveAndAnswer(lending: bytes, writingOutput: { list in
                pieces += list.count
                for piece in list { written += piece }
                return written.count
            }, Self.reply)
        }
        #expect(written == reference)
        #expect(pieces == 1)   // all of it in the connection's own output
        #expect(client.pendingOutputCount == 0)
    }

    @Test("The output limit counts replies framed in place; a refused reply throws after write had the rest")
    func limitCountsInPlace() throws {
        var small = Connection.Configuration()
        small.limits.maxBufferedOutput = 700
        var (client, server) = try openPair(server: small)
        for index in 0..<5 { try client.send(binary: [UInt8](repeating: UInt8(index), count: 300)) }
        var wire = client.takeOutput()
        var written: [UInt8] = []
        var thrown: Connection.UsageError? = nil
        do {
            try wire.withUnsafeMutableBytes { bytes in
                try server.receiveAndAnswer(lending: bytes, writingOutput: { pieces in
                    for piece in pieces { written += piece }
                    return written.count
                }) { _ in .echo }
            }
        } catch let error as Connection.UsageError {
            thrown = error
        }
        // Three replies of 304 bytes are sent (each while less than 700 was pending); the fourth is
        // refused, as a send would be.
        #expect(thrown == .outputBufferFull)
        #expect(decodeFrames(written).map(\.payload) == (0..<3).map { [UInt8](repeating: UInt8($0), count: 300) })
        #expect(server.outputHeldByCaller == 0)
        #expect(server.pendingOutputCount == 0)
        // The fifth message was kept for the next pull.
        #expect(drain(&server) == [.binary([UInt8](repeating: 4, count: 300))])
    }
}
