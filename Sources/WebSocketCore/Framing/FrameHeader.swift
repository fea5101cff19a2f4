// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A frame header as it is on the wire (RFC 6455 §5.2), before any check of what it means.
///
/// Parsing is syntax only: whether the opcode is defined, the mask is required or the length is
/// acceptable is for the receiver to decide (``Connection``), because the answers depend on the role,
/// the negotiated extensions and the limits.
struct FrameHeader: Sendable, Hashable {
    var fin: Bool
    /// RSV1, RSV2, RSV3 as the bits 0x40, 0x20, 0x10 of the first byte.
    var reservedBits: UInt8
    /// The 4-bit opcode as sent; not necessarily one RFC 6455 defines.
    var opcodeValue: UInt8
    var maskingKey: MaskingKey?
    /// The payload length as sent, up to 2^64 - 1; a receiver must check it before converting it.
    var payloadLength: UInt64

    /// The most bytes a header can take: 2 + 8 (64-bit length) + 4 (mask).
    static let maxSize = 14

    enum ParseResult: Sendable, Hashable {
        /// More bytes are needed; at least this many in total.
        case needMore(Int)
        case header(FrameHeader, size: Int)
    }

    /// Parses a header from the start of `bytes`, which may hold more (payload, further frames).
    @inline(__always)
    static func parse(_ bytes: UnsafeRawBufferPointer) -> ParseResult {
        guard bytes.count >= 2 else { return .needMore(2) }
        let b0 = bytes[0]
        let b1 = bytes[1]
        let masked = b1 & 0x80 != 0
        let length7 = b1 & 0x7F
        var size = 2
        let lengthBytes = length7 == 126 ? 2 : (length7 == 127 ? 8 : 0)
        size += lengthBytes
        if masked { size += 4 }
        guard bytes.count >= size else { return .needMore(size) }
        let length: UInt64
        switch lengthBytes {
        case 2: length = UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        case 8: length = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
        default: length = UInt64(length7)
        }
        var key: MaskingKey? = nil
        if masked {
            let k = 2 + lengthBytes
            key = MaskingKey(bytes[k], bytes[k + 1], bytes[k + 2], bytes[k + 3])
        }
        let header = FrameHeader(fin: b0 & 0x80 != 0, reservedBits: b0 & 0x70, opcodeValue: b0 & 0x0F,
                                 maskingKey: key, payloadLength: length)
        return .header(header, size: size)
    }

    /// The size of an unmasked header for a payload of `count` bytes, in the shortest length form.
    static func unmaskedSize(payloadCount count: Int) -> Int {
        count < 126 ? 2 : count <= Int(UInt16.max) ? 4 : 10
    }

    /// Stores the unmasked header of a final frame (FIN set, no reserved bits) with `opcode` and a
    /// payload of `count` bytes into `buffer`, which holds exactly ``unmaskedSize(payloadCount:)``
    /// bytes: the same bytes ``write(into:)`` appends for that header (a test holds them equal).
    static func storeUnmasked(opcode: UInt8, payloadCount count: Int, into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = 0x80 | (opcode & 0x0F)
        switch buffer.count {
        case 2:
            buffer[1] = UInt8(truncatingIfNeeded: count)
        case 4:
            buffer[1] = 126
            buffer.storeBytes(of: UInt16(truncatingIfNeeded: count).bigEndian, toByteOffset: 2, as: UInt16.self)
        default:
            buffer[1] = 127
            buffer.storeBytes(of: UInt64(truncatingIfNeeded: count).bigEndian, toByteOffset: 2, as: UInt64.self)
        }
    }

    /// How many bytes ``write(into:)`` writes: the shortest length form, and the key if any.
    @inline(__always)
    var encodedSize: Int {
        (payloadLength < 126 ? 2 : payloadLength <= UInt64(UInt16.max) ? 4 : 10) + (maskingKey == nil ? 0 : 4)
    }

    /// Stores the header into the first ``encodedSize`` bytes of `buffer`: the bytes ``write(into:)``
    /// appends (a test holds them equal), for a frame written in one pass. Inlined: where the key
    /// is known (a server's frames have none), its branches fold away.
    @inline(__always)
    func store(into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = (fin ? 0x80 : 0) | (reservedBits & 0x70) | (opcodeValue & 0x0F)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let keyOffset: Int
        if payloadLength < 126 {
            buffer[1] = maskBit | UInt8(truncatingIfNeeded: payloadLength)
            keyOffset = 2
        } else if payloadLength <= UInt64(UInt16.max) {
            buffer[1] = maskBit | 126
            buffer.storeBytes(of: UInt16(truncatingIfNeeded: payloadLength).bigEndian, toByteOffset: 2, as: UInt16.self)
            keyOffset = 4
        } else {
            buffer[1] = maskBit | 127
            buffer.storeBytes(of: payloadLength.bigEndian, toByteOffset: 2, as: UInt64.self)
            keyOffset = 10
        }
        maskingKey?.store(into: buffer, at: keyOffset)
    }

    /// Appends the header to `output`, with the shortest length form (RFC 6455 §5.2: "the minimal
    /// number of bytes MUST be used to encode the length").
    func write(into output: inout [UInt8]) {
        output.append((fin ? 0x80 : 0) | (reservedBits & 0x70) | (opcodeValue & 0x0F))
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payloadLength < 126 {
            output.append(maskBit | UInt8(truncatingIfNeeded: payloadLength))
        } else if payloadLength <= UInt64(UInt16.max) {
            output.append(maskBit | 126)
            output.append(UInt8(truncatingIfNeeded: payloadLength >> 8))
            output.append(UInt8(truncatingIfNeeded: payloadLength))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: payloadLength >> UInt64(shift)))
            }
        }
        if let key = maskingKey {
            key.append(to: &output)
        }
    }
}
