// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Version 1: one line of US-ASCII (§2.1 of the specification).
///
///     PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n
///     PROXY TCP6 2001:db8::1 2001:db8::2 56324 443\r\n
///     PROXY UNKNOWN\r\n                    (anything may follow UNKNOWN before the CRLF)
extension ProxyProtocolParser {
    /// What every version 1 line starts with.
    static let version1Prefix: [UInt8] = Array("PROXY ".utf8)
    /// The longest line, CRLF included: "If the CRLF sequence is not found in the first 107 characters,
    /// the receiver should declare the line invalid" (`PROXY UNKNOWN` with two full IPv6 addresses and
    /// ports).
    static let version1MaxLine = 107

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")

    /// Reads line bytes until the CRLF, then parses the line; `nil` when the input ended first.
    mutating func readVersion1(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Result<ProxyProtocolHeader, ProxyProtocolError>? {
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            let position = buffer.count
            buffer.append(byte)
            if position < Self.version1Prefix.count {
                guard byte != Self.version1Prefix[position] else { continue }
                // "PROXY" decides the version ("if ... the 5 first characters match ... "PROXY" then the
                // protocol must be parsed as version 1"); the space after it is the line's.
                let code: ProxyProtocolError.Code = position < 5 ? .notProxyProtocol : .invalidLine
                return .failure(ProxyProtocolError(code, at: position, reason: "expected \"PROXY \""))
            }
            // "The receiver must not tolerate a single CR or LF character to end the line".
            if buffer[position - 1] == Self.cr {
                guard byte == Self.lf else {
                    return .failure(ProxyProtocolError(.invalidLine, at: position - 1, reason: "a CR not followed by LF"))
                }
                return Self.parseVersion1Line(buffer[..<(position - 1)], byteCount: buffer.count)
            }
            if byte == Self.lf {
                return .failure(ProxyProtocolError(.invalidLine, at: position, reason: "an LF without a CR before it"))
            }
            if buffer.count == Self.version1MaxLine {
                return .failure(ProxyProtocolError(.headerTooLarge, at: position, reason: "no CRLF within the first 107 bytes"))
            }
        }
        return nil
    }

    /// Parses a whole line, without its CRLF; its indices are the offsets in the connection.
    static func parseVersion1Line(_ line: ArraySlice<UInt8>, byteCount: Int) -> Result<ProxyProtocolHeader, ProxyProtocolError> {
        let rest = line.dropFirst(version1Prefix.count)
        func invalid(_ at: Int, _ reason: String) -> Result<ProxyProtocolHeader, ProxyProtocolError> {
            .failure(ProxyProtocolError(.invalidLine, at: at, reason: reason))
        }
        if rest.starts(with: "UNKNOWN".utf8) {
            // "For "UNKNOWN", the rest of the line before the CRLF may be omitted by the sender, and the
            // receiver must ignore anything presented before the CRLF is found."
            let after = rest.dropFirst(7)
            guard after.isEmpty || after.first == space else {
                return invalid(after.startIndex, "a protocol other than TCP4, TCP6 or UNKNOWN")
            }
            return .success(ProxyProtocolHeader(version: .v1, command: .proxy, transportProtocol: nil, source: nil, destination: nil,
                                                tlvs: [], byteCount: byteCount))
        }
        let ipv6: Bool
        if rest.starts(with: "TCP4 ".utf8) {
            ipv6 = false
        } else if rest.starts(with: "TCP6 ".utf8) {
            ipv6 = true
        } else {
            return invalid(rest.startIndex, "a protocol other than TCP4, TCP6 or UNKNOWN")
        }
        // "exactly one space" between the fields, and none after the last.
        let fields = rest.dropFirst(5).split(separator: space, maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields.allSatisfy({ !$0.isEmpty }) else {
            return invalid(rest.startIndex + 5, "not four fields (source, destination and their ports) between single spaces")
        }
        var addresses: [IPAddressLiteral] = []
        for field in fields[0..<2] {
            // "IPv4 addresses must be indicated as a series of exactly 4 integers in the range [0..255]
            // inclusive written in decimal representation separated by exactly one dot between each other.
            // Heading zeroes are not permitted"; "The advertised protocol family dictates what format to use."
            let valid = ipv6 ? URISyntax.isIPv6Address(field) : URISyntax.isDottedQuad(field)
            guard valid, let address = IPAddressLiteral(strict: String(decoding: field, as: UTF8.self)), address.isIPv6 == ipv6 else {
                return invalid(field.startIndex, "not an \(ipv6 ? "IPv6" : "IPv4") address in canonical form")
            }
            addresses.append(address)
        }
        var ports: [UInt16] = []
        for field in fields[2..<4] {
            guard let port = port(field) else {
                return invalid(field.startIndex, "not a port: decimal 0 to 65535 without leading zeros")
            }
            ports.append(port)
        }
        return .success(ProxyProtocolHeader(version: .v1, command: .proxy, transportProtocol: .stream,
                                            source: SocketAddress(addresses[0], port: ports[0]),
                                            destination: SocketAddress(addresses[1], port: ports[1]), tlvs: [], byteCount: byteCount))
    }

    /// "a decimal integer in the range [0..65535] inclusive. Heading zeroes are not permitted in front of
    /// numbers in order to avoid any possible confusion with octal numbers."
    static func port(_ text: ArraySlice<UInt8>) -> UInt16? {
        guard (1...5).contains(text.count), text.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              text.count == 1 || text.first != UInt8(ascii: "0") else { return nil }
        // Five digits at most: no overflow of an Int.
        return UInt16(exactly: text.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
    }
}
