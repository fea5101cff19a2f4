// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Where a Redis server is and how to log in to it, as written in a Redis URL.
///
/// ```swift
/// let endpoint = try RedisEndpoint(parsing: "rediss://app:s%40cret@cache.example:6380/2")
/// endpoint.address      // .tcp(host: "cache.example", port: 6380)
/// endpoint.usesTLS      // true
/// endpoint.credentials  // user "app", password "s@cret"
/// endpoint.database     // 2
/// print(endpoint)       // rediss://***@cache.example:6380/2
/// ```
///
/// The credentials never appear in ``description`` or in a `dump`.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// Where the server listens.
    public enum Address: Sendable, Hashable {
        /// A TCP host (a name, an IPv4 address, or an IPv6 address without brackets) and port.
        case tcp(host: String, port: UInt16)
        /// A Unix domain socket's path.
        case unix(path: String)
    }

    /// The port of a URL without one: 6379, for `redis://` and `rediss://` alike.
    public static let defaultPort: UInt16 = 6379

    /// Where the server listens.
    public var address: Address
    /// Whether the connection is TLS (`rediss://`).
    public var usesTLS: Bool
    /// What to log in with, or `nil` to send no `AUTH`.
    public var credentials: RedisCredentials?
    /// The logical database to `SELECT` (0, Redis's default, needs no `SELECT`).
    public var database: Int

    /// An endpoint.
    public init(address: Address, usesTLS: Bool = false, credentials: RedisCredentials? = nil, database: Int = 0) {
        self.address = address
        self.usesTLS = usesTLS
        self.credentials = credentials
        self.database = database
    }

    /// The URL without its credentials: `redis://host:port/db`, `rediss://…`, `unix:///path?db=n`, an
    /// IPv6 host in brackets, and `***@` before the host when there are credentials.
    public var description: String {
        let secret = credentials == nil ? "" : "***@"
        switch address {
        case .tcp(let host, let port):
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "\(usesTLS ? "rediss" : "redis")://\(secret)\(shownHost):\(port)/\(database)"
        case .unix(let path):
            return "unix://\(secret)\(path)?db=\(database)"
        }
    }

    /// A mirror that shows ``description``, without the credentials.
    public var customMirror: Mirror { Mirror(self, children: ["url": description], displayStyle: .struct) }
}

/// A user name and password for Redis's `AUTH` and `HELLO … AUTH`. They never appear in
/// ``description`` or in a `dump`.
public struct RedisCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The ACL user (Redis 6 and later), or `nil` for the `default` user: `AUTH password`, which older
    /// servers understand too.
    public var user: String?
    /// The password.
    public var password: String

    /// Credentials.
    public init(user: String? = nil, password: String) {
        self.user = user
        self.password = password
    }

    /// The user name and `***` for the password.
    public var description: String { "\(user ?? "default"):***" }

    /// A mirror that shows ``description``, without the password.
    public var customMirror: Mirror { Mirror(self, children: ["credentials": description], displayStyle: .struct) }
}
