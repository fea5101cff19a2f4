// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

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
