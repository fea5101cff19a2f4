/// Why a string is not a usable `ws://` or `wss://` URI (RFC 6455 §3, with the syntax of RFC 3986).
///
/// The cases about the user info carry no text, so that logging an error never shows a password.
public enum WebSocketURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The string does not start with `scheme:` (RFC 3986 §3.1), as in `example.com/chat`.
    case missingScheme
    /// The scheme, lowercased, is not `ws` or `wss`. RFC 6455 §3 defines only these two, so `http` and
    /// `https` are refused rather than mapped to them.
    case unsupportedScheme(String)
    /// The scheme is not followed by `//` and an authority: a WebSocket URI always names its host
    /// (RFC 6455 §3).
    case missingAuthority
    /// The user info holds a character RFC 3986 §3.2.1 does not allow there: whitespace, a control
    /// character, or one of `"<>[\]^`{|}`. Such characters are accepted only percent-encoded.
    case invalidUserInfo
    /// A `%` in the user info or the host is not followed by two hex digits (RFC 3986 §2.1).
    case invalidPercentEncoding
    /// The percent-decoded user info or host is not valid UTF-8 (RFC 3986 §2.5, §3.2.2).
    case invalidUTF8
    /// The authority has no host, as in `ws://`, `ws://:80` or `ws://user@/`.
    case emptyHost
    /// The host, as written, holds a character a registered name may not hold (RFC 3986 §3.2.2: letters,
    /// digits, `-._~`, sub-delims and percent-escapes), an escape for whitespace or a control character,
    /// a colon outside brackets other than the one before the port (an IPv6 address needs brackets),
    /// or something other than `:port` after `]`.
    case invalidHost(String)
    /// The host, as written, ends in a number, so resolvers would read it as an IPv4 address, but it is
    /// not a dotted quad of decimal octets 0-255 without leading zeros (RFC 3986 §3.2.2 `IPv4address`).
    case invalidIPv4Address(String)
    /// The text between the brackets is not an IPv6 address (RFC 4291 §2.2, RFC 3986 §3.2.2), optionally
    /// followed by a zone ID written `%25zone` (RFC 6874 §2).
    case invalidIPv6Address(String)
    /// A `[` opens an IPv6 literal that no `]` closes.
    case unclosedIPv6Literal
    /// The port, as written, holds something other than decimal digits (RFC 3986 §3.2.3).
    case invalidPort(String)
    /// The port, as written, is 0 or above 65535.
    case portOutOfRange(String)
    /// The URI has a fragment: RFC 6455 §3 forbids them, and a `#` in the resource must be sent as `%23`.
    case fragmentNotAllowed

    /// A one-line explanation. Texts from the URI are quoted with escapes, so control characters in
    /// them cannot forge log lines.
    public var description: String {
        switch self {
        case .missingScheme: return "missing scheme: expected ws:// or wss://"
        case .unsupportedScheme(let s): return "unsupported scheme \(String(reflecting: s)): expected ws or wss"
        case .missingAuthority: return "missing // and host after the scheme"
        case .invalidUserInfo: return "invalid character in the user info"
        case .invalidPercentEncoding: return "% not followed by two hex digits"
        case .invalidUTF8: return "percent-decoded text is not valid UTF-8"
        case .emptyHost: return "empty host"
        case .invalidHost(let h): return "invalid host \(String(reflecting: h))"
        case .invalidIPv4Address(let h): return "invalid IPv4 address \(String(reflecting: h))"
        case .invalidIPv6Address(let h): return "invalid IPv6 address \(String(reflecting: h))"
        case .unclosedIPv6Literal: return "IPv6 address without its closing ]"
        case .invalidPort(let p): return "invalid port \(String(reflecting: p))"
        case .portOutOfRange(let p): return "port \(String(reflecting: p)) is not in 1...65535"
        case .fragmentNotAllowed: return "WebSocket URIs may not have a fragment (#)"
        }
    }
}

extension WebSocketURL: CustomStringConvertible {
    /// Parses a `ws://` or `wss://` URI (RFC 6455 §3, RFC 3986 syntax).
    ///
    /// - Leading and trailing ASCII whitespace (space, tab, CR, LF, form feed) of the whole string is
    ///   ignored, as it often comes along from configuration files and user input. Nothing else is
    ///   silently dropped.
    /// - The scheme is case-insensitive (RFC 3986 §3.1). Only `ws` and `wss` are accepted.
    /// - The user info is split at the last `@` of the authority, so an unescaped `@` in a password is
    ///   tolerated, then at its first `:` into ``user`` and ``password``, both percent-decoded. An empty
    ///   user info (`ws://@host`) means no user.
    /// - A registered name is lowercased (RFC 3986 §3.2.2: hosts are case-insensitive); its escapes of
    ///   unreserved characters are decoded and the others written with uppercase hex (RFC 3986 §6.2.2).
    ///   A name that ends in a number must be a dotted quad, because resolvers read such names as IPv4
    ///   addresses in the legacy `inet_aton` forms (`127.1`, `0x7f000001`, octal `010.0.0.1`), which would
    ///   let one address hide behind many spellings. Internationalized names must be given in their
    ///   ASCII form (`xn--...`): this module has no IDNA tables.
    /// - An IPv6 address is stored without brackets, its hex digits lowercased, its zone ID (RFC 6874)
    ///   kept as written with its `%25`; decode that to `%` before passing the address to a resolver.
    /// - An empty port (`ws://host:/`) means the default, as RFC 3986 §3.2.3 allows.
    /// - The resource keeps path and query as written, `%XX` escapes included, except that characters
    ///   RFC 3986 does not allow there (spaces, non-ASCII, a `%` that starts no escape...) are
    ///   percent-encoded as UTF-8, as browsers do, so that the request line is always valid. Dot segments
    ///   are not removed.
    public init(parsing string: String) throws(WebSocketURLError) {
        let all = Array(string.utf8)
        var start = 0
        var end = all.count
        while start < end, URISyntax.isASCIIWhitespace(all[start]) { start += 1 }
        while end > start, URISyntax.isASCIIWhitespace(all[end - 1]) { end -= 1 }
        let input = all[start..<end]

        // Scheme (RFC 3986 §3.1): ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
        var i = input.startIndex
        guard i < input.endIndex, URISyntax.isAlpha(input[i]) else { throw .missingScheme }
        while i < input.endIndex, input[i] != UInt8(ascii: ":") {
            guard URISyntax.isSchemeByte(input[i]) else { throw .missingScheme }
            i += 1
        }
        guard i < input.endIndex else { throw .missingScheme }
        let scheme = String(decoding: input[input.startIndex..<i].map(URISyntax.lowercased), as: UTF8.self)
        let isSecure: Bool
        switch scheme {
        case "ws": isSecure = false
        case "wss": isSecure = true
        default: throw .unsupportedScheme(scheme)
        }
        i += 1

        // Authority (RFC 3986 §3.2): "//" up to the first "/", "?" or "#".
        guard input.endIndex - i >= 2, input[i] == UInt8(ascii: "/"), input[i + 1] == UInt8(ascii: "/") else {
            throw .missingAuthority
        }
        i += 2
        let authorityStart = i
        while i < input.endIndex, !URISyntax.endsAuthority(input[i]) { i += 1 }
        let authority = input[authorityStart..<i]
        let rest = input[i..<input.endIndex]

        var user: String?
        var password: String?
        var hostPort = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let info = authority[authority.startIndex..<at]
            hostPort = authority[(at + 1)..<authority.endIndex]
            try URISyntax.checkUserInfoCharacters(info)
            if !info.isEmpty {
                if let colon = info.firstIndex(of: UInt8(ascii: ":")) {
                    user = try URISyntax.percentDecodeUserInfo(info[info.startIndex..<colon])
                    password = try URISyntax.percentDecodeUserInfo(info[(colon + 1)..<info.endIndex])
                } else {
                    user = try URISyntax.percentDecodeUserInfo(info)
                }
            }
        }
        let (host, port) = try URISyntax.parseHostPort(hostPort)

        // Resource name (RFC 6455 §3): path, "/" when empty, and the query with its "?".
        if rest.contains(UInt8(ascii: "#")) { throw .fragmentNotAllowed }
        var resource = URISyntax.encodeResource(rest)
        if !resource.hasPrefix("/") { resource = "/" + resource }

        self.init(isSecure: isSecure, host: host, port: port, resource: resource, user: user, password: password)
    }

    /// The `Authorization` header value for ``user`` and ``password``: `Basic base64(user:password)`
    /// (RFC 7617 §2), the password empty when there is none, both in UTF-8 (RFC 7617 §2.1). Clients send it
    /// with the opening handshake, as SocketRocket does.
    ///
    /// `nil` when there is no user, and when the user holds a colon: RFC 7617 §2 forbids it because the
    /// server would split the credentials at that colon and read another user and password.
    public var basicAuthorization: String? {
        guard let user, !user.utf8.contains(UInt8(ascii: ":")) else { return nil }
        return "Basic " + Base64.encode(Array("\(user):\(password ?? "")".utf8))
    }

    /// The URI again: `scheme://[user[:password]@]host[:port]/resource`, the host in brackets when it is an
    /// IPv6 address, the port only when it is not the scheme's default, the user and password
    /// percent-encoded. Parsing it gives back an equal value for every value ``init(parsing:)`` returns.
    ///
    /// The resource is percent-encoded the way ``init(parsing:)`` encodes it (so a `#` becomes `%23`) and
    /// starts with `/`; the host is written as stored.
    public var absoluteString: String {
        var s = isSecure ? "wss://" : "ws://"
        if user != nil || password != nil {
            s += URISyntax.encodeUserInfo(user ?? "")
            if let password { s += ":" + URISyntax.encodeUserInfo(password) }
            s += "@"
        }
        return s + hostHeaderValue + normalizedResource
    }

    /// ``absoluteString`` without the password (`ws://user@host/chat`), so that the URL can be logged.
    /// The query is kept: credentials put there (`?token=...`) still show.
    public var description: String {
        var s = isSecure ? "wss://" : "ws://"
        if let user { s += URISyntax.encodeUserInfo(user) + "@" }
        return s + hostHeaderValue + normalizedResource
    }

    /// ``resource`` as a valid origin-form path and query: percent-encoded where RFC 3986 requires it,
    /// starting with `/`. Parsed values are already in this form; hand-built ones may not be.
    private var normalizedResource: String {
        let r = URISyntax.encodeResource(resource.utf8)
        return r.hasPrefix("/") ? r : "/" + r
    }
}

/// Byte-level RFC 3986 syntax for ``WebSocketURL``: character classes, percent-encoding, host and port.
/// It works on UTF-8 bytes and cuts only at ASCII bytes, so every slice it turns back into a `String` is
/// valid UTF-8.
enum URISyntax {
    // MARK: Character classes (RFC 3986 §2)

    /// Space, tab, LF, FF and CR: what ``WebSocketURL/init(parsing:)`` trims from both ends.
    static func isASCIIWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D
    }

    static func isAlpha(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
    }

    static func isDigit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func isHex(_ b: UInt8) -> Bool { hexValue(b) != nil }

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

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(upperHex[Int(b >> 4)])
        out.append(upperHex[Int(b & 0x0F)])
    }

    /// The value of the escape `%XX` starting at `i`, or `nil` when there is none there.
    static func escape(in bytes: ArraySlice<UInt8>, at i: Int) -> UInt8? {
        guard i >= bytes.startIndex, bytes.endIndex - i >= 3, bytes[i] == UInt8(ascii: "%"),
              let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else { return nil }
        return hi << 4 | lo
    }

    /// Whether the bytes are valid UTF-8: decoding replaces every ill-formed sequence with U+FFFD, whose
    /// encoding differs from the bytes it replaced, so only valid input survives unchanged.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

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

    static func percentDecodeUserInfo(_ text: ArraySlice<UInt8>) throws(WebSocketURLError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == UInt8(ascii: "%") {
                guard let b = escape(in: text, at: i) else { throw .invalidPercentEncoding }
                out.append(b)
                i += 3
            } else {
                out.append(text[i])
                i += 1
            }
        }
        guard isValidUTF8(out) else { throw .invalidUTF8 }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes everything but unreserved characters and sub-delims, so that `:`, `@` and `%` in a user or
    /// password cannot be mistaken for delimiters.
    static func encodeUserInfo(_ text: String) -> String {
        var out: [UInt8] = []
        for b in text.utf8 {
            if isUnreserved(b) || isSubDelim(b) { out.append(b) } else { appendEscape(b, to: &out) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Host and port (§3.2.2, §3.2.3)

    static func parseHostPort(_ hostPort: ArraySlice<UInt8>) throws(WebSocketURLError) -> (String, UInt16?) {
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
    static func isDottedQuad(_ text: ArraySlice<UInt8>) -> Bool {
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
    static func isIPv6Address(_ address: ArraySlice<UInt8>) -> Bool {
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
        let text = ArraySlice(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let b = text[i]
            if b == UInt8(ascii: "%"), escape(in: text, at: i) != nil {
                out.append(contentsOf: text[i..<(i + 3)])
                i += 3
                continue
            }
            if isResourceByte(b) { out.append(b) } else { appendEscape(b, to: &out) }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
