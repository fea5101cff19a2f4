// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Byte-level RFC 3986 syntax for ``WebSocketURL``: character classes, user info, host and port, and
/// the resource (percent-encoding itself is ``PercentEncoding``).
/// It works on UTF-8 bytes and cuts only at ASCII bytes, so every slice it turns back into a `String` is
/// valid UTF-8. The address checks are `package`: the transport reads PROXY protocol lines and trusted
/// proxy ranges with the same grammar.
package enum URISyntax {
    // MARK: Character classes (RFC 3986 §2)

    /// Space, tab, LF, FF and CR: what ``WebSocketURL/init(parsing:)`` trims from both ends.
    static func isASCIIWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D
    }

    static func isAlpha(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
    }

    static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

    static func isHex(_ b: UInt8) -> Bool { PercentEncoding.isHex(b) }

    static func lowercased(_ b: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) ? b + 32 : b
    }

    static func isSchemeByte(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (§2.3).
    static func isUnreserved(_ b: UInt8) -> Bool {
        isAlpha(b) || isDigit(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
            || b == UInt8(ascii: "~")
    }

    /// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="` (§2.2).
    static func isSubDelim(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// The authority ends at the first `/`, `?` or `#` (§3.2).
    static func endsAuthority(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
    }

    /// What a path or query holds unencoded: `pchar`, `/` and `?` (§3.3, §3.4).
    static func isResourceByte(_ b: UInt8) -> Bool {
        isUnreserved(b) || isSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@")
            || b == UInt8(ascii: "/") || b == UInt8(ascii: "?")
    }

    static func appendEscape(_ b: UInt8, to out: inout [UInt8]) { PercentEncoding.appendEscape(b, to: &out) }

    static func escape(in bytes: ArraySlice<UInt8>, at i: Int) -> UInt8? { PercentEncoding.escape(in: bytes, at: i) }

    static func isValidUTF8(_ bytes: [UInt8]) -> Bool { PercentEncoding.isValidUTF8(bytes) }

    // MARK: User info (§3.2.1)

    /// Rejects whitespace and control characters, ASCII or not (C1 controls and the Unicode White_Space
    /// characters above U+007F), and the ASCII characters RFC 3986 allows in user info only encoded.
    /// Other non-ASCII characters are tolerated and stand for themselves, as browsers encode them.
    static func checkUserInfoCharacters(_ info: ArraySlice<UInt8>) throws(WebSocketURLError) {
        for b in info where b < 0x80 {
            guard isUnreserved(b) || isSubDelim(b) || b == UInt8(ascii: ":") || b == UInt8(ascii: "@")
                || b == UInt8(ascii: "%") else { throw .invalidUserInfo }
        }
        guard info.contains(where: { $0 >= 0x80 }) else { return }
        for scalar in String(decoding: info, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x80...0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
                throw .invalidUserInfo
            default:
                continue
            }
        }
    }

    package static func percentDecodeUserInfo(_ text: ArraySlice<UInt8>) throws(WebSocketURLError) -> String {
        guard let decoded = PercentEncoding.decode(text) else { throw .invalidPercentEncoding }
        guard isValidUTF8(decoded) else { throw .invalidUTF8 }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Encodes everything but unreserved characters and sub-delims, so that `:`, `@` and `%` in a user or
    /// password cannot be mistaken for delimiters.
    static func encodeUserInfo(_ text: String) -> String {
        String(decoding: PercentEncoding.encode(text.utf8) { isUnreserved($0) || isSubDelim($0) }, as: UTF8.self)
    }

    // MARK: Host and port (§3.2.2, §3.2.3)

    package static func parseHostPort(_ hostPort: ArraySlice<UInt8>) throws(WebSocketURLError) -> (String, UInt16?) {
        let host: String
        var portText: ArraySlice<UInt8>?
        if hostPort.first == UInt8(ascii: "[") {
            guard let close = hostPort.firstIndex(of: UInt8(ascii: "]")) else { throw .unclosedIPv6Literal }
            host = try parseIPv6Literal(hostPort[(hostPort.startIndex + 1)..<close])
            let after = close + 1
            if after < hostPort.endIndex {
                guard hostPort[after] == UInt8(ascii: ":") else {
                    throw .invalidHost(String(decoding: hostPort, as: UTF8.self))
                }
                portText = hostPort[(after + 1)..<hostPort.endIndex]
            }
        } else {
            var name = hostPort
            if let colon = hostPort.firstIndex(of: UInt8(ascii: ":")) {
                name = hostPort[hostPort.startIndex..<colon]
                portText = hostPort[(colon + 1)..<hostPort.endIndex]
                if portText?.contains(UInt8(ascii: ":")) == true {
                    throw .invalidHost(String(decoding: hostPort, as: UTF8.self))
                }
            }
            guard !name.isEmpty else { throw .emptyHost }
            host = try parseRegisteredNameOrIPv4(name)
        }
        return (host, try parsePort(portText))
    }

    /// `nil` for no port or an empty one (the scheme's default); otherwise 1...65535 in decimal, leading
    /// zeros allowed. Stops as soon as the value passes 65535, so no length of digits can overflow.
    static func parsePort(_ text: ArraySlice<UInt8>?) throws(WebSocketURLError) -> UInt16? {
        guard let text, !text.isEmpty else { return nil }
        let written = String(decoding: text, as: UTF8.self)
        guard text.allSatisfy(isDigit) else { throw .invalidPort(written) }
        var value = 0
        for b in text {
            value = value * 10 + Int(b - UInt8(ascii: "0"))
            guard value <= Int(UInt16.max) else { throw .portOutOfRange(written) }
        }
        guard value > 0, let port = UInt16(exactly: value) else { throw .portOutOfRange(written) }
        return port
    }

    /// A registered name, normalized (RFC 3986 §6.2.2): lowercased, escapes of unreserved characters
    /// decoded, other escapes kept with uppercase hex. Escapes of whitespace and control characters are
    /// refused, since no host holds them and they could only serve to smuggle bytes into `Host`.
    static func parseRegisteredNameOrIPv4(_ text: ArraySlice<UInt8>) throws(WebSocketURLError) -> String {
        var out: [UInt8] = []
        var decoded: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let b = text[i]
            if b == UInt8(ascii: "%") {
                guard let v = escape(in: text, at: i) else { throw .invalidPercentEncoding }
                decoded.append(v)
                if isUnreserved(v) {
                    out.append(lowercased(v))
                } else if v <= 0x20 || v == 0x7F {
                    throw .invalidHost(String(decoding: text, as: UTF8.self))
                } else {
                    appendEscape(v, to: &out)
                }
                i += 3
            } else if isUnreserved(b) || isSubDelim(b) {
                out.append(lowercased(b))
                decoded.append(b)
                i += 1
            } else {
                throw .invalidHost(String(decoding: text, as: UTF8.self))
            }
        }
        guard isValidUTF8(decoded) else { throw .invalidUTF8 }
        if endsInNumber(out[...]), !isDottedQuad(out[...]) {
            throw .invalidIPv4Address(String(decoding: text, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the last label (the one before a trailing dot, if any) is a decimal or `0x` hex number:
    /// the WHATWG URL Standard's test for a host that resolvers take for an IPv4 address.
    static func endsInNumber(_ name: ArraySlice<UInt8>) -> Bool {
        var labels = name.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, !last.isEmpty else { return false }
        if last.allSatisfy(isDigit) { return true }
        let s = last.startIndex
        return last.count >= 2 && last[s] == UInt8(ascii: "0") && last[s + 1] == UInt8(ascii: "x")
            && last.dropFirst(2).allSatisfy(isHex)
    }

    /// RFC 3986 §3.2.2 `IPv4address`: four `dec-octet`s 0-255 in decimal, without leading zeros.
    package static func isDottedQuad(_ text: ArraySlice<UInt8>) -> Bool {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(isDigit) else { return false }
            if part.count > 1, part.first == UInt8(ascii: "0") { return false }
            var value = 0
            for b in part { value = value * 10 + Int(b - UInt8(ascii: "0")) }
            guard value <= 255 else { return false }
        }
        return true
    }

    /// The text between brackets: an IPv6 address, lowercased, and an optional zone ID kept as written.
    /// RFC 3986's `IPvFuture` (`[v1.x]`) is refused: nothing could connect to it.
    static func parseIPv6Literal(_ literal: ArraySlice<UInt8>) throws(WebSocketURLError) -> String {
        let invalid = WebSocketURLError.invalidIPv6Address(String(decoding: literal, as: UTF8.self))
        let percent = literal.firstIndex(of: UInt8(ascii: "%"))
        let address = literal[literal.startIndex..<(percent ?? literal.endIndex)]
        guard isIPv6Address(address) else { throw invalid }
        var out = address.map(lowercased)
        if let percent {
            // RFC 6874 §2: ZoneID = 1*( unreserved / pct-encoded ), introduced by "%25" (an encoded "%").
            guard escape(in: literal, at: percent) == UInt8(ascii: "%") else { throw invalid }
            let zone = literal[(percent + 3)..<literal.endIndex]
            guard !zone.isEmpty else { throw invalid }
            var i = zone.startIndex
            while i < zone.endIndex {
                if zone[i] == UInt8(ascii: "%") {
                    guard escape(in: zone, at: i) != nil else { throw invalid }
                    i += 3
                } else {
                    guard isUnreserved(zone[i]) else { throw invalid }
                    i += 1
                }
            }
            out.append(contentsOf: literal[percent..<literal.endIndex])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 4291 §2.2 text form, as RFC 3986 §3.2.2 `IPv6address` spells it: eight groups of 1-4 hex digits
    /// separated by colons, the last two of which may be a dotted quad; or fewer groups around exactly one
    /// `::`, which stands for at least one group of zeros.
    package static func isIPv6Address(_ address: ArraySlice<UInt8>) -> Bool {
        let a = Array(address)
        var doubleColon: Int?
        var k = 0
        while k + 1 < a.count {
            if a[k] == UInt8(ascii: ":"), a[k + 1] == UInt8(ascii: ":") {
                // A second "::" (":::" overlaps itself, so it counts twice) is ambiguous.
                guard doubleColon == nil else { return false }
                doubleColon = k
            }
            k += 1
        }
        guard let d = doubleColon else { return groupCount(a[...], ipv4AtEnd: true) == 8 }
        guard let head = groupCount(a[0..<d], ipv4AtEnd: false),
              let tail = groupCount(a[(d + 2)..<a.count], ipv4AtEnd: true) else { return false }
        return head + tail <= 7
    }

    /// How many 16-bit groups colon-separated text holds (a trailing dotted quad counts two), or `nil` when
    /// a group is empty or not 1-4 hex digits.
    private static func groupCount(_ text: ArraySlice<UInt8>, ipv4AtEnd: Bool) -> Int? {
        if text.isEmpty { return 0 }
        let groups = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        var count = 0
        for (n, group) in groups.enumerated() {
            if ipv4AtEnd, n == groups.count - 1, group.contains(UInt8(ascii: ".")) {
                guard isDottedQuad(group) else { return nil }
                count += 2
            } else {
                guard (1...4).contains(group.count), group.allSatisfy(isHex) else { return nil }
                count += 1
            }
        }
        return count
    }

    // MARK: Resource (§3.3, §3.4)

    /// Percent-encodes, as UTF-8, every byte a path or query may not hold, keeps valid `%XX` escapes as
    /// written, and encodes a `%` that starts no escape as `%25`. Encoding is idempotent, so a parsed
    /// resource comes out unchanged.
    static func encodeResource(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: PercentEncoding.encode(bytes, keepingEscapes: true, keeps: isResourceByte), as: UTF8.self)
    }
}
