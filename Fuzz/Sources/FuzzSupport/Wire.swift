// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

/// What a sequence of frames means, message by message: the common language of the harness's own
/// decoder (what bytes say) and of a connection's events (what the library understood).
public enum WireItem: Hashable, Sendable, CustomStringConvertible {
    case text([UInt8])
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// A Close frame: its code (`nil` for an empty payload) and reason bytes.
    case close(code: UInt16?, reason: [UInt8])

    public var description: String {
        switch self {
        case .text(let b): return "text(\(b.count) bytes)"
        case .binary(let b): return "binary(\(b.count) bytes)"
        case .ping(let b): return "ping(\(b))"
        case .pong(let b): return "pong(\(b))"
        case .close(let code, let reason): return "close(\(code.map(String.init) ?? "none"), \(reason.count) bytes)"
        }
    }

    /// Payloads compared with `memcmp`: the harness is instrumented, and an element-wise comparison
    /// of large payloads would dominate the runs.
    public static func == (a: WireItem, b: WireItem) -> Bool {
        switch (a, b) {
        case let (.text(x), .text(y)), let (.binary(x), .binary(y)), let (.ping(x), .ping(y)), let (.pong(x), .pong(y)):
            return sameBytes(x, y)
        case let (.close(c1, r1), .close(c2, r2)):
            return c1 == c2 && sameBytes(r1, r2)
        default:
            return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .text(let b), .binary(let b), .ping(let b), .pong(let b): hasher.combine(b.count)
        case .close(let code, let reason):
            hasher.combine(code)
            hasher.combine(reason.count)
        }
    }
}

func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}

/// Strings compared by their UTF-8 bytes (not by canonical equivalence, as `==` compares them), in
/// place.
func sameUTF8(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}

/// An RFC 6455 §5 frame decoder written for the harness, independent of the library's parser: it
/// checks that what a `Connection` writes is valid (the right masking, minimal lengths, control-frame
/// rules, fragmentation, UTF-8 text, a sendable close code, nothing after the Close frame) and turns
/// it into ``WireItem``s. Any violation stops the fuzzer: the library wrote an invalid frame.
public struct WireDecoder {
    /// Whether the frames must be masked (a client's output) or not (a server's).
    public let masked: Bool
    /// Who wrote the bytes, for failure messages.
    public let writer: String
    private var pending: [UInt8] = []
    private var message: (opcode: UInt8, payload: [UInt8])? = nil
    public private(set) var items: [WireItem] = []
    /// Whether a Close frame was decoded; nothing may follow it (RFC 6455 §5.5.1).
    public private(set) var sawClose = false

    public init(masked: Bool, writer: String) {
        self.masked = masked
        self.writer = writer
    }

    /// The data messages decoded so far, in order.
    public var dataMessages: [WireItem] {
        items.filter { if case .text = $0 { return true } else if case .binary = $0 { return true } else { return false } }
    }

    public mutating func feed(_ bytes: [UInt8]) {
        feed(bytes[...])
    }

    /// Decodes straight from `bytes` while nothing is pending (the common case: whole frames), so
    /// that each frame's payload is copied once.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        if sawClose { broken("\(bytes.count) bytes after its Close frame") }
        if pending.isEmpty {
            let consumed = bytes.withUnsafeBytes { decodeFrames($0) }
            if consumed < bytes.count { pending = Array(bytes[(bytes.startIndex + consumed)...]) }
        } else {
            // Taken out of `self` while its frames are decoded into `self`.
            var buffer = pending
            pending = []
            buffer += bytes
            let consumed = buffer.withUnsafeBytes { decodeFrames($0) }
            buffer.removeFirst(consumed)
            pending = buffer
        }
    }

    private func broken(_ what: String) -> Never {
        fuzzFailure("\(writer) wrote an invalid frame stream: \(what)")
    }

    /// Decodes the complete frames at the start of `bytes`; returns how many bytes they take.
    private mutating func decodeFrames(_ bytes: UnsafeRawBufferPointer) -> Int {
        var start = 0
        // Room for a few frames' items at once, rather than growing from one (each growth is an
        // allocation, and allocations are what AddressSanitizer makes expensive).
        if items.capacity == 0 { items.reserveCapacity(16) }
        while let size = decodeFrame(bytes, at: start) {
            start += size
            if sawClose && start < bytes.count { broken("\(bytes.count - start) bytes after its Close frame") }
        }
        return start
    }

    /// Decodes the frame at `start` if it is complete; returns its size.
    private mutating func decodeFrame(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
        let available = bytes.count - start
        guard available >= 2 else { return nil }
        let b0 = bytes[start], b1 = bytes[start + 1]
        let fin = b0 & 0x80 != 0
        let opcode = b0 & 0x0F
        let length7 = Int(b1 & 0x7F)
        let isMasked = b1 & 0x80 != 0
        var size = 2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0) + (isMasked ? 4 : 0)
        guard available >= size else { return nil }
        var length: UInt64 = UInt64(length7)
        if length7 == 126 {
            length = UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2, as: UInt16.self)))
            guard length >= 126 else { broken("a 16-bit length \(length) that fits in 7 bits") }
        } else if length7 == 127 {
            length = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: start + 2, as: UInt64.self))
            guard length >> 63 == 0 else { broken("a 64-bit length with the top bit set") }
            guard length > 0xFFFF else { broken("a 64-bit length \(length) that fits in 16 bits") }
        }
        guard b0 & 0x70 == 0 else { broken("reserved bits \(b0 & 0x70)") }
        guard isMasked == masked else { broken(masked ? "an unmasked frame" : "a masked frame") }
        switch opcode {
        case 0, 1, 2, 8, 9, 10: break
        default: broken("opcode \(opcode)")
        }
        guard length <= UInt64(available - size) else { return nil }
        let payloadStart = start + size
        let payloadBytes = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<(payloadStart + Int(length))])
        // The key as it lies in memory: masking XORs it in the same order.
        let key: UInt32? = isMasked ? bytes.loadUnaligned(fromByteOffset: payloadStart - 4, as: UInt32.self) : nil
        size += Int(length)

        if opcode == 0 {
            guard message != nil else { broken("a continuation frame outside a message") }
            let offset = message!.payload.count
            message!.payload.append(contentsOf: UnsafeBufferPointer(start: payloadBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                                 count: payloadBytes.count))
            if let key {
                message!.payload.withUnsafeMutableBytes { WireEncoder.mask(UnsafeMutableRawBufferPointer(rebasing: $0[offset...]), key: key) }
            }
        } else {
            var payload = Bytes.copy(payloadBytes)
            if let key { payload.withUnsafeMutableBytes { WireEncoder.mask($0, key: key) } }
            if opcode >= 8 {
                guard fin else { broken("a fragmented control frame") }
                guard payload.count <= 125 else { broken("a control frame of \(payload.count) bytes") }
                switch opcode {
                case 8: items.append(decodeClose(payload))
                case 9: items.append(.ping(payload))
                default: items.append(.pong(payload))
                }
                return size
            }
            guard message == nil else { broken("a new message inside a fragmented one") }
            message = (opcode, payload)
        }
        if fin, let (opcode, payload) = message {
            message = nil
            if opcode == 1 {
                guard String(validating: payload, as: UTF8.self) != nil else { broken("a text message that is not UTF-8") }
                items.append(.text(payload))
            } else {
                items.append(.binary(payload))
            }
        }
        return size
    }

    private mutating func decodeClose(_ payload: [UInt8]) -> WireItem {
        sawClose = true
        if payload.isEmpty { return .close(code: nil, reason: []) }
        guard payload.count >= 2 else { broken("a Close frame of 1 byte") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        // RFC 6455 §7.4: the codes an endpoint may send.
        guard Connection.CloseCode(rawValue: code).isValidOnWire else { broken("close code \(code), which may not be sent") }
        let reason = Array(payload[2...])
        guard String(validating: reason, as: UTF8.self) != nil else { broken("a close reason that is not UTF-8") }
        return .close(code: code, reason: reason)
    }
}

/// Frame encoding for inputs: the harness builds the frames a fuzz input describes.
public enum WireEncoder {
    /// The masking key of the RFC 6455 §5.7 examples.
    public static let sampleKey: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// One frame with the shortest length form, masked with `key` when given: one allocation, the
    /// payload copied and masked in place (payloads are amplified to tens of kilobytes).
    public static func frame(firstByte: UInt8, payload: [UInt8], key: [UInt8]?) -> [UInt8] {
        let maskBit: UInt8 = key == nil ? 0 : 0x80
        let count = payload.count
        let lengthBytes = count < 126 ? 0 : count <= 0xFFFF ? 2 : 8
        let header = 2 + lengthBytes + (key == nil ? 0 : 4)
        return [UInt8](unsafeUninitializedCapacity: header + count) { buffer, initialized in
            buffer[0] = firstByte
            switch lengthBytes {
            case 0: buffer[1] = maskBit | UInt8(count)
            case 2:
                buffer[1] = maskBit | 126
                buffer[2] = UInt8(count >> 8)
                buffer[3] = UInt8(count & 0xFF)
            default:
                buffer[1] = maskBit | 127
                for i in 0..<8 { buffer[2 + i] = UInt8((UInt64(count) >> UInt64(56 - 8 * i)) & 0xFF) }
            }
            if let key {
                for i in 0..<4 { buffer[2 + lengthBytes + i] = key[i] }
            }
            let body = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[header...])
            if count > 0 {
                payload.withUnsafeBytes { _ = memcpy(body.baseAddress!, $0.baseAddress!, count) }
            }
            if let key {
                precondition(key.count == 4)
                mask(body, key: key.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            }
            initialized = header + count
        }
    }

    /// XORs `bytes` with the 4-byte `key` (RFC 6455 §5.3), eight bytes at a time: the harness is
    /// instrumented like the library, and a byte loop over amplified payloads would dominate the runs.
    public static func mask(_ bytes: inout [UInt8], key: [UInt8]) {
        precondition(key.count == 4)
        let word = key.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        bytes.withUnsafeMutableBytes { mask($0, key: word) }
    }

    /// The same, in place, with the 4 key bytes read as a word in memory order.
    public static func mask(_ raw: UnsafeMutableRawBufferPointer, key: UInt32) {
        // The key twice, as payload words are read: both halves alike, so no byte order to mind.
        let word = UInt64(key) | UInt64(key) << 32
        // 32 bytes a step: the loop's own comparison is traced (instrumented code), once a step.
        var offset = 0
        func xor(_ at: Int) {
            raw.storeBytes(of: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) ^ word, toByteOffset: at, as: UInt64.self)
        }
        while raw.count - offset >= 32 {
            xor(offset)
            xor(offset + 8)
            xor(offset + 16)
            xor(offset + 24)
            offset += 32
        }
        while raw.count - offset >= 8 {
            xor(offset)
            offset += 8
        }
        let words = offset / 8
        withUnsafeBytes(of: key) { keyBytes in
            for i in (words * 8)..<raw.count { raw[i] ^= keyBytes[i & 3] }
        }
    }

    /// Rewrites the rest of `input`, read as frames in the wire format whose mask bit is ignored and
    /// which carry no masking key, into frames masked (`masked`, for a server) or not (for a client).
    /// The key is the §5.7 one, or 4 bytes of input before each payload (`keysFromInput`). The input
    /// gives the payload in clear: the receiver unmasks back to it, so the fuzzer steers what the
    /// parser sees past the mask check. A frame cut short by the end of the input stays short.
    public static func frameStream(_ input: inout FuzzInput, masked: Bool, keysFromInput: Bool) -> [UInt8] {
        var out: [UInt8] = []
        // The frames of the input plus a key each: one growth at most for the common short frames.
        out.reserveCapacity(input.remainingCount + (masked ? 64 : 0))
        while !input.isAtEnd {
            let b0 = input.byte()
            out.append(b0)
            guard !input.isAtEnd else { break }
            let b1 = input.byte()
            out.append(masked ? b1 | 0x80 : b1 & 0x7F)
            let extended = input.takeSlice(b1 & 0x7F == 126 ? 2 : b1 & 0x7F == 127 ? 8 : 0)
            out += extended
            var length = UInt64(b1 & 0x7F)
            if extended.count >= 2 { length = extended.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            guard !input.isAtEnd || length == 0 else { break }
            var key = sampleKey
            if masked {
                if keysFromInput {
                    key = input.take(4)
                    while key.count < 4 { key.append(0) }
                }
                out += key
            }
            let start = out.count
            out += input.takeSlice(Int(min(length, UInt64(input.remainingCount))))
            if masked && out.count > start {
                let word = key.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                out.withUnsafeMutableBytes { mask(UnsafeMutableRawBufferPointer(rebasing: $0[start...]), key: word) }
            }
        }
        return out
    }
}

/// Event equality with payloads compared by `memcmp` (see ``WireItem/==(_:_:)``).
public func sameEvents(_ a: [Connection.Event], _ b: [Connection.Event]) -> Bool {
    guard a.count == b.count else { return false }
    for (x, y) in zip(a, b) {
        switch (x, y) {
        case let (.binary(p), .binary(q)), let (.ping(p), .ping(q)), let (.pong(p), .pong(q)):
            guard sameBytes(p, q) else { return false }
        case let (.text(s), .text(t)):
            guard sameUTF8(s, t) else { return false }
        case let (.fragment(p), .fragment(q)):
            guard p.kind == q.kind, p.isFirst == q.isFirst, p.isFinal == q.isFinal, sameBytes(p.bytes, q.bytes) else { return false }
        default:
            guard x == y else { return false }
        }
    }
    return true
}
