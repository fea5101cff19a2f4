// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a server publishes to the backplane for one WebSocket message: the message's bytes with what
/// Redis does not carry, namely whether it is text or binary, and which server published it (so that
/// a server skips its own messages when they come back through its subscription).
///
/// The bytes, as published (every server of a deployment must run a version that reads them):
///
/// | offset | size | field |
/// | --- | --- | --- |
/// | 0 | 1 | format version, 1 |
/// | 1 | 1 | kind: 1 text, 2 binary |
/// | 2 | 1 | the origin's length, `n` (0 to 255) |
/// | 3 | `n` | the origin: the publishing server's identity, any bytes |
/// | 3 + `n` | the rest | the message's payload |
///
/// ```swift
/// let bytes = BackplaneEnvelope(origin: serverID, kind: .text, payload: Array("hi".utf8)).encoded()
/// // … published, and received by every server subscribed to the channel:
/// if let envelope = BackplaneEnvelope(decoding: received), envelope.origin != serverID {
///     sendToLocalSubscribers(envelope.payload, asText: envelope.kind == .text)
/// }
/// ```
///
/// A header of 3 bytes plus the origin keeps the hop cheap; the payload is not re-encoded (a text
/// message's UTF-8 is carried as is, checked already by the server that received it).
public struct BackplaneEnvelope: Sendable, Hashable {
    /// Whether the WebSocket message is text or binary.
    public enum Kind: UInt8, Sendable, Hashable {
        /// A text message: the payload is UTF-8.
        case text = 1
        /// A binary message.
        case binary = 2
    }

    /// The format version this type writes and reads.
    public static let version: UInt8 = 1
    /// The longest origin, in bytes.
    public static let maxOriginLength = 255

    /// The publishing server's identity: a random value chosen at start is enough (each process its
    /// own, so that two servers never take each other's messages for their own).
    public var origin: [UInt8]
    /// Text or binary.
    public var kind: Kind
    /// The message's bytes.
    public var payload: [UInt8]

    /// An envelope. An origin longer than ``maxOriginLength`` is cut to it.
    public init(origin: [UInt8], kind: Kind, payload: [UInt8]) {
        self.origin = Array(origin.prefix(Self.maxOriginLength))
        self.kind = kind
        self.payload = payload
    }

    /// Reads an envelope, or `nil` for bytes that are not one of this version (a server of another
    /// version, or another program publishing on the channel): such a message is skipped, never
    /// relayed.
    public init?(decoding bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count >= 3, bytes[0] == Self.version, let kind = Kind(rawValue: bytes[1]) else { return nil }
        let originLength = Int(bytes[2])
        guard bytes.count >= 3 + originLength else { return nil }
        self.kind = kind
        origin = Array(bytes[3 ..< 3 + originLength])
        payload = Array(bytes[(3 + originLength)...])
    }

    /// The bytes to publish.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        Self.append(origin: origin, kind: kind, payload: payload, to: &bytes)
        return bytes
    }

    /// Appends an envelope's bytes without making one: the payload is copied once, straight into
    /// `output`. An origin longer than ``maxOriginLength`` is cut to it.
    public static func append(origin: some Collection<UInt8>, kind: Kind, payload: some Collection<UInt8>,
                              to output: inout [UInt8]) {
        let origin = origin.prefix(maxOriginLength)
        output.reserveCapacity(output.count + 3 + origin.count + payload.count)
        output.append(version)
        output.append(kind.rawValue)
        output.append(UInt8(origin.count))
        output.append(contentsOf: origin)
        output.append(contentsOf: payload)
    }
}
