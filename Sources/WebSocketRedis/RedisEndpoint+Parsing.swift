// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

extension RedisEndpoint {
    /// Parses a Redis URL in the forms redis-py, Jedis, ioredis and node-redis accept:
    ///
    /// - `redis://[[user]:password@]host[:port][/db]` and `rediss://…` (TLS): a host name, IPv4
    ///   address or bracketed IPv6 address (`[::1]`, `[fe80::1%25eth0]`), read as in a `ws://` URL
    ///   (a name is lowercased); the port 1 to 65535, by default 6379; the database a decimal number,
    ///   by default 0.
    /// - `unix://[[user]:password@]/path/to/socket[?db=n]`: an absolute path, percent-decoded, of at
    ///   most 107 bytes (a Unix socket address's limit on Linux).
    ///
    /// The scheme is read in any case. User and password are percent-decoded (`%40` is `@`); `:password@`
    /// or `password` alone in the query is the `default` user. A query may give `db`, `username` and
    /// `password` (redis-py's form, which a Unix socket URL needs for its database), each once and not
    /// also in the path or user information; any other query parameter, a fragment, or a path other
    /// than the database fails, so that a mistyped option is not silently ignored.
    ///
    /// - Throws: ``RedisError/Code/invalidURL`` with the reason, which never holds the credentials.
    public init(parsing text: String) throws(RedisError) {
        func fail(_ reason: String) -> RedisError { RedisError(.invalidURL, reason: reason) }
        let bytes = Array(text.utf8)
        // RFC 3986 §2: no byte of a URL is a space or a control character; what is not ASCII must be
        // percent-encoded.
        guard !bytes.isEmpty else { throw fail("empty") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw fail("spaces, control characters or non-ASCII bytes")
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            throw fail("no scheme: write redis://, rediss:// or unix://")
        }
        let separator = colon
        let scheme = String(decoding: bytes[..<separator], as: UTF8.self).lowercased()
        guard scheme == "redis" || scheme == "rediss" || scheme == "unix" else {
            throw fail("unsupported scheme \(String(reflecting: scheme)): use redis, rediss or unix")
        }
        var rest = bytes[(separator + 3)...]
        guard !rest.contains(UInt8(ascii: "#")) else { throw fail("a Redis URL has no fragment") }

        var query = Query()
        if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = try Query(rest[(mark + 1)...])
            rest = rest[..<mark]
        }
        // The authority ends at the first "/" (RFC 3986 §3.2); a Unix socket URL's is empty, or only
        // user information.
        let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        var authority = rest[..<slash]
        let path = rest[slash...]

        var credentials: RedisCredentials?
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            credentials = try Self.credentials(authority[..<at])
            authority = authority[(at + 1)...]
        }
        if query.user != nil || query.password != nil {
            guard credentials == nil else { throw fail("credentials both before the host and in the query") }
            guard let password = query.password else {
                throw fail("a user without a password: give password too (or only password, for the default user)")
            }
            credentials = RedisCredentials(user: query.user, password: password)
        }

        if scheme == "unix" {
            guard authority.isEmpty else { throw fail("a unix:// URL has no host: write unix:///path/to/socket") }
            guard path.count > 1 else { throw fail("no socket path") }
            let decoded = try Self.percentDecode(path, what: "socket path")
            guard decoded.utf8.count <= 107 else { throw fail("the socket path is longer than 107 bytes") }
            guard !decoded.utf8.contains(0) else { throw fail("the socket path holds a NUL byte") }
            self.init(address: .unix(path: decoded), credentials: credentials, database: query.database ?? 0)
            return
        }

        var database = 0
        if path.count > 1 {
            guard query.database == nil else { throw fail("the database both in the path and in the query") }
            guard let number = Self.database(path.dropFirst()) else {
                throw fail("the path is the database number: /0 to /\(Int32.max)")
            }
            database = number
        } else if let number = query.database {
            database = number
        }

        // The core's reading of a ws:// URL's host and port (RFC 3986 §3.2.2, §3.2.3): a name or IPv4
        // address, normalized, or an IPv6 address in brackets with an optional RFC 6874 zone.
        let host: String
        let port: UInt16?
        do throws(WebSocketURLError) {
            (host, port) = try URISyntax.parseHostPort(authority)
        } catch {
            throw fail("\(error)")
        }
        self.init(address: .tcp(host: host, port: port ?? Self.defaultPort), usesTLS: scheme == "rediss", credentials: credentials,
                  database: database)
    }

    /// `db`, `username` and `password` of a query, each at most once.
    private struct Query {
        var database: Int?
        var user: String?
        var password: String?

        init() {}

        init(_ text: ArraySlice<UInt8>) throws(RedisError) {
            for parameter in text.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let equals = parameter.firstIndex(of: UInt8(ascii: "=")) ?? parameter.endIndex
                let name = String(decoding: parameter[..<equals], as: UTF8.self)
                let value = parameter[equals...].dropFirst()
                func repeated() -> RedisError { RedisError(.invalidURL, reason: "\(name) given twice in the query") }
                switch name {
                case "db":
                    guard database == nil else { throw repeated() }
                    guard let number = RedisEndpoint.database(value) else {
                        throw RedisError(.invalidURL, reason: "db is a number from 0 to \(Int32.max)")
                    }
                    database = number
                case "username":
                    guard user == nil else { throw repeated() }
                    user = try RedisEndpoint.percentDecode(value, what: "user name")
                case "password":
                    guard password == nil else { throw repeated() }
                    password = try RedisEndpoint.percentDecode(value, what: "password")
                default:
                    throw RedisError(.invalidURL, reason: "unknown query parameter \(String(reflecting: name)): db, username and password are understood")
                }
            }
        }
    }

    private static func database(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        return RESPDecoder.decimal(digits, atMost: Int(Int32.max))
    }

    private static func credentials(_ info: ArraySlice<UInt8>) throws(RedisError) -> RedisCredentials {
        guard let colon = info.firstIndex(of: UInt8(ascii: ":")) else {
            throw RedisError(.invalidURL, reason: "a user without a password: write user:password@, or :password@ for the default user")
        }
        let user = try percentDecode(info[..<colon], what: "user name")
        let password = try percentDecode(info[(colon + 1)...], what: "password")
        return RedisCredentials(user: user.isEmpty ? nil : user, password: password)
    }

    /// Percent-decodes (RFC 3986 §2.1) as UTF-8, as the core does a ws:// URL's user information.
    private static func percentDecode(_ text: ArraySlice<UInt8>, what: String) throws(RedisError) -> String {
        do throws(WebSocketURLError) {
            return try URISyntax.percentDecodeUserInfo(text)
        } catch {
            throw RedisError(.invalidURL, reason: "the \(what): \(error)")
        }
    }
}
