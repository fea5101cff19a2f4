// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

/// A numeric IPv4 or IPv6 address, in network byte order: 4 or 16 bytes. What a SOCKS5 request sends
/// for ATYP 1 and 4, and what `no_proxy` ranges are matched against.
struct IPAddressLiteral: Sendable, Hashable {
    /// 4 bytes (IPv4) or 16 (IPv6).
    let bytes: [UInt8]

    var isIPv6: Bool { bytes.count == 16 }

    /// Parses dotted-quad IPv4 (`192.0.2.1`, exactly four decimal parts) or IPv6 text (RFC 4291 §2.2,
    /// without brackets or zone), with the system's `inet_pton`; `nil` for anything else.
    init?(_ text: String) {
        if text.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            var address = in_addr()
            guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// Parses only RFC 3986 §3.2.2's `IPv4address` (four decimal octets, no leading zeros: `010` is no
    /// octal 8) and `IPv6address` (no zone, no brackets), checked by the core's grammar before the C
    /// library converts them, so that what is accepted does not depend on the platform's `inet_pton`
    /// (nor on a NUL byte, which would end its C string early); `nil` for anything else.
    init?(strict text: some StringProtocol) {
        let bytes = Array(text.utf8)[...]
        guard URISyntax.isDottedQuad(bytes) || URISyntax.isIPv6Address(bytes) else { return nil }
        self.init(String(text))
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16)
        self.bytes = bytes
    }

    /// The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2), or
    /// `self`.
    var unmapped: IPAddressLiteral {
        guard isIPv6, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return self }
        return IPAddressLiteral(bytes: Array(bytes[12...]))
    }

    /// Whether the first `prefixLength` bits equal those of `network` (same family).
    func isIn(_ network: IPAddressLiteral, prefixLength: Int) -> Bool {
        guard bytes.count == network.bytes.count, prefixLength >= 0, prefixLength <= 8 * bytes.count else { return false }
        var bits = prefixLength
        var index = 0
        while bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if bytes[index] & mask != network.bytes[index] & mask { return false }
            bits -= 8
            index += 1
        }
        return true
    }

    /// Loopback: 127.0.0.0/8 (RFC 1122 §3.2.1.3), ::1 (RFC 4291 §2.5.3), and IPv4-mapped 127/8.
    var isLoopback: Bool {
        let address = unmapped
        if !address.isIPv6 { return address.bytes[0] == 127 }
        return address.bytes[0..<15].allSatisfy { $0 == 0 } && address.bytes[15] == 1
    }
}
