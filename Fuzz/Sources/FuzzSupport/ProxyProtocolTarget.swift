// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(Testing) import WebSocketTLS

/// `proxy-protocol`: `ProxyProtocolParser` fed arbitrary first bytes of a connection, and the core's
/// `Forwarded` parser fed arbitrary field lines: what a server reads from a load balancer, or from
/// whoever reached it instead.
///
/// Input: `control`, two bytes of split seed, then the rest. Bits of `control`: 0x03 the parser's
/// `maxHeaderBytes` (0: the default 4096; 1: 64; 2: 0, which counts as 16; 3: 65,551, the format's
/// largest); 0x04 build mode: the rest is a script the harness turns into a version 2 header (below);
/// 0x08 Forwarded mode: the rest is `Forwarded` field lines separated by LF (the other bits are then
/// unused). Otherwise (raw mode) the rest is the connection's first bytes.
///
/// Build mode, so that the fuzzer reaches past the length and the checksum: `verCmd`, `family`,
/// `flags`, then (with flags 0x04) a signed length adjustment, then the address block (the family's
/// length, or the next byte's low 6 bits for a family without a known layout), then `flags >> 4 & 7`
/// TLVs as `type`, `length` (one byte), value; the rest of the input follows the header. Flags 0x01
/// append a CRC32C TLV with the right checksum, 0x02 with one bit of it wrong.
///
/// Invariants, after every call: the bytes consumed never exceed the call's; while pending, the parser
/// holds exactly what it was given, never more than 107 bytes or `maxHeaderBytes`; an outcome never
/// changes and later calls consume nothing. The input whole, at the split, byte by byte, and in pieces
/// of 1 to 64 bytes from the seed gives the same outcome and header length. Read independently from the
/// input: a header is complete only where its framing says (the first CRLF within 107 bytes after
/// `PROXY `, or 16 + the announced length after the signature, within the limit), it is pending only
/// when the input is a prefix of one, and each failure's code names something the bytes really have (no
/// signature, a length over the limit, a version other than 2, ...); a complete version 2 header's TLVs
/// re-encode to its bytes, its IPv4 and IPv6 addresses and ports are those of the address block, and its
/// CRC32C TLV (a mismatch) agrees (disagrees) with a bitwise CRC32C computed here; a build-mode header
/// that is valid by construction is complete.
///
/// Forwarded mode: the lines parse to as many elements as their commas allow at most; the lines apart
/// give the same elements as together; every node of a well-formed element reads back from its
/// description; `proto` is a lower-case scheme.
public enum ProxyProtocolTarget {
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    static let version1Prefix: [UInt8] = Array("PROXY ".utf8)

    struct Fed: Equatable {
        var header: ProxyProtocolHeader?
        var headerLength: Int?
        var error: ProxyProtocolError?
        var pending: Bool { header == nil && error == nil }
    }

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let seed = Int(input.uint16())
        if control & 0x08 != 0 {
            checkForwarded(input.rest())
            return
        }
        let limit = [4096, 64, 0, 16 + 65535][Int(control & 0x03)]
        var validByConstruction = false
        var wire = input.rest()
        if control & 0x04 != 0 {
            var script = FuzzInput(wire)
            wire = build(&script, valid: &validByConstruction)
            validByConstruction = validByConstruction && 16 + announced(wire) <= max(16, limit)
        }

        let whole = feed(wire, pieces: [wire.count], limit: limit)
        let cut = seed % (wire.count + 1)
        let split = feed(wire, pieces: [cut, wire.count - cut], limit: limit)
        guard split == whole else { fuzzFailure("split at \(cut) of \(wire.count): \(split) against \(whole)") }
        if wire.count <= 4096 {
            let bytewise = feed(wire, pieces: Array(repeating: 1, count: wire.count), limit: limit)
            guard bytewise == whole else { fuzzFailure("byte by byte: \(bytewise) against \(whole)") }
        }
        var pieces: [Int] = []
        var left = wire.count
        var state = UInt32(truncatingIfNeeded: seed) &+ 1
        while left > 0 {
            state = state &* 1_103_515_245 &+ 12345
            let piece = min(left, Int((state >> 16) % 64) + 1)
            pieces.append(piece)
            left -= piece
        }
        let random = feed(wire, pieces: pieces, limit: limit)
        guard random == whole else { fuzzFailure("in pieces \(pieces): \(random) against \(whole)") }
        check(whole, wire: wire, limit: max(16, limit))
        if validByConstruction, whole.header == nil { fuzzFailure("a valid header was not accepted: \(whole)") }
    }

    /// Feeds the pieces, checking each call.
    static func feed(_ wire: [UInt8], pieces: [Int], limit: Int) -> Fed {
        var parser = ProxyProtocolParser(maxHeaderBytes: limit)
        var fed = Fed()
        var start = 0
        for count in pieces {
            let outcome = wire[start..<(start + count)].withUnsafeBytes { parser.parse($0) }
            switch outcome {
            case .needMore:
                guard fed.pending else { fuzzFailure("needMore after \(fed)") }
                guard parser.bufferedByteCount == start + count else {
                    fuzzFailure("pending with \(parser.bufferedByteCount) bytes held of \(start + count) given")
                }
            case .complete(let header, let consumed):
                guard consumed >= 0, consumed <= count else { fuzzFailure("consumed \(consumed) of \(count)") }
                if fed.pending {
                    fed.header = header
                    fed.headerLength = start + consumed
                } else if fed.header != header || consumed != 0 {
                    fuzzFailure("the outcome changed: \(outcome) after \(fed)")
                }
            case .failed(let error):
                if fed.pending {
                    fed.error = error
                } else if fed.error != error {
                    fuzzFailure("the outcome changed: \(outcome) after \(fed)")
                }
            }
            guard parser.bufferedByteCount <= max(107, parser.maxHeaderBytes) else {
                fuzzFailure("holds \(parser.bufferedByteCount) bytes")
            }
            if !fed.pending, parser.bufferedByteCount != 0 { fuzzFailure("holds \(parser.bufferedByteCount) bytes when done") }
            start += count
        }
        return fed
    }

    // MARK: What the input says, read apart from the parser

    static func check(_ fed: Fed, wire: [UInt8], limit: Int) {
        let isV2 = wire.count >= 1 && wire[0] == 0x0D
        if let header = fed.header {
            guard let length = fed.headerLength, length == header.byteCount else { fuzzFailure("header length \(fed)") }
            if isV2 {
                checkVersion2(header, Array(wire[..<length]), limit: limit)
            } else {
                guard header.version == .v1, wire.starts(with: version1Prefix), length <= 107,
                      let end = firstCRLF(wire), end + 2 == length else {
                    fuzzFailure("a version 1 header of \(length) bytes in \(wire.prefix(120))")
                }
            }
            return
        }
        if fed.pending {
            if isV2 {
                guard wire.count < 16 || (wire.starts(with: signature) && wire.count < 16 + announced(wire)) else {
                    fuzzFailure("pending on \(wire.count) bytes of a version 2 header")
                }
            } else {
                guard wire.count < 107, firstCRLF(wire) == nil else { fuzzFailure("pending on \(wire.count) bytes of a line") }
            }
            return
        }
        guard let error = fed.error else { return }
        let fits = error.offset >= 0 && error.offset < max(1, wire.count)
        guard fits else { fuzzFailure("\(error) in \(wire.count) bytes") }
        switch error.code {
        case .notProxyProtocol:
            guard !wire.starts(with: signature), !wire.starts(with: version1Prefix.prefix(5)) else { fuzzFailure("\(error)") }
        case .headerTooLarge:
            if isV2 {
                guard wire.count >= 16, 16 + announced(wire) > limit else { fuzzFailure("\(error) with limit \(limit)") }
            } else {
                guard wire.count >= 107, (firstCRLF(wire).map { $0 + 2 } ?? .max) > 107 else { fuzzFailure("\(error)") }
            }
        case .unsupportedVersion:
            guard isV2, wire[12] >> 4 != 2 else { fuzzFailure("\(error)") }
        case .unsupportedCommand:
            guard isV2, wire[12] & 0x0F > 1 else { fuzzFailure("\(error)") }
        case .unsupportedFamily:
            guard isV2, wire[12] & 0x0F == 1, wire[13] >> 4 > 3 || wire[13] & 0x0F > 2 else { fuzzFailure("\(error)") }
        case .invalidLength:
            guard isV2, let needed = addressLength(wire[13]), announced(wire) < needed else { fuzzFailure("\(error)") }
        case .checksumMismatch:
            guard isV2, wire.count >= 16 + announced(wire) else { fuzzFailure("\(error)") }
            let header = Array(wire[..<(16 + announced(wire))])
            guard error.offset + 4 <= header.count, checksum(header, zeroing: error.offset) != sent(header, error.offset) else {
                fuzzFailure("\(error), but the checksum is right")
            }
        case .invalidTLV, .invalidLine:
            break
        default:
            fuzzFailure("unknown code \(error.code)")
        }
    }

    static func checkVersion2(_ header: ProxyProtocolHeader, _ bytes: [UInt8], limit: Int) {
        guard header.version == .v2, bytes.starts(with: signature), bytes[12] >> 4 == 2, bytes.count == 16 + announced(bytes),
              bytes.count <= limit else {
            fuzzFailure("a version 2 header of \(bytes.count) bytes")
        }
        let proxy = bytes[12] & 0x0F == 1
        guard header.command == (proxy ? .proxy : .local) else { fuzzFailure("command \(header.command)") }
        guard let layout = addressLength(bytes[13]), 16 + layout <= bytes.count else {
            guard header.tlvs.isEmpty, header.source == nil else { fuzzFailure("TLVs or addresses without a layout") }
            return
        }
        // The TLVs re-encode to the bytes after the addresses, exactly.
        var encoded: [UInt8] = []
        for tlv in header.tlvs {
            encoded += [tlv.kind.rawValue, UInt8(tlv.value.count >> 8), UInt8(tlv.value.count & 0xFF)] + tlv.value
        }
        guard encoded.elementsEqual(bytes[(16 + layout)...]) else { fuzzFailure("the TLVs do not re-encode to their bytes") }
        if let crcIndex = header.tlvs.firstIndex(where: { $0.kind.rawValue == 0x03 }) {
            let offset = 16 + layout + header.tlvs[..<crcIndex].reduce(0) { $0 + 3 + $1.value.count } + 3
            guard checksum(bytes, zeroing: offset) == sent(bytes, offset) else { fuzzFailure("accepted a wrong CRC32C") }
        }
        guard proxy else {
            guard header.source == nil, header.destination == nil else { fuzzFailure("LOCAL with addresses") }
            return
        }
        switch bytes[13] >> 4 {
        case 1: checkAddresses(header, bytes, family: AF_INET, size: 4)
        case 2: checkAddresses(header, bytes, family: AF_INET6, size: 16)
        case 3:
            guard header.source?.family == .unix, header.destination?.family == .unix else { fuzzFailure("not Unix addresses") }
        default:
            guard header.source == nil, header.destination == nil else { fuzzFailure("addresses for AF_UNSPEC") }
        }
    }

    /// The source and destination as `inet_ntop` writes the block's bytes, and the ports after them.
    static func checkAddresses(_ header: ProxyProtocolHeader, _ bytes: [UInt8], family: Int32, size: Int) {
        func text(_ at: Int) -> String {
            var out = [CChar](repeating: 0, count: 64)
            let raw = Array(bytes[at..<(at + size)])
            _ = raw.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &out, socklen_t(out.count)) }
            return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        func port(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        guard header.source?.host == text(16), header.destination?.host == text(16 + size),
              header.source?.port == port(16 + 2 * size), header.destination?.port == port(18 + 2 * size) else {
            fuzzFailure("addresses \(String(describing: header.source)) \(String(describing: header.destination))")
        }
    }

    static func announced(_ bytes: [UInt8]) -> Int { Int(bytes[14]) << 8 | Int(bytes[15]) }

    static func addressLength(_ familyAndTransport: UInt8) -> Int? {
        switch familyAndTransport {
        case 0x00: return 0
        case 0x11, 0x12: return 12
        case 0x21, 0x22: return 36
        case 0x31, 0x32: return 216
        default: return nil
        }
    }

    static func firstCRLF(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return (0..<(bytes.count - 1)).first { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A }
    }

    static func sent(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// CRC-32C one bit at a time (not the library's table), with the 4 bytes at `offset` taken as zeros.
    static func checksum(_ bytes: [UInt8], zeroing offset: Int) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for (index, byte) in bytes.enumerated() {
            crc ^= UInt32(index >= offset && index < offset + 4 ? 0 : byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    // MARK: Build mode

    /// A version 2 header from the script (see the type's documentation), then the rest of the input.
    /// `valid` says whether the parser must accept it (within its limit): PROXY or LOCAL, a family it
    /// knows with its whole address block, the right length, a right checksum or none, and TLVs of types
    /// without a form of their own.
    static func build(_ input: inout FuzzInput, valid: inout Bool) -> [UInt8] {
        let command = input.byte()
        let family = input.byte()
        let flags = input.byte()
        let adjustment = flags & 0x04 != 0 ? Int(Int8(bitPattern: input.byte())) : 0
        let blockLength = addressLength(family) ?? Int(input.byte() & 0x3F)
        var body = input.take(blockLength)
        var formsChecked = body.count == blockLength
        for _ in 0..<Int((flags >> 4) & 0x07) {
            let type = input.byte()
            let valueLength = Int(input.byte())
            let value = input.take(valueLength)
            formsChecked = formsChecked && ![0x03, 0x05, 0x20].contains(type)
            body += [type, 0, UInt8(value.count)] + value
        }
        let crcOffset = 16 + body.count + 3
        if flags & 0x03 != 0 { body += [0x03, 0x00, 0x04, 0, 0, 0, 0] }
        let length = max(0, min(0xFFFF, body.count + adjustment))
        var header = signature + [command, family, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        if flags & 0x03 != 0 {
            var crc = checksum(header, zeroing: crcOffset)
            if flags & 0x02 != 0 { crc ^= 1 << UInt32(flags >> 7) }
            for index in 0..<4 { header[crcOffset + index] = UInt8(truncatingIfNeeded: crc >> UInt32(24 - 8 * index)) }
        }
        valid = (command == 0x20 || command == 0x21) && addressLength(family) != nil && adjustment == 0 && formsChecked
            && flags & 0x02 == 0
        return header + input.rest()
    }

    // MARK: Forwarded mode

    static func checkForwarded(_ bytes: [UInt8]) {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let elements = Connection.ForwardedElement.parseList(lines)
        let commas = lines.reduce(0) { $0 + $1.utf8.count { $0 == UInt8(ascii: ",") } + 1 }
        guard elements.count <= commas else { fuzzFailure("\(elements.count) elements from \(commas) places") }
        let apart = lines.flatMap { Connection.ForwardedElement.parseList([$0]) }
        guard apart == elements else { fuzzFailure("the lines apart give other elements") }
        for element in elements {
            if element.isMalformed {
                guard element == Connection.ForwardedElement.malformedForComparison else { fuzzFailure("a malformed element holds values") }
                continue
            }
            for node in [element.for, element.by].compactMap({ $0 }) {
                let again = Connection.ForwardedElement.parseList(["for=\"\(node.description)\""])
                guard again.count == 1, again[0].for == node else { fuzzFailure("node \(node) reads back as \(again)") }
            }
            if let proto = element.proto {
                guard let first = proto.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
                      proto.utf8.allSatisfy({ !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
                    fuzzFailure("proto \(proto)")
                }
            }
            if let host = element.host, host.isEmpty { fuzzFailure("an empty host") }
        }
    }
}

extension Connection.ForwardedElement {
    /// What a malformed element must be: nothing but the flag.
    static var malformedForComparison: Connection.ForwardedElement {
        var element = Connection.ForwardedElement()
        element.isMalformed = true
        return element
    }
}
