// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a subscriber connection receives: a message on a channel, or the confirmation of a
/// subscription change, read from a RESP2 array or a RESP3 push alike.
///
/// ```swift
/// switch try RedisPubSubMessage(value) {
/// case .message(let channel, let payload): relay(payload, to: channel)
/// case .subscribed, .unsubscribed: break
/// default: break
/// }
/// ```
public enum RedisPubSubMessage: Sendable, Hashable {
    /// `message`: a payload published on a channel (`PUBLISH`).
    case message(channel: [UInt8], payload: [UInt8])
    /// `pmessage`: a payload published on a channel that matched a pattern subscription.
    case patternMessage(pattern: [UInt8], channel: [UInt8], payload: [UInt8])
    /// `smessage`: a payload published on a shard channel (`SPUBLISH`).
    case shardMessage(channel: [UInt8], payload: [UInt8])
    /// `subscribe`, `psubscribe` or `ssubscribe`: a subscription added, and how many the connection has
    /// now (for `ssubscribe`, shard channels only).
    case subscribed(kind: SubscriptionKind, channel: [UInt8], count: Int64)
    /// `unsubscribe`, `punsubscribe` or `sunsubscribe`: a subscription removed (`nil`: the connection
    /// had none to remove), and how many remain.
    case unsubscribed(kind: SubscriptionKind, channel: [UInt8]?, count: Int64)
    /// `pong`: a RESP2 subscriber's reply to `PING` (a RESP3 one replies `+PONG`, a plain reply), with
    /// its argument, empty without one.
    case pong([UInt8])

    /// What a subscription is to.
    public enum SubscriptionKind: Sendable, Hashable {
        /// A channel (`SUBSCRIBE`).
        case channel
        /// A pattern (`PSUBSCRIBE`).
        case pattern
        /// A shard channel (`SSUBSCRIBE`).
        case shardChannel
    }

    /// Classifies a value received on a subscriber connection: an array (RESP2) or push (RESP3) whose
    /// first element names the kind (a bulk or simple string), with the elements that kind has, in
    /// the types Redis sends them.
    ///
    /// - Throws: ``RedisError/Code/unexpectedReply`` for anything else, an error reply included: on a
    ///   subscriber connection, nothing else has a place, and the connection should be dropped and
    ///   made again.
    public init(_ value: RESPValue) throws(RedisError) {
        let elements: [RESPValue]
        switch value {
        case .array(let array?): elements = array
        case .push(let push): elements = push
        default: throw Self.unexpected(value)
        }
        guard let kindBytes = Self.bytes(elements.first) else { throw Self.unexpected(value) }
        let kind = String(decoding: kindBytes, as: UTF8.self)
        let rest = elements.dropFirst()
        switch (kind, rest.count) {
        case ("message", 2), ("smessage", 2):
            guard let channel = Self.bytes(rest.first), let payload = Self.bytes(rest.last) else { throw Self.unexpected(value) }
            self = kind == "message" ? .message(channel: channel, payload: payload) : .shardMessage(channel: channel, payload: payload)
        case ("pmessage", 3):
            let parts = rest.map { Self.bytes($0) }
            guard let pattern = parts[0], let channel = parts[1], let payload = parts[2] else { throw Self.unexpected(value) }
            self = .patternMessage(pattern: pattern, channel: channel, payload: payload)
        case ("subscribe", 2), ("psubscribe", 2), ("ssubscribe", 2):
            guard let channel = Self.bytes(rest.first), case .integer(let count)? = rest.last else { throw Self.unexpected(value) }
            self = .subscribed(kind: Self.kind(kind), channel: channel, count: count)
        case ("unsubscribe", 2), ("punsubscribe", 2), ("sunsubscribe", 2):
            guard case .integer(let count)? = rest.last else { throw Self.unexpected(value) }
            var channel: [UInt8]?
            switch rest.first {
            case .bulkString(nil)?, .null?: channel = nil
            default:
                guard let bytes = Self.bytes(rest.first) else { throw Self.unexpected(value) }
                channel = bytes
            }
            self = .unsubscribed(kind: Self.kind(kind), channel: channel, count: count)
        case ("pong", 1):
            guard let payload = Self.bytes(rest.first) else { throw Self.unexpected(value) }
            self = .pong(payload)
        default:
            throw Self.unexpected(value)
        }
    }

    private static func kind(_ name: String) -> SubscriptionKind {
        switch name {
        case "psubscribe", "punsubscribe": return .pattern
        case "ssubscribe", "sunsubscribe": return .shardChannel
        default: return .channel
        }
    }

    private static func bytes(_ value: RESPValue?) -> [UInt8]? {
        switch value {
        case .bulkString(let bytes?)?, .simpleString(let bytes)?: return bytes
        default: return nil
        }
    }

    static func unexpected(_ value: RESPValue) -> RedisError {
        if let message = value.errorMessage {
            return RedisError(.unexpectedReply, reason: "an error reply on a subscriber connection: \(message)")
        }
        return RedisError(.unexpectedReply, reason: "not a Pub/Sub message or confirmation: \(RedisReplySummary(value))")
    }
}

/// A short, bounded description of a value for an error's reason: its type and size, not its bytes.
struct RedisReplySummary: CustomStringConvertible {
    let value: RESPValue
    init(_ value: RESPValue) { self.value = value }

    var description: String {
        switch value {
        case .simpleString(let bytes): return "a simple string of \(bytes.count) bytes"
        case .error: return "an error"
        case .integer(let number): return "the integer \(number)"
        case .bulkString(let bytes?): return "a bulk string of \(bytes.count) bytes"
        case .bulkString(nil): return "a null bulk string"
        case .array(let elements?): return "an array of \(elements.count) elements"
        case .array(nil): return "a null array"
        case .null: return "a null"
        case .boolean(let flag): return "the boolean \(flag)"
        case .double: return "a double"
        case .bigNumber: return "a big number"
        case .bulkError: return "a bulk error"
        case .verbatimString(_, let text): return "a verbatim string of \(text.count) bytes"
        case .map(let entries): return "a map of \(entries.count) entries"
        case .set(let elements): return "a set of \(elements.count) elements"
        case .push(let elements): return "a push of \(elements.count) elements"
        }
    }
}
