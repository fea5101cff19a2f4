// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// permessage-deflate (RFC 7692): negotiation and per-message compression over the system zlib.
///
/// Add it to ``WebSocketCore/Connection/Configuration/extensions`` on either side:
///
/// ```swift
/// var configuration = Configuration()
/// configuration.extensions = [PerMessageDeflate()]
/// ```
///
/// A client offers ``clientOffers`` in order; a server answers the first acceptable offer following
/// ``serverPolicy``. Decompressed bytes count against ``WebSocketCore/Connection/Limits/maxMessageSize`` as they come out, so a
/// decompression bomb stops at the limit plus one 16 KiB chunk.
///
/// Memory per connection, once both directions have been used: the compressor takes about
/// `2^(windowBits + 2) + 2^(memoryLevel + 9)` bytes (256 KiB with the defaults, window 15 and memory
/// level 8) and the decompressor about `2^windowBits + 7 KiB` (39 KiB with window 15), plus a 16 KiB
/// output chunk. ``lowMemory`` brings that to about 10 KiB in all. Nothing is allocated until a
/// compressed message is sent or received.
public struct PerMessageDeflate: WebSocketExtension {
    /// One offer a client sends (RFC 7692 §7.1).
    public struct Offer: Sendable, Hashable {
        /// Ask the server not to keep its compression context between messages.
        public var serverNoContextTakeover = false
        /// Tell the server we will not keep ours (and will reset after every message).
        public var clientNoContextTakeover = false
        /// Ask the server to use a window of at most 2^N bytes (8...15), or `nil` to leave it free.
        public var serverMaxWindowBits: Int? = nil
        /// Our own window limit: `.unspecified` sends nothing, `.acceptsAny` sends the parameter
        /// without a value (the server may then choose our window), `.bits(N)` asks for at most 2^N.
        public var clientMaxWindowBits = ClientWindow.acceptsAny

        /// What an offer says of the client's own window (`client_max_window_bits`, RFC 7692
        /// §7.1.2.2).
        public enum ClientWindow: Sendable, Hashable {
            /// The parameter is left out: the server may not limit our window.
            case unspecified
            /// The parameter without a value: we accept any window the server asks for.
            case acceptsAny
            /// The parameter with a value: our window is at most 2^N bytes (8...15).
            case bits(Int)
        }

        /// The default offer: context takeover both ways, no server window limit, and
        /// `client_max_window_bits` without a value.
        public init() {}
    }

    /// How a server answers offers (RFC 7692 §7.1).
    public struct ServerPolicy: Sendable, Hashable {
        /// Reset our compressor after every message even when the client did not ask.
        public var noContextTakeover = false
        /// Our compressor's largest window (9...15); sent as `server_max_window_bits` when below 15.
        public var maxWindowBits = 15
        /// The window to ask of the client (8...15), sent only when the client's offer lists
        /// `client_max_window_bits` (never imposed unasked, RFC 7692 §7.1.2.2). `nil`: ask nothing.
        public var clientMaxWindowBits: Int? = nil
        /// The default policy: context takeover, a window of 15 bits, nothing asked of the client.
        public init() {}
    }

    /// zlib settings for what we send.
    public struct Compression: Sendable, Hashable {
        /// zlib level, 0 (store) to 9 (smallest); -1 is zlib's default (6).
        public var level = -1
        /// zlib memory level, 1...9: memory for speed and ratio.
        public var memoryLevel = 8
        /// Messages smaller than this go out uncompressed (empty ones always do).
        public var minimumSize = 0
        /// zlib's defaults: level 6, memory level 8, every non-empty message compressed.
        public init() {}
    }

    /// (Client) The offers sent in `Sec-WebSocket-Extensions`, in order of preference; the server
    /// accepts at most one (RFC 7692 §5).
    public var clientOffers: [Offer]
    /// (Server) How offers are answered.
    public var serverPolicy: ServerPolicy
    /// How outgoing messages are compressed, on either side.
    public var compression: Compression

    /// The extension with one default offer, the default server policy and zlib's default
    /// compression: windows of 32 KiB, context takeover both ways.
    public init(clientOffers: [Offer] = [Offer()], serverPolicy: ServerPolicy = ServerPolicy(),
                compression: Compression = Compression()) {
        self.clientOffers = clientOffers
        self.serverPolicy = serverPolicy
        self.compression = compression
    }

    /// A preset for memory-constrained peers: 512-byte windows (window bits 9) both ways, no context
    /// takeover on either side, memory level 1 — about 10 KiB per connection instead of about 300.
    public static var lowMemory: PerMessageDeflate {
        var offer = Offer()
        offer.serverNoContextTakeover = true
        offer.clientNoContextTakeover = true
        offer.serverMaxWindowBits = 9
        offer.clientMaxWindowBits = .bits(9)
        var policy = ServerPolicy()
        policy.noContextTakeover = true
        policy.maxWindowBits = 9
        policy.clientMaxWindowBits = 9
        var compression = Compression()
        compression.memoryLevel = 1
        return PerMessageDeflate(clientOffers: [offer], serverPolicy: policy, compression: compression)
    }

    /// `permessage-deflate`, the registered extension name (RFC 7692 §7).
    public var name: String { "permessage-deflate" }

    /// (Client) ``clientOffers`` as `Sec-WebSocket-Extensions` elements, in order.
    public func makeOffers() -> [Connection.ExtensionHeader] { clientOffers.map(\.header) }

    /// (Client) Checks the server's response against ``clientOffers`` (RFC 7692 §7.1): its
    /// parameters must be known, unrepeated and valid, and fit one offer. Returns the transform for
    /// the agreement, or the reason the handshake fails.
    public func accept(response: Connection.ExtensionHeader, offers: [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError> {
        switch DeflateParameters.parse(response, isResponse: true) {
        case .failure(let error):
            return .failure(error)
        case .success(let params):
            // RFC 7692 §7.1: the response must fit one of our offers.
            for offer in clientOffers {
                if let agreement = params.clientAgreement(for: offer) {
                    return .success(Connection.Transform(DeflateTransform(agreement: agreement, compression: compression)))
                }
            }
            return .failure(Connection.ExtensionNegotiationError("permessage-deflate response fits none of the offers"))
        }
    }

    /// (Server) Answers the first offer with known, unrepeated and valid parameters (RFC 7692 §7.1)
    /// following ``serverPolicy``; `nil` when every offer is declined, and the connection then runs
    /// without compression.
    public func negotiate(offers: [Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)? {
        guard let (response, agreement) = serverAnswer(offers: offers) else { return nil }
        return (response, Connection.Transform(DeflateTransform(agreement: agreement, compression: compression)))
    }

    /// (Server) The response to the first acceptable offer, and what it commits us to.
    func serverAnswer(offers: [Connection.ExtensionHeader]) -> (Connection.ExtensionHeader, DeflateTransform.Agreement)? {
        for offer in offers {
            // RFC 7692 §7.1: an offer with unknown, repeated or invalid parameters is declined.
            guard case .success(let params) = DeflateParameters.parse(offer, isResponse: false) else { continue }
            return params.serverResponse(policy: serverPolicy)
        }
        return nil
    }
}

extension PerMessageDeflate.Offer {
    var header: Connection.ExtensionHeader {
        var parameters: [Connection.ExtensionHeader.Parameter] = []
        if serverNoContextTakeover { parameters.append(.init(name: "server_no_context_takeover")) }
        if clientNoContextTakeover { parameters.append(.init(name: "client_no_context_takeover")) }
        if let bits = serverMaxWindowBits { parameters.append(.init(name: "server_max_window_bits", value: String(bits))) }
        switch clientMaxWindowBits {
        case .unspecified: break
        case .acceptsAny: parameters.append(.init(name: "client_max_window_bits"))
        case .bits(let bits): parameters.append(.init(name: "client_max_window_bits", value: String(bits)))
        }
        return Connection.ExtensionHeader(name: "permessage-deflate", parameters: parameters)
    }
}
