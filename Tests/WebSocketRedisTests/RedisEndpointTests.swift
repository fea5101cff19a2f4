// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketRedis

@Suite("Redis URLs: redis://, rediss://, unix://")
struct RedisEndpointTests {
    typealias E = RedisEndpoint

    @Test("the common forms")
    func valid() throws {
        #expect(try E(parsing: "redis://localhost") == E(address: .tcp(host: "localhost", port: 6379)))
        #expect(try E(parsing: "redis://localhost:6380/") == E(address: .tcp(host: "localhost", port: 6380)))
        #expect(try E(parsing: "REDIS://127.0.0.1:6379/2")
                == E(address: .tcp(host: "127.0.0.1", port: 6379), database: 2))
        #expect(try E(parsing: "rediss://cache.example:6380/15")
                == E(address: .tcp(host: "cache.example", port: 6380), usesTLS: true, database: 15))
        #expect(try E(parsing: "redis://[::1]:7000/1") == E(address: .tcp(host: "::1", port: 7000), database: 1))
        #expect(try E(parsing: "redis://[2001:db8::5]") == E(address: .tcp(host: "2001:db8::5", port: 6379)))
        #expect(try E(parsing: "redis://Cache.EXAMPLE") == E(address: .tcp(host: "cache.example", port: 6379)))
        let zoned = try E(parsing: "redis://[fe80::1%25eth0]:7001")
        #expect(zoned == E(address: .tcp(host: "fe80::1%25eth0", port: 7001)))
        #expect(zoned.description == "redis://[fe80::1%25eth0]:7001/0")
        #expect(try E(parsing: "redis://host?db=3") == E(address: .tcp(host: "host", port: 6379), database: 3))
        #expect(try E(parsing: "unix:///run/redis/redis.sock?db=2") == E(address: .unix(path: "/run/redis/redis.sock"), database: 2))
        #expect(try E(parsing: "unix:///tmp/my%20redis.sock") == E(address: .unix(path: "/tmp/my redis.sock")))
    }

    @Test("credentials: user:password, :password for the default user, percent-decoded, or in the query")
    func credentials() throws {
        #expect(try E(parsing: "redis://app:s%40cr%3At@host:1/0").credentials == RedisCredentials(user: "app", password: "s@cr:t"))
        #expect(try E(parsing: "redis://:pw@host").credentials == RedisCredentials(password: "pw"))
        #expect(try E(parsing: "rediss://u:p:q@host").credentials == RedisCredentials(user: "u", password: "p:q"))
        #expect(try E(parsing: "redis://a@b:c@host").credentials == RedisCredentials(user: "a@b", password: "c"))
        #expect(try E(parsing: "unix://:pw@/tmp/r.sock").credentials == RedisCredentials(password: "pw"))
        #expect(try E(parsing: "unix:///tmp/r.sock?db=1&username=u&password=p%26q").credentials
                == RedisCredentials(user: "u", password: "p&q"))
        #expect(try E(parsing: "redis://host").credentials == nil)
    }

    @Test("the password appears in no description, dump or error")
    func redacted() throws {
        let endpoint = try E(parsing: "rediss://app:hunter2@cache.example:6380/2")
        #expect(endpoint.description == "rediss://***@cache.example:6380/2")
        #expect(String(describing: endpoint.credentials) .contains("hunter2") == false)
        var dumped = ""
        dump(endpoint, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(try E(parsing: "redis://[::1]").description == "redis://[::1]:6379/0")
        #expect(try E(parsing: "unix://:hunter2@/tmp/r.sock?db=4").description == "unix://***@/tmp/r.sock?db=4")
        #expect(RedisCommand.auth(RedisCredentials(user: "u", password: "hunter2")).description == "AUTH u ***")
        #expect(RedisCommand.hello(protocolVersion: 3, credentials: RedisCredentials(password: "hunter2")).description
                == "HELLO 3 AUTH default ***")
        do {
            _ = try E(parsing: "redis://app:hunter2@host:99999")
            Issue.record("parsed")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }

    static let invalid = [
        "", "localhost:6379", "http://host", "redis://", "redis://:6379", "redis://host:0", "redis://host:65536",
        "redis://host:12a", "redis://host:1:2", "redis://[fe80::1%eth0]", "redis://host/x", "redis://host/1/2",
        "redis://host/-1", "redis://host/99999999999",
        "redis://host/2?db=2", "redis://host?db=1&db=2", "redis://host?timeout=5", "redis://host#frag",
        "redis://ho st", "redis://hóst", "redis://[::1", "redis://[::1]x", "redis://[not:v6]", "redis://[192.0.2.1]",
        "redis://user@host", "redis://%zz:p@host", "redis://u:%ff@host", "redis://h\u{0}",
        "redis://host?username=u", "redis://:p@host?password=q", "unix://", "unix:///", "unix://host/tmp/r.sock",
        "unix:///tmp/%00.sock", "unix:///" + String(repeating: "a", count: 107),
    ]

    @Test("invalid URLs fail with invalidURL", arguments: invalid)
    func invalidURL(_ text: String) {
        #expect(throws: RedisError.self) { try E(parsing: text) }
        do { _ = try E(parsing: text) } catch { #expect(error.code == .invalidURL) }
    }
}
