// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// The configurations the targets run a connection under. Limits are small, so that inputs of a few
/// KiB (and the amplifying operations of the connection targets) reach every one of them.
public enum FuzzConfiguration {
    /// The limits of most runs.
    public static var limits: Connection.Limits {
        var limits = Connection.Limits()
        limits.maxFrameSize = 16 << 10
        limits.maxMessageSize = 64 << 10
        limits.maxFragmentsPerMessage = 64
        limits.maxHeaderBytes = 4 << 10
        limits.maxHeaderCount = 32
        limits.maxRequestLineLength = 1 << 10
        limits.maxRejectionBodySize = 4 << 10
        limits.maxBufferedOutput = 64 << 10
        return limits
    }

    /// Limits a few hundred bytes of input cross.
    public static var tightLimits: Connection.Limits {
        var limits = Connection.Limits()
        limits.maxFrameSize = 300
        limits.maxMessageSize = 1000
        limits.maxFragmentsPerMessage = 8
        limits.maxHeaderBytes = 600
        limits.maxHeaderCount = 8
        limits.maxRequestLineLength = 100
        limits.maxRejectionBodySize = 200
        limits.maxBufferedOutput = 1000
        return limits
    }

    /// What a connection may hold beyond its limits: a control frame's payload (125 bytes, in a buffer
    /// that grows geometrically) and the allocator's rounding.
    public static let memorySlack = 512

    /// The peer of the connection under test: it must read whatever the connection under test writes,
    /// so its limits are out of reach, and it has no timers (its time never advances).
    public static var peer: Connection.Configuration {
        var configuration = Connection.Configuration()
        configuration.limits.maxFrameSize = 1 << 30
        configuration.limits.maxMessageSize = 1 << 30
        configuration.limits.maxFragmentsPerMessage = .max
        configuration.limits.maxBufferedOutput = .max
        configuration.timeouts = Connection.Timeouts()
        configuration.timeouts.handshake = nil
        configuration.timeouts.close = nil
        configuration.timeouts.keepaliveInterval = nil
        return configuration
    }
}

/// One configuration of the connection under test, picked by bits of the input.
public struct Variant: Hashable, Sendable {
    public var fragments = false
    public var automaticPongs = true
    public var tight = false
    public var fragmentationSize: Int? = nil
    public var keepalive = false

    public init(fragments: Bool = false, automaticPongs: Bool = true, tight: Bool = false,
                fragmentationSize: Int? = nil, keepalive: Bool = false) {
        self.fragments = fragments
        self.automaticPongs = automaticPongs
        self.tight = tight
        self.fragmentationSize = fragmentationSize
        self.keepalive = keepalive
    }

    public var configuration: Connection.Configuration {
        var configuration = Connection.Configuration()
        configuration.limits = tight ? FuzzConfiguration.tightLimits : FuzzConfiguration.limits
        configuration.delivery = fragments ? .fragments : .messages
        configuration.respondsToPingsAutomatically = automaticPongs
        configuration.fragmentationSize = fragmentationSize
        configuration.timeouts.handshake = .seconds(10)
        configuration.timeouts.close = .seconds(5)
        configuration.timeouts.keepaliveInterval = keepalive ? .seconds(1) : nil
        configuration.timeouts.keepaliveTimeout = .seconds(3)
        return configuration
    }
}

/// A generator whose first two words make the `Sec-WebSocket-Key` of RFC 6455 §1.3 ("the sample
/// nonce", dGhlIHNhbXBsZSBub25jZQ==), so that the §1.2 response (accept s3pPLMBiTxaQ9kYGzzhZRbK+xOo=)
/// completes the handshake; seeded words follow, for masking keys.
public struct SampleKeyGenerator: RandomNumberGenerator, Sendable {
    private var prefix: [UInt64]
    private var seeded = Connection.SeededGenerator(seed: 1)

    public init() {
        let nonce = Array("the sample nonce".utf8)
        prefix = [0, 8].map { start in
            (0..<8).reduce(UInt64(0)) { word, i in word | UInt64(nonce[start + i]) << UInt64(8 * i) }
        }
    }

    public mutating func next() -> UInt64 {
        if !prefix.isEmpty { return prefix.removeFirst() }
        return seeded.next()
    }
}

/// Connections prepared once per configuration and copied for each input (a `Connection` is a value:
/// a copy is a fork), so that no input pays for a handshake it does not fuzz.
public enum Prepared {
    public static let url = try! WebSocketURL(parsing: "ws://server.example.com/chat")

    /// The options of the clients of the HTTP response target: `offers` selects whether subprotocols
    /// and extensions are offered, so that the response's choices can be accepted or refused.
    public static func clientOptions(offers: Bool) -> Connection.ClientOptions {
        guard offers else { return Connection.ClientOptions(url: url) }
        return Connection.ClientOptions(url: url, origin: "http://example.com", subprotocols: ["chat", "superchat"],
                             extensions: [Connection.ExtensionHeader(name: "permessage-deflate",
                                                          parameters: [.init(name: "client_max_window_bits")]),
                                          Connection.ExtensionHeader(name: "x-fuzz")])
    }

    public struct Pair: Sendable {
        /// The connection under test.
        public var cut: Connection
        /// The other end, with the configuration ``FuzzConfiguration/peer``.
        public var peer: Connection
    }

    private struct PairKey: Hashable {
        var cutIsServer: Bool
        var variant: Variant
    }

    // libFuzzer runs inputs on one thread.
    nonisolated(unsafe) private static var pairs: [PairKey: Pair] = [:]
    nonisolated(unsafe) private static var clients: [Variant: Connection] = [:]
    nonisolated(unsafe) private static var clientsWithOffers: [Variant: Connection] = [:]

    /// An open client and server, all handshake events drained and all output taken.
    public static func openPair(cutIsServer: Bool, variant: Variant) -> Pair {
        let key = PairKey(cutIsServer: cutIsServer, variant: variant)
        if let pair = pairs[key] { return pair }
        let clientConfiguration = cutIsServer ? FuzzConfiguration.peer : variant.configuration
        let serverConfiguration = cutIsServer ? variant.configuration : FuzzConfiguration.peer
        do {
            var client = try Connection(role: .client(Connection.ClientOptions(url: url, subprotocols: ["chat"])),
                                        configuration: clientConfiguration, random: Connection.SeededGenerator(seed: 6455))
            var server = try Connection(role: .server, configuration: serverConfiguration,
                                        random: Connection.SeededGenerator(seed: 1))
            server.receive(client.takeOutput())
            guard case .handshakeRequest(let request)? = server.nextEvent() else { fatalError("no request") }
            try server.accept(subprotocol: request.subprotocols.first)
            guard case .handshakeCompleted? = server.nextEvent(), server.nextEvent() == nil else {
                fatalError("server did not open")
            }
            client.receive(server.takeOutput())
            guard case .handshakeCompleted? = client.nextEvent(), client.nextEvent() == nil else {
                fatalError("client did not open")
            }
            let pair = cutIsServer ? Pair(cut: server, peer: client) : Pair(cut: client, peer: server)
            pairs[key] = pair
            return pair
        } catch {
            fatalError("cannot prepare a connection pair: \(error)")
        }
    }

    /// A client whose request has been taken, waiting for the response, with the RFC 6455 §1.3 key.
    public static func awaitingResponse(variant: Variant, offers: Bool) -> Connection {
        if let client = (offers ? clientsWithOffers : clients)[variant] { return client }
        do {
            var client = try Connection(role: .client(clientOptions(offers: offers)),
                                        configuration: variant.configuration, random: SampleKeyGenerator())
            _ = client.takeOutput()
            if offers { clientsWithOffers[variant] = client } else { clients[variant] = client }
            return client
        } catch {
            fatalError("cannot prepare a client: \(error)")
        }
    }
}
