// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Version 2: a binary header (§2.2 of the specification).
///
///     0      12         13       14    16                              16 + length
///     | sig  | ver|cmd  | fam|tp | len | addresses | TLV | TLV | …      |
///
/// `sig` is `\r\n\r\n\0\r\nQUIT\n`; `ver` must be 2; `cmd` LOCAL (0) or PROXY (1); `fam` AF_UNSPEC
/// (0), AF_INET (1), AF_INET6 (2) or AF_UNIX (3); `tp` UNSPEC (0), STREAM (1) or DGRAM (2); `len`, big-endian,
/// counts every byte after the first 16.
extension ProxyProtocolParser {
    /// `\r\n\r\n\0\r\nQUIT\n`.
    static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// The signature, version and command, family and transport, and length.
    static let version2FixedBytes = 16

    /// Reads the 16 fixed bytes one by one, checking each as it comes, then the rest of the header in
    /// one copy; parses it when it is whole. `nil` when the input ended first.
    mutating func readVersion2(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Result<ProxyProtocolHeader, ProxyProtocolError>? {
        while buffer.count < Self.version2FixedBytes {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            buffer.append(byte)
            if let error = checkFixedByte(at: buffer.count - 1) { return .failure(error) }
        }
        let total = Self.version2FixedBytes + (Int(buffer[14]) << 8 | Int(buffer[15]))
        let take = min(total - buffer.count, bytes.count - index)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
        index += take
        guard buffer.count == total else { return nil }
        return Self.parseVersion2Header(buffer)
    }

    /// Checks the fixed byte just received, so that a header that cannot be valid fails at once.
    private mutating func checkFixedByte(at position: Int) -> ProxyProtocolError? {
        let byte = buffer[position]
        switch position {
        case 0..<12:
            guard byte == Self.version2Signature[position] else {
                return ProxyProtocolError(.notProxyProtocol, at: position, reason: "not the version 2 signature")
            }
        case 12:
            // "As of this specification, it must always be sent as \x2 and the receiver must only accept
            // this value."
            guard byte >> 4 == 2 else {
                return ProxyProtocolError(.unsupportedVersion, at: position, reason: "version \(byte >> 4)")
            }
            // "other values are unassigned and must not be emitted by senders. Receivers must drop
            // connections presenting unexpected values here."
            guard byte & 0x0F <= 1 else {
                return ProxyProtocolError(.unsupportedCommand, at: position, reason: "command \(byte & 0x0F)")
            }
        case 13:
            // For PROXY, other families and transports "must be rejected as invalid by receivers"; LOCAL
            // discards "the protocol block including the family which is ignored".
            guard isLocal || (byte >> 4 <= 3 && byte & 0x0F <= 2) else {
                return ProxyProtocolError(.unsupportedFamily, at: position, reason: "family \(byte >> 4), transport \(byte & 0x0F)")
            }
        case 15:
            let length = Int(buffer[14]) << 8 | Int(byte)
            guard Self.version2FixedBytes + length <= maxHeaderBytes else {
                return ProxyProtocolError(.headerTooLarge, at: 14,
                                          reason: "\(Self.version2FixedBytes + length) bytes announced, at most \(maxHeaderBytes) allowed")
            }
            if !isLocal, let needed = Self.addressLength(buffer[13]), needed > length {
                return ProxyProtocolError(.invalidLength, at: 14, reason: "\(length) bytes, but the addresses take \(needed)")
            }
            buffer.reserveCapacity(Self.version2FixedBytes + length)
        default:
            break
        }
        return nil
    }

    /// Whether the command byte (received) is LOCAL.
    private var isLocal: Bool { buffer.count > 12 && buffer[12] & 0x0F == 0 }

    /// The bytes of the address block for a family and transport byte: 0 for AF_UNSPEC with UNSPEC
    /// (TLVs start right after the fixed bytes); `nil` for a layout that is not given (one of the two
    /// unspecified: "the receiver should ignore address information", and the TLVs cannot be found).
    static func addressLength(_ familyAndTransport: UInt8) -> Int? {
        switch familyAndTransport {
        case 0x00: return 0
        case 0x11, 0x12: return 2 * 4 + 2 * 2
        case 0x21, 0x22: return 2 * 16 + 2 * 2
        case 0x31, 0x32: return 2 * 108
        default: return nil
        }
    }

    /// Parses a whole header, whose fixed bytes were checked as they came.
    static func parseVersion2Header(_ header: [UInt8]) -> Result<ProxyProtocolHeader, ProxyProtocolError> {
        let proxy = header[12] & 0x0F == 1
        let familyAndTransport = header[13]
        var result = ProxyProtocolHeader(version: .v2, command: proxy ? .proxy : .local, transportProtocol: nil, source: nil,
                                         destination: nil, tlvs: [], byteCount: header.count)
        // LOCAL: "the receiver must ... use the real connection endpoints"; its TLVs are still read when
        // their place is known (the usual LOCAL header has AF_UNSPEC and no addresses), so that its
        // checksum is verified.
        guard let addressLength = addressLength(familyAndTransport),
              version2FixedBytes + addressLength <= header.count else {
            if proxy { result.transportProtocol = transportProtocol(familyAndTransport) }
            return .success(result)
        }
        if proxy {
            result.transportProtocol = transportProtocol(familyAndTransport)
            (result.source, result.destination) = addresses(familyAndTransport, header)
        }
        switch readTLVs(header, from: version2FixedBytes + addressLength) {
        case .success(let tlvs):
            result.tlvs = tlvs
            return .success(result)
        case .failure(let error):
            return .failure(error)
        }
    }

    private static func transportProtocol(_ familyAndTransport: UInt8) -> ProxyProtocolHeader.TransportProtocol? {
        switch familyAndTransport & 0x0F {
        case 1: return .stream
        case 2: return .datagram
        default: return nil
        }
    }

    /// The source and destination of a block whose layout is known and fits (AF_UNSPEC has none).
    private static func addresses(_ familyAndTransport: UInt8, _ header: [UInt8]) -> (SocketAddress?, SocketAddress?) {
        func port(_ at: Int) -> UInt16 { UInt16(header[at]) << 8 | UInt16(header[at + 1]) }
        switch familyAndTransport >> 4 {
        case 1:
            return (SocketAddress(IPAddressLiteral(bytes: Array(header[16..<20])), port: port(24)),
                    SocketAddress(IPAddressLiteral(bytes: Array(header[20..<24])), port: port(26)))
        case 2:
            return (SocketAddress(IPAddressLiteral(bytes: Array(header[16..<32])), port: port(48)),
                    SocketAddress(IPAddressLiteral(bytes: Array(header[32..<48])), port: port(50)))
        case 3:
            return (SocketAddress.unix(rawPath: header[16..<124]), SocketAddress.unix(rawPath: header[124..<232]))
        default:
            return (nil, nil)
        }
    }

    /// Walks the TLVs from `start` to the header's end, which they must fill exactly, and verifies the
    /// CRC32C TLV if there is one.
    static func readTLVs(_ header: [UInt8], from start: Int) -> Result<[ProxyProtocolHeader.TLV], ProxyProtocolError> {
        var tlvs: [ProxyProtocolHeader.TLV] = []
        var offset = start
        var checksumOffset: Int?
        while offset < header.count {
            guard let length = tlvLength(header[...], at: offset, end: header.count) else {
                return .failure(ProxyProtocolError(.invalidTLV, at: offset, reason: "a TLV cut short or running past the header's end"))
            }
            let kind = ProxyProtocolHeader.TLV.Kind(rawValue: header[offset])
            let value = header[(offset + 3)..<(offset + 3 + length)]
            switch kind {
            case .crc32c:
                guard length == 4, checksumOffset == nil else {
                    return .failure(ProxyProtocolError(.invalidTLV, at: offset, reason: "a CRC32C TLV of \(length) bytes, or a second one"))
                }
                checksumOffset = value.startIndex
            case .uniqueID:
                // "an opaque byte sequence of up to 128 bytes".
                guard length <= 128 else {
                    return .failure(ProxyProtocolError(.invalidTLV, at: offset, reason: "a unique ID of \(length) bytes, more than 128"))
                }
            case .ssl:
                guard isSSLValue(value) else {
                    return .failure(ProxyProtocolError(.invalidTLV, at: offset,
                                                       reason: "an SSL TLV without its 5 bytes or with broken sub-TLVs"))
                }
            default:
                break
            }
            tlvs.append(ProxyProtocolHeader.TLV(kind: kind, value: Array(value)))
            offset = value.endIndex
        }
        if let checksumOffset {
            // "replace the 32 bits of the checksum field in the received PROXY header with all '0's and
            // calculate a CRC32c checksum value of the whole PROXY header."
            var crc = CRC32C()
            crc.update(header[..<checksumOffset])
            crc.update(repeatElement(UInt8(0), count: 4))
            crc.update(header[(checksumOffset + 4)...])
            let sent = header[checksumOffset..<(checksumOffset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard crc.value == sent else {
                let reason = "CRC32C 0x\(String(sent, radix: 16)) sent, 0x\(String(crc.value, radix: 16)) computed"
                return .failure(ProxyProtocolError(.checksumMismatch, at: checksumOffset, reason: reason))
            }
        }
        return .success(tlvs)
    }

    /// The value length of the TLV at `offset` if its 3-byte head and its value end by `end`.
    private static func tlvLength(_ bytes: ArraySlice<UInt8>, at offset: Int, end: Int) -> Int? {
        guard end - offset >= 3 else { return nil }
        let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
        return length <= end - offset - 3 ? length : nil
    }

    /// `struct pp2_tlv_ssl { uint8_t client; uint32_t verify; struct pp2_tlv sub_tlv[0]; }`: five bytes,
    /// then sub-TLVs that fill the value exactly.
    private static func isSSLValue(_ value: ArraySlice<UInt8>) -> Bool {
        guard value.count >= 5 else { return false }
        var offset = value.startIndex + 5
        while offset < value.endIndex {
            guard let length = tlvLength(value, at: offset, end: value.endIndex) else { return false }
            offset += 3 + length
        }
        return true
    }
}
