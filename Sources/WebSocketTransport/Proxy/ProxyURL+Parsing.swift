// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension ProxyURL {
    /// Parses a proxy URL: `[scheme://][user[:password]@]host[:port][/]`.
    ///
    /// - `scheme` is `http`, `https`, `socks5` or `socks5h` in any case; without one, `http`.
    /// - `user` and `password` are percent-decoded (`%40` is `@`); an `@` ends them at the last `@`
    ///   of the authority. `user@` has an empty password.
    /// - `host` is a name (letters, digits, `-`, `.`, `_`), an IPv4 address, or an IPv6 address in
    ///   brackets, optionally with a zone (`[fe80::1%25eth0]`, RFC 6874).
    /// - `port` is 1 to 65535; an empty or missing port is the scheme's default.
    ///
    /// - Throws: ``ProxyError/Code/invalidURL`` with the reason (never the credentials): another
    ///   scheme (`socks4://`), no host, a bad port, a path, query or fragment, bad percent-encoding,
    ///   spaces or control characters.
    public init(parsing text: String) throws(ProxyError) {
        let bytes = Array(text.utf8)
        func fail(_ reason: String) -> ProxyError { ProxyError(.invalidURL, reason: reason) }
        // RFC 3986 §2: no byte of a URL is a space or a control character; what is not ASCII must be
        // percent-encoded.
        guard !bytes.isEmpty else { throw fail("empty") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw fail("spaces, control characters or non-ASCII bytes")
        }

        var rest = bytes[...]
        let scheme: Scheme
        if let separator = Self.find(Array("://".utf8), in: rest) {
            let name = String(decoding: rest[..<separator], as: UTF8.self)
            guard let known = Scheme(name: name) else {
                throw fail("unsupported scheme \(String(reflecting: name)): use http, https, socks5 or socks5h")
            }
            scheme = known
            rest = rest[(separator + 3)...]
        } else {
            scheme = .http
        }

        // The authority ends at the first "/", "?" or "#" (RFC 3986 §3.2).
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        let after = rest[end...]
        guard after.isEmpty || Array(after) == [UInt8(ascii: "/")] else {
            throw fail("a proxy URL has no path, query or fragment")
        }
        var authority = rest[..<end]

        var credentials: ProxyCredentials?
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let info = authority[..<at]
            authority = authority[(at + 1)...]
            let colon = info.firstIndex(of: UInt8(ascii: ":"))
            let user = try Self.percentDecode(info[..<(colon ?? info.endIndex)], what: "user name")
            let password = try colon.map { colon throws(ProxyError) in
                try Self.percentDecode(info[(colon + 1)...], what: "password")
            } ?? ""
            credentials = ProxyCredentials(user: user, password: password)
        }

        let host: String
        var portText: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw fail("unclosed [ in the host") }
            host = try Self.ipv6Host(authority[(authority.startIndex + 1)..<close])
            let tail = authority[(close + 1)...]
            if let first = tail.first {
                guard first == UInt8(ascii: ":") else { throw fail("unexpected characters after ]") }
                portText = tail.dropFirst()
            }
        } else {
            let colon = authority.firstIndex(of: UInt8(ascii: ":"))
            let name = authority[..<(colon ?? authority.endIndex)]
            if let colon { portText = authority[(colon + 1)...] }
            guard !name.isEmpty else { throw fail("no host") }
            guard name.allSatisfy(Self.isHostNameByte) else {
                throw fail("the host may hold letters, digits, '-', '.' and '_' (an IPv6 address goes in brackets)")
            }
            host = String(decoding: name, as: UTF8.self)
        }

        var port = scheme.defaultPort
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let value = UInt16(String(decoding: portText, as: UTF8.self)), value > 0
            else { throw fail("the port must be a number from 1 to 65535") }
            port = value
        }
        self.init(scheme: scheme, host: host, port: port, credentials: credentials)
    }

    /// RFC 3986 §3.2.2 reg-name, narrowed to what DNS and hosts files use.
    static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// The inside of `[…]`: an IPv6 address, and a zone after `%25` (RFC 6874 §2).
    private static func ipv6Host(_ inside: ArraySlice<UInt8>) throws(ProxyError) -> String {
        var address = inside
        var zone: ArraySlice<UInt8> = []
        if let percent = inside.firstIndex(of: UInt8(ascii: "%")) {
            address = inside[..<percent]
            let encoded = inside[percent...]
            guard encoded.starts(with: Array("%25".utf8)), encoded.count > 3 else {
                throw ProxyError(.invalidURL, reason: "an IPv6 zone is written %25 and a name")
            }
            zone = encoded.dropFirst(3)
            guard zone.allSatisfy(isHostNameByte) else {
                throw ProxyError(.invalidURL, reason: "an IPv6 zone may hold letters, digits, '-', '.' and '_'")
            }
        }
        let text = String(decoding: address, as: UTF8.self)
        guard IPAddressLiteral(text)?.isIPv6 == true else {
            throw ProxyError(.invalidURL, reason: "\(String(reflecting: text)) is not an IPv6 address")
        }
        return zone.isEmpty ? text : text + "%" + String(decoding: zone, as: UTF8.self)
    }

    /// Percent-decodes user information (RFC 3986 §2.1) as UTF-8.
    static func percentDecode(_ text: ArraySlice<UInt8>, what: String) throws(ProxyError) -> String {
        guard let decoded = PercentEncoding.decode(text) else {
            throw ProxyError(.invalidURL, reason: "bad percent-encoding in the \(what)")
        }
        guard PercentEncoding.isValidUTF8(decoded) else {
            throw ProxyError(.invalidURL, reason: "the \(what) is not UTF-8 once percent-decoded")
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The index where `needle` starts in `haystack`, or `nil`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
