// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketTransport

@Suite("PROXY protocol: fed byte by byte, in random pieces or whole, the parser says the same")
struct ProxyProtocolPropertyTests {
    /// A random header of either version, valid or not: valid ones built from random parts, then in half
    /// of the cases one to three bytes changed, cut, or bytes appended.
    static func randomInput(_ generator: inout Connection.SeededGenerator) -> [UInt8] {
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        var input: [UInt8]
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            let ports = "\(UInt16.random(in: 0...65535, using: &generator)) \(UInt16.random(in: 0...65535, using: &generator))"
            input = PP.text(Bool.random(using: &generator)
                ? "PROXY TCP4 \(bytes(4).map(String.init).joined(separator: ".")) 10.0.0.1 \(ports)\r\n"
                : "PROXY TCP6 2001:db8::\(String(UInt16.random(in: 0...65535, using: &generator), radix: 16)) ::1 \(ports)\r\n")
        case 1:
            let junk = bytes(Int.random(in: 0...95, using: &generator)).map { $0 == 0x0D ? 0x20 : $0 }
            input = PP.text("PROXY UNKNOWN ") + junk + PP.text("\r\n")
        default:
            let families: [(UInt8, Int)] = [(0x00, 0), (0x11, 12), (0x12, 12), (0x21, 36), (0x22, 36), (0x31, 216), (0x32, 216),
                                            (0x10, 5)]
            let (family, length) = families[Int.random(in: 0..<families.count, using: &generator)]
            var tlvs: [[UInt8]] = []
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let kinds: [UInt8] = [0x01, 0x02, 0x04, 0x05, 0x30, 0xE0, 0xEA]
                let kind = kinds[Int.random(in: 0..<kinds.count, using: &generator)]
                tlvs.append(PP.tlv(kind, bytes(Int.random(in: 0...40, using: &generator))))
            }
            if Bool.random(using: &generator) {
                tlvs.append(PP.tlv(0x20, [0x01] + bytes(4) + PP.tlv(0x21, PP.text("TLSv1.3"))))
            }
            input = PP.v2(Bool.random(using: &generator) ? 0x21 : 0x20, family, bytes(length), tlvs: tlvs,
                          crc: Bool.random(using: &generator))
        }
        if Bool.random(using: &generator) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where !input.isEmpty:
                    input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1 where !input.isEmpty:
                    input.removeLast(Int.random(in: 1...min(8, input.count), using: &generator))
                default:
                    input += bytes(Int.random(in: 1...8, using: &generator))
                }
            }
        }
        return input + bytes(Int.random(in: 0...3, using: &generator))
    }

    @Test("2,000 random inputs: whole, byte by byte, at every split, and in random pieces agree")
    func splitInvariance() {
        var generator = Connection.SeededGenerator(seed: 0x7239)
        var outcomes = (complete: 0, failed: 0, pending: 0)
        for _ in 0..<2000 {
            let input = Self.randomInput(&generator)
            let limit = Bool.random(using: &generator) ? 4096 : 64
            let whole = PP.feed(input, maxHeaderBytes: limit)
            #expect(PP.feed(input, pieces: Array(repeating: 1, count: input.count), maxHeaderBytes: limit) == whole)
            var pieces: [Int] = []
            var left = input.count
            while left > 0 {
                let piece = Int.random(in: 1...min(left, 40), using: &generator)
                pieces.append(piece)
                left -= piece
            }
            #expect(PP.feed(input, pieces: pieces, maxHeaderBytes: limit) == whole)
            let cut = Int.random(in: 0...input.count, using: &generator)
            #expect(PP.feed(input, pieces: [cut, input.count - cut], maxHeaderBytes: limit) == whole)
            if whole.header != nil {
                outcomes.complete += 1
            } else if whole.error != nil {
                outcomes.failed += 1
            } else {
                outcomes.pending += 1
            }
        }
        // The generator reaches all three outcomes often enough for the property to mean something.
        #expect(outcomes.complete > 300 && outcomes.failed > 300 && outcomes.pending > 50, "\(outcomes)")
    }
}
