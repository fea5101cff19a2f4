// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketTransport

/// Builds PROXY protocol headers for the tests, apart from the parser: its own CRC32C (bitwise, not the
/// parser's table) and its own layout.
enum PP {
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    static func tlv(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
        [type, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }

    static let ipv4Block: [UInt8] = [192, 0, 2, 1, 198, 51, 100, 7, 0xDC, 0x04, 0x01, 0xBB]  // :56324 -> :443
    static let ipv6Block: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
        + [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [2] + [0x30, 0x39, 0x00, 0x50]  // :12345 -> :80

    static func unixBlock(_ source: String, _ destination: String) -> [UInt8] {
        func path(_ p: String) -> [UInt8] { Array(p.utf8) + [UInt8](repeating: 0, count: 108 - p.utf8.count) }
        return path(source) + path(destination)
    }

    /// A version 2 header: `command` is the version and command byte (0x21 PROXY, 0x20 LOCAL), `family`
    /// the family and transport byte; the length is computed unless given; with `crc`, a CRC32C TLV is
    /// appended and filled in.
    static func v2(_ command: UInt8 = 0x21, _ family: UInt8 = 0x11, _ addresses: [UInt8] = ipv4Block, tlvs: [[UInt8]] = [],
                   crc: Bool = false, length: Int? = nil) -> [UInt8] {
        var body = addresses + tlvs.joined()
        let crcOffset = 16 + body.count + 3
        if crc { body += tlv(0x03, [0, 0, 0, 0]) }
        let count = length ?? body.count
        var header = signature + [command, family, UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)] + body
        if crc {
            let value = bitwiseCRC32C(header)
            for i in 0..<4 { header[crcOffset + i] = UInt8((value >> (24 - 8 * UInt32(i))) & 0xFF) }
        }
        return header
    }

    /// CRC-32C one bit at a time (RFC 4960 Appendix B), to check the parser's table-driven one against.
    static func bitwiseCRC32C(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// What a parser makes of `bytes` in the given pieces: the outcome after the last piece, the header
    /// and how many bytes of the whole belong to it (or the error), checking after every call that
    /// nothing is consumed twice or past a piece, that a pending parser holds exactly what it was given,
    /// and that it never holds more than its limit.
    struct Fed: Equatable {
        var header: ProxyProtocolHeader?
        var headerLength: Int?
        var error: ProxyProtocolError?
        var pending: Bool { header == nil && error == nil }
    }

    static func feed(_ bytes: [UInt8], pieces: [Int]? = nil, maxHeaderBytes: Int = 4096,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Fed {
        var parser = ProxyProtocolParser(maxHeaderBytes: maxHeaderBytes)
        var fed = Fed()
        var start = 0
        var held = 0
        for count in pieces ?? [bytes.count] {
            let piece = Array(bytes[start..<(start + count)])
            let outcome = parser.parse(piece)
            switch outcome {
            case .needMore:
                #expect(fed.pending, "needMore after an outcome", sourceLocation: sourceLocation)
                held += count
                #expect(parser.bufferedByteCount == held, sourceLocation: sourceLocation)
            case .complete(let header, let consumed):
                #expect(consumed >= 0 && consumed <= count, sourceLocation: sourceLocation)
                if fed.pending {
                    fed.header = header
                    fed.headerLength = start + consumed
                    #expect(header.byteCount == start + consumed, sourceLocation: sourceLocation)
                } else {
                    #expect(fed.header == header && consumed == 0, sourceLocation: sourceLocation)
                }
            case .failed(let error):
                if fed.pending { fed.error = error } else { #expect(fed.error == error, sourceLocation: sourceLocation) }
            }
            #expect(parser.bufferedByteCount <= max(107, parser.maxHeaderBytes), sourceLocation: sourceLocation)
            if !fed.pending { #expect(parser.bufferedByteCount == 0, sourceLocation: sourceLocation) }
            start += count
        }
        return fed
    }

    /// The same bytes whole, byte by byte and at every split in two must give the same result; returns it.
    static func feedEveryWay(_ bytes: [UInt8], maxHeaderBytes: Int = 4096, sourceLocation: SourceLocation = #_sourceLocation) -> Fed {
        let whole = feed(bytes, maxHeaderBytes: maxHeaderBytes, sourceLocation: sourceLocation)
        let bytewise = feed(bytes, pieces: Array(repeating: 1, count: bytes.count), maxHeaderBytes: maxHeaderBytes,
                            sourceLocation: sourceLocation)
        #expect(bytewise == whole, "byte by byte", sourceLocation: sourceLocation)
        for cut in 0...bytes.count {
            let split = feed(bytes, pieces: [cut, bytes.count - cut], maxHeaderBytes: maxHeaderBytes, sourceLocation: sourceLocation)
            #expect(split == whole, "split at \(cut)", sourceLocation: sourceLocation)
        }
        return whole
    }

    static func address(_ text: String, _ port: UInt16) -> SocketAddress {
        SocketAddress(IPAddressLiteral(text)!, port: port)
    }
}
