// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport
import WebSocketRedis

/// Everything `websocket serve` was asked to do, checked.
struct ServeSettings: Sendable {
    static let flags: Set<String> = SharedOptions.flags.union(["--echo", "--broadcast", "--binary", "--raw-output", "--jsonl",
                                                               "--proxy-protocol", "--restart-code"])
    static let options: Set<String> = SharedOptions.options.union(TLSOptions.serverOptions).union([
        "--host", "--port", "--unix", "--exec", "--max-connections", "--origin", "--trust-proxy", "--drain-timeout",
        "--health", "--metrics", "--max-lifetime", "--idle-timeout",
        "--redis", "--redis-prefix",
    ])

    var host: String
    var port: UInt16
    var unixSocketPath: String?
    var configuration: Connection.Configuration
    var options: TransportOptions
    var subprotocols: [String]
    /// The Origins accepted, lowercased (RFC 6454 serializes them so); empty: any.
    var origins: [String]
    var maxConnections: Int?
    /// How long SIGTERM or SIGINT waits for the connections' closing handshakes (`--drain-timeout`);
    /// `nil`: the close timeout and the linger.
    var drainTimeout: Duration?
    /// The code the connections are closed with on SIGTERM: 1012 with `--restart-code`, else 1001.
    var stopCode: Connection.CloseCode
    var echo: Bool
    var broadcast: Bool
    /// `--redis URL`: the rooms of `--broadcast` shared with every server on the same Redis.
    var redis: RedisEndpoint?
    /// `--redis-prefix P`: what the rooms' Redis channels start with.
    var redisPrefix: String
    /// `--exec`: the command run for each connection.
    var command: String?
    /// Lines of standard input (`--broadcast`) and of a command's output are sent as binary.
    var binary: Bool
    var output: MessageOutput
    /// `--health PATH` and `--metrics PATH`: plain HTTP requests answered on the WebSocket port.
    var plainPaths: PlainPaths

    init(parsing arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(arguments, flags: Self.flags, options: Self.options)
        guard parsed.positional.isEmpty else { throw UsageError(message: "serve takes no argument \(String(reflecting: parsed.positional[0]))") }
        configuration = try SharedOptions.configuration(parsed)
        subprotocols = try SharedOptions.subprotocols(parsed)
        host = parsed.value("--host") ?? "127.0.0.1"
        if let text = parsed.value("--port") {
            guard let value = UInt16(text) else { throw UsageError(message: "--port: expected 0-65535, got \(String(reflecting: text))") }
            port = value
        } else {
            port = 9001
        }
        unixSocketPath = parsed.value("--unix")
        if unixSocketPath != nil, parsed.value("--port") != nil || parsed.value("--host") != nil {
            throw UsageError(message: "--unix excludes --host and --port")
        }
        options = TransportOptions()
        options.tls = try TLSOptions.server(parsed)
        options.proxyProtocol = try Self.proxyProtocol(parsed)
        // --max-lifetime S: each connection closed with 1001 after S seconds less up to a tenth of S (jitter).
        options.lifetimeLimits = LifetimeLimits(maxLifetime: try parsed.seconds("--max-lifetime"),
                                                idleTimeout: try parsed.seconds("--idle-timeout"))
        origins = parsed.values("--origin").map { $0.lowercased() }
        maxConnections = try parsed.count("--max-connections", minimum: 1)
        drainTimeout = try parsed.seconds("--drain-timeout")
        stopCode = parsed.has("--restart-code") ? .serviceRestart : .goingAway
        echo = parsed.has("--echo")
        broadcast = parsed.has("--broadcast")
        if let url = parsed.value("--redis") {
            guard broadcast else { throw UsageError(message: "--redis applies to --broadcast (its rooms are shared through Redis)") }
            do throws(RedisError) {
                redis = try RedisEndpoint(parsing: url)
            } catch {
                throw UsageError(message: "--redis: \(error)")
            }
        } else {
            redis = nil
            if parsed.value("--redis-prefix") != nil { throw UsageError(message: "--redis-prefix applies to --redis") }
        }
        redisPrefix = parsed.value("--redis-prefix") ?? "websocket:"
        command = parsed.value("--exec")
        binary = parsed.has("--binary")
        if echo, command != nil { throw UsageError(message: "--echo and --exec exclude each other") }
        if binary, !broadcast, command == nil { throw UsageError(message: "--binary applies to --broadcast and --exec") }
        switch (parsed.has("--jsonl"), parsed.has("--raw-output")) {
        case (true, true): throw UsageError(message: "--jsonl and --raw-output exclude each other")
        case (true, false): output = MessageOutput(format: .jsonLines(start: monotonicNow()))
        case (false, true): output = MessageOutput(format: .raw(separated: true))
        case (false, false): output = MessageOutput(format: .lines)
        }
        options.receivesControlFrames = output.wantsControlFrames
        plainPaths = try PlainPaths(parsed)
        if plainPaths.isEnabled { configuration.answersPlainRequests = true }
    }

    /// `--proxy-protocol` with its `--trust-proxy ADDR[/BITS]` (repeatable, required with it).
    private static func proxyProtocol(_ parsed: Arguments) throws(UsageError) -> TrustedProxies? {
        let entries = parsed.values("--trust-proxy")
        guard parsed.has("--proxy-protocol") else {
            if !entries.isEmpty { throw UsageError(message: "--trust-proxy applies to --proxy-protocol") }
            return nil
        }
        guard !entries.isEmpty else {
            throw UsageError(message: "--proxy-protocol needs --trust-proxy ADDR[/BITS]: the load balancers whose PROXY headers are believed")
        }
        do throws(TrustedProxies.InvalidEntry) {
            return try TrustedProxies(entries)
        } catch {
            throw UsageError(message: "--trust-proxy: \(error)")
        }
    }
}
