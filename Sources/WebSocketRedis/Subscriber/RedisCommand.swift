// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A command a backplane sends to Redis, as a value: what the subscriber handshake returns, and what
/// ``encode(into:)`` writes as RESP.
///
/// ``description`` shows the command with any password as `***`.
public enum RedisCommand: Sendable, Hashable, CustomStringConvertible {
    /// `HELLO protover [AUTH user password]`: switches the connection to RESP `protocolVersion` (3)
    /// and logs in, in one round trip (Redis 6 and later). Without a user, `AUTH default password`.
    case hello(protocolVersion: Int, credentials: RedisCredentials?)
    /// `AUTH [user] password`: logs in on a server without `HELLO` (before Redis 6), or for RESP2.
    case auth(RedisCredentials)
    /// `SELECT db`.
    case select(database: Int)
    /// `SUBSCRIBE channel…`.
    case subscribe(channels: [String])
    /// `UNSUBSCRIBE [channel…]`: none unsubscribes from every channel.
    case unsubscribe(channels: [String])
    /// `SSUBSCRIBE shardchannel…` (Redis 7): a channel of the shard its name hashes to.
    case shardSubscribe(channels: [String])
    /// `SUNSUBSCRIBE [shardchannel…]`.
    case shardUnsubscribe(channels: [String])
    /// `PUBLISH channel message`. ``RedisCommand/appendPublish(channel:payload:sharded:to:)`` writes
    /// one without copying the payload into the enum.
    case publish(channel: String, payload: [UInt8])
    /// `SPUBLISH shardchannel message`.
    case shardPublish(channel: String, payload: [UInt8])
    /// `PING`: on a subscriber connection, how to tell a live server from a silent one.
    case ping

    /// Appends the command as RESP: an array of bulk strings.
    public func encode(into output: inout [UInt8]) {
        switch self {
        case .hello(let version, let credentials):
            RESPEncoder.appendArrayHeader(count: credentials == nil ? 2 : 5, to: &output)
            RESPEncoder.appendBulkString("HELLO", to: &output)
            RESPEncoder.appendBulkString(String(version), to: &output)
            if let credentials {
                RESPEncoder.appendBulkString("AUTH", to: &output)
                RESPEncoder.appendBulkString(credentials.user ?? "default", to: &output)
                RESPEncoder.appendBulkString(credentials.password, to: &output)
            }
        case .auth(let credentials):
            RESPEncoder.appendArrayHeader(count: credentials.user == nil ? 2 : 3, to: &output)
            RESPEncoder.appendBulkString("AUTH", to: &output)
            if let user = credentials.user { RESPEncoder.appendBulkString(user, to: &output) }
            RESPEncoder.appendBulkString(credentials.password, to: &output)
        case .select(let database):
            RESPEncoder.appendCommand(["SELECT", String(database)], to: &output)
        case .subscribe(let channels):
            Self.append("SUBSCRIBE", channels, to: &output)
        case .unsubscribe(let channels):
            Self.append("UNSUBSCRIBE", channels, to: &output)
        case .shardSubscribe(let channels):
            Self.append("SSUBSCRIBE", channels, to: &output)
        case .shardUnsubscribe(let channels):
            Self.append("SUNSUBSCRIBE", channels, to: &output)
        case .publish(let channel, let payload):
            Self.appendPublish(channel: channel, payload: payload, sharded: false, to: &output)
        case .shardPublish(let channel, let payload):
            Self.appendPublish(channel: channel, payload: payload, sharded: true, to: &output)
        case .ping:
            RESPEncoder.appendCommand(["PING"], to: &output)
        }
    }

    /// Appends `PUBLISH channel payload` (`SPUBLISH` when `sharded`) with the payload's bytes copied
    /// once, straight into `output`.
    public static func appendPublish(channel: String, payload: some Collection<UInt8>, sharded: Bool = false,
                                     to output: inout [UInt8]) {
        RESPEncoder.appendArrayHeader(count: 3, to: &output)
        RESPEncoder.appendBulkString(sharded ? "SPUBLISH" : "PUBLISH", to: &output)
        RESPEncoder.appendBulkString(channel, to: &output)
        RESPEncoder.appendBulkString(payload, to: &output)
    }

    private static func append(_ name: String, _ channels: [String], to output: inout [UInt8]) {
        RESPEncoder.appendArrayHeader(count: 1 + channels.count, to: &output)
        RESPEncoder.appendBulkString(name, to: &output)
        for channel in channels { RESPEncoder.appendBulkString(channel, to: &output) }
    }

    /// The command as words, with any password as `***`, e.g. `HELLO 3 AUTH default ***`.
    public var description: String {
        switch self {
        case .hello(let version, let credentials):
            return "HELLO \(version)" + (credentials.map { " AUTH \($0.user ?? "default") ***" } ?? "")
        case .auth(let credentials):
            return "AUTH " + (credentials.user.map { "\($0) " } ?? "") + "***"
        case .select(let database):
            return "SELECT \(database)"
        case .subscribe(let channels):
            return (["SUBSCRIBE"] + channels).joined(separator: " ")
        case .unsubscribe(let channels):
            return (["UNSUBSCRIBE"] + channels).joined(separator: " ")
        case .shardSubscribe(let channels):
            return (["SSUBSCRIBE"] + channels).joined(separator: " ")
        case .shardUnsubscribe(let channels):
            return (["SUNSUBSCRIBE"] + channels).joined(separator: " ")
        case .publish(let channel, let payload):
            return "PUBLISH \(channel) (\(payload.count) bytes)"
        case .shardPublish(let channel, let payload):
            return "SPUBLISH \(channel) (\(payload.count) bytes)"
        case .ping:
            return "PING"
        }
    }
}
