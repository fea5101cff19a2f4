// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketDeflate

/// The options that `connect` and `serve` share, spelled the same in both: limits, timers,
/// permessage-deflate, subprotocols.
enum SharedOptions {
    static let flags: Set<String> = ["--deflate", "--deflate-low-memory", "--deflate-no-context-takeover"]
    static let options: Set<String> = [
        "--protocol", "--max-message-size", "--max-frame-size", "--max-fragments",
        "--handshake-timeout", "--close-timeout", "--ping-interval", "--ping-timeout",
        "--deflate-window-bits", "--deflate-level",
    ]

    /// The connection's configuration: the library's defaults, with what the options change.
    static func configuration(_ parsed: Arguments) throws(UsageError) -> Connection.Configuration {
        var configuration = Connection.Configuration()
        if let size = try parsed.size("--max-message-size") { configuration.limits.maxMessageSize = size }
        if let size = try parsed.size("--max-frame-size") { configuration.limits.maxFrameSize = size }
        if let count = try parsed.count("--max-fragments", minimum: 1) { configuration.limits.maxFragmentsPerMessage = count }
        if let deflate = try deflate(parsed) { configuration.extensions = [deflate] }
        if let timeout = try parsed.seconds("--handshake-timeout") { configuration.timeouts.handshake = timeout > .zero ? timeout : nil }
        if let timeout = try parsed.seconds("--close-timeout") { configuration.timeouts.close = timeout > .zero ? timeout : nil }
        if let interval = try parsed.seconds("--ping-interval") {
            guard interval > .zero else { throw UsageError(message: "--ping-interval: expected more than 0 seconds") }
            configuration.timeouts.keepaliveInterval = interval
        }
        if let timeout = try parsed.seconds("--ping-timeout") {
            guard parsed.value("--ping-interval") != nil else { throw UsageError(message: "--ping-timeout needs --ping-interval") }
            configuration.timeouts.keepaliveTimeout = timeout > .zero ? timeout : nil
        }
        return configuration
    }

    /// permessage-deflate (RFC 7692) when any `--deflate…` option is given: the library's defaults,
    /// or its low-memory preset, with a window, no context takeover or a zlib level on top. Each
    /// setting serves both roles: a client offers it, a server answers with it.
    static func deflate(_ parsed: Arguments) throws(UsageError) -> PerMessageDeflate? {
        let bits = try parsed.count("--deflate-window-bits", minimum: 9)
        let level = try parsed.count("--deflate-level")
        let noContextTakeover = parsed.has("--deflate-no-context-takeover")
        guard parsed.has("--deflate") || parsed.has("--deflate-low-memory") || bits != nil || level != nil || noContextTakeover else {
            return nil
        }
        var deflate = parsed.has("--deflate-low-memory") ? PerMessageDeflate.lowMemory : PerMessageDeflate()
        if let bits {
            // 9, not 8: zlib cannot compress with an 8-bit window (RFC 7692 §7.1.2.1 allows asking).
            guard bits <= 15 else { throw UsageError(message: "--deflate-window-bits: expected 9 to 15, got \(bits)") }
            for index in deflate.clientOffers.indices {
                deflate.clientOffers[index].serverMaxWindowBits = bits
                deflate.clientOffers[index].clientMaxWindowBits = .bits(bits)
            }
            deflate.serverPolicy.maxWindowBits = bits
            deflate.serverPolicy.clientMaxWindowBits = bits
        }
        if noContextTakeover {
            for index in deflate.clientOffers.indices {
                deflate.clientOffers[index].serverNoContextTakeover = true
                deflate.clientOffers[index].clientNoContextTakeover = true
            }
            deflate.serverPolicy.noContextTakeover = true
        }
        if let level {
            guard level <= 9 else { throw UsageError(message: "--deflate-level: expected 0 to 9, got \(level)") }
            deflate.compression.level = level
        }
        return deflate
    }

    /// `--protocol` (or `--subprotocol`) values, in the order given: for a client its offer in order of
    /// preference, for a server the ones it speaks.
    static func subprotocols(_ parsed: Arguments) throws(UsageError) -> [String] {
        let names = parsed.values("--protocol")
        // RFC 6455 §4.1: each name is an HTTP token.
        for name in names where !HTTPTokens.isToken(name) {
            throw UsageError(message: "--protocol: \(String(reflecting: name)) is not a valid subprotocol name (an HTTP token)")
        }
        return names
    }
}
