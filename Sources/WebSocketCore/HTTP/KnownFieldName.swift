// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The field names every opening handshake carries, spelled as RFC 6455 and browsers spell them.
/// The head parser recognizes them, exactly so spelled, in a field line's first bytes: such a name
/// is known to be tokens (no scan a byte at a time), its string is a literal (no copy), and the
/// handshake knows the field without comparing its name again (``HandshakeFields``).
enum KnownFieldName: UInt8, CaseIterable, Sendable {
    case host, origin, upgrade, userAgent, connection, key, version, subprotocol, extensions

    /// The name as a literal, for the comparison: constant bytes, read through a pointer.
    var text: StaticString { literals.text }

    /// The name as a string literal (no allocation, whatever its length).
    var string: String { literals.string }

    /// Each name written once a line, as both literals: a `StaticString` gives its bytes without a
    /// check, a `String` literal is a string without an allocation, and neither is made from the
    /// other for free. `HTTPFieldLineTests` hold the two to the same bytes.
    @inline(__always)
    private var literals: (text: StaticString, string: String) {
        switch self {
        case .host: return ("Host", "Host")
        case .origin: return ("Origin", "Origin")
        case .upgrade: return ("Upgrade", "Upgrade")
        case .userAgent: return ("User-Agent", "User-Agent")
        case .connection: return ("Connection", "Connection")
        case .key: return ("Sec-WebSocket-Key", "Sec-WebSocket-Key")
        case .version: return ("Sec-WebSocket-Version", "Sec-WebSocket-Version")
        case .subprotocol: return ("Sec-WebSocket-Protocol", "Sec-WebSocket-Protocol")
        case .extensions: return ("Sec-WebSocket-Extensions", "Sec-WebSocket-Extensions")
        }
    }

    /// The name's length in bytes.
    @inline(__always)
    var count: Int { text.utf8CodeUnitCount }

    /// The known name that `bytes` starts with, spelled exactly so, or `nil`; what follows it is
    /// the caller's to check. The candidate is picked by the first byte (and by the second, or the
    /// one after `Sec-WebSocket-`), then compared a word at a time: eight bytes a step, the last
    /// word overlapping the one before (four-byte words below eight bytes), with no byte loop for
    /// the rest.
    @inline(__always)
    init?(startOf bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 4, let base = bytes.baseAddress else { return nil }
        let candidate: KnownFieldName
        switch bytes[0] {
        case UInt8(ascii: "H"): candidate = .host
        case UInt8(ascii: "O"): candidate = .origin
        case UInt8(ascii: "U"): candidate = bytes[1] == UInt8(ascii: "p") ? .upgrade : .userAgent
        case UInt8(ascii: "C"): candidate = .connection
        case UInt8(ascii: "S"):
            guard bytes.count > 14 else { return nil }
            switch bytes[14] {
            case UInt8(ascii: "K"): candidate = .key
            case UInt8(ascii: "V"): candidate = .version
            case UInt8(ascii: "P"): candidate = .subprotocol
            case UInt8(ascii: "E"): candidate = .extensions
            default: return nil
            }
        default: return nil
        }
        let text = candidate.text
        let count = text.utf8CodeUnitCount
        // Every name has at least four bytes, and `bytes` holds at least the name: every load below
        // stays inside both.
        guard bytes.count >= count else { return nil }
        let a = UnsafeRawPointer(base), b = UnsafeRawPointer(text.utf8Start)
        if count >= 8 {
            var index = 0
            while index < count &- 8 {
                guard a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: index, as: UInt64.self) else { return nil }
                index &+= 8
            }
            guard a.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                == b.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self) else { return nil }
        } else {
            guard a.loadUnaligned(fromByteOffset: 0, as: UInt32.self) == b.loadUnaligned(fromByteOffset: 0, as: UInt32.self),
                  a.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
                    == b.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self) else { return nil }
        }
        self = candidate
    }

    /// The known name `line` starts with when its colon follows it: those bytes are tokens, with no
    /// scan. `nil` otherwise (the line is then scanned a byte at a time).
    @inline(__always)
    init?(before line: UnsafeBufferPointer<UInt8>) {
        guard let known = KnownFieldName(startOf: line) else { return nil }
        let count = known.count
        guard line.count > count, line[count] == UInt8(ascii: ":") else { return nil }
        self = known
    }
}
