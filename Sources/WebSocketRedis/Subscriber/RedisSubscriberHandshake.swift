// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The start of a subscriber connection, as a value: it says which commands to send, and takes the
/// server's replies one at a time, until every subscription is confirmed. It performs no I/O.
///
/// ```swift
/// var handshake = RedisSubscriberHandshake(endpoint: endpoint, channels: ["room:1"])
/// send(handshake.start())                           // HELLO 3 AUTH …
/// while let reply = try decoder.next() {
///     switch try handshake.receive(reply) {
///     case .send(let commands): send(commands)      // AUTH, SELECT, SUBSCRIBE …
///     case .wait: break
///     case .deliver(let message): relay(message)    // a confirmed channel's message, already
///     case .ready: break                            // every channel confirmed
///     }
/// }
/// ```
///
/// The steps, one round trip each, skipped when there is nothing to do:
///
/// 1. `HELLO 3 [AUTH user password]`: RESP3 and the login at once (Redis 6 and later). A server that
///    answers `ERR unknown command` (before Redis 6) or `NOPROTO` stays on RESP2, and the login is
///    `AUTH [user] password` instead. With `usesHello: false`, RESP2 and `AUTH` from the start.
/// 2. `SELECT db` when the database is not 0. (Pub/Sub channels are global, whatever the database;
///    the step is there for a backplane that keeps other keys.)
/// 3. `SUBSCRIBE` every channel and `SSUBSCRIBE` every shard channel, each in one command (in a
///    cluster, the shard channels of one connection must hash to the same slot), then one
///    confirmation per channel. A message on a channel confirmed already comes out as ``Step/deliver(_:)``.
///
/// A `WRONGPASS` or any error reply to `AUTH` fails with ``RedisError/Code/authenticationFailed``, a
/// `NOAUTH` with ``RedisError/Code/authenticationRequired``, any other error reply with
/// ``RedisError/Code/serverError``, and a reply of the wrong shape with
/// ``RedisError/Code/unexpectedReply``; the handshake is then ``State/failed(_:)`` for good.
public struct RedisSubscriberHandshake: Sendable, Hashable {
    /// Where the handshake is: what it waits for, with what it still has to confirm.
    public enum State: Sendable, Hashable {
        /// ``start()`` not called yet.
        case idle
        /// `HELLO 3` sent.
        case awaitingHello
        /// `AUTH` sent, on a connection that speaks `protocolVersion`.
        case awaitingAuth(protocolVersion: Int)
        /// `SELECT` sent.
        case awaitingSelect(protocolVersion: Int)
        /// The subscriptions sent; the channels and shard channels not confirmed yet.
        case awaitingSubscriptions(protocolVersion: Int, channels: [[UInt8]], shardChannels: [[UInt8]])
        /// Every subscription confirmed: the connection is a subscriber speaking `protocolVersion`.
        case ready(protocolVersion: Int)
        /// The handshake failed; the connection is to be closed.
        case failed(RedisError)
    }

    /// What the caller does after a reply.
    public enum Step: Sendable, Hashable {
        /// Send these commands, in order.
        case send([RedisCommand])
        /// Wait for the next reply.
        case wait
        /// Hand on this message (on a channel already confirmed, or any after ``ready``).
        case deliver(RedisPubSubMessage)
        /// Every subscription is confirmed.
        case ready
    }

    /// Where the handshake is.
    public private(set) var state: State = .idle
    /// What to log in with, or `nil`.
    public let credentials: RedisCredentials?
    /// The database to `SELECT`.
    public let database: Int
    /// The channels to `SUBSCRIBE`.
    public let channels: [String]
    /// The shard channels to `SSUBSCRIBE`.
    public let shardChannels: [String]
    /// Whether to try `HELLO 3` first (default), rather than RESP2 and `AUTH`.
    public let usesHello: Bool

    /// A handshake that logs in with the endpoint's credentials, selects its database and subscribes.
    public init(endpoint: RedisEndpoint, channels: [String], shardChannels: [String] = [], usesHello: Bool = true) {
        self.credentials = endpoint.credentials
        self.database = endpoint.database
        self.channels = channels
        self.shardChannels = shardChannels
        self.usesHello = usesHello
    }

    /// The first commands to send. Only once: a later call returns none.
    public mutating func start() -> [RedisCommand] {
        guard case .idle = state else { return [] }
        if usesHello {
            state = .awaitingHello
            return [.hello(protocolVersion: 3, credentials: credentials)]
        }
        guard case .send(let commands) = loggedIn(protocolVersion: 2, authenticated: false) else { return [] }
        return commands
    }

    /// Takes the server's next reply (or push), and says what to do.
    ///
    /// - Throws: ``RedisError`` when the reply ends the handshake (see above); every later call throws
    ///   the same.
    public mutating func receive(_ reply: RESPValue) throws(RedisError) -> Step {
        do throws(RedisError) {
            return try advance(reply)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func advance(_ reply: RESPValue) throws(RedisError) -> Step {
        switch state {
        case .idle:
            throw RedisError(.unexpectedReply, reason: "a reply before any command")
        case .failed(let error):
            throw error
        case .awaitingHello:
            switch reply {
            case .map:
                return loggedIn(protocolVersion: 3, authenticated: true)
            case .array(_?):
                // HELLO's reply as a RESP2 array: the login worked, but whatever answered did not switch
                // the connection to RESP3, so its replies are read as RESP2's.
                return loggedIn(protocolVersion: 2, authenticated: true)
            default:
                guard let message = reply.errorMessage else { throw unexpected(reply, "HELLO") }
                // A server before Redis 6 does not know HELLO; one that does not speak RESP3 answers
                // NOPROTO. Either way, RESP2 and AUTH.
                if message.hasPrefix("ERR unknown command") || message.hasPrefix("NOPROTO") {
                    return loggedIn(protocolVersion: 2, authenticated: false)
                }
                throw Self.refusal(message, to: "HELLO")
            }
        case .awaitingAuth(let version):
            if let message = reply.errorMessage {
                if message.hasPrefix("NOAUTH") { throw Self.refusal(message, to: "AUTH") }
                throw RedisError(.authenticationFailed, reason: message)
            }
            guard Self.isOK(reply) else { throw unexpected(reply, "AUTH") }
            return selected(protocolVersion: version)
        case .awaitingSelect(let version):
            if let message = reply.errorMessage { throw Self.refusal(message, to: "SELECT") }
            guard Self.isOK(reply) else { throw unexpected(reply, "SELECT") }
            return subscribe(protocolVersion: version)
        case .awaitingSubscriptions(let version, var pending, var pendingShards):
            if let message = reply.errorMessage { throw Self.refusal(message, to: "SUBSCRIBE") }
            let message = try RedisPubSubMessage(reply)
            switch message {
            case .subscribed(.channel, let channel, _):
                guard let index = pending.firstIndex(of: channel) else { throw unexpected(reply, "SUBSCRIBE") }
                pending.remove(at: index)
            case .subscribed(.shardChannel, let channel, _):
                guard let index = pendingShards.firstIndex(of: channel) else { throw unexpected(reply, "SSUBSCRIBE") }
                pendingShards.remove(at: index)
            case .message, .shardMessage, .patternMessage:
                return .deliver(message)
            default:
                throw unexpected(reply, "SUBSCRIBE")
            }
            if pending.isEmpty && pendingShards.isEmpty {
                state = .ready(protocolVersion: version)
                return .ready
            }
            state = .awaitingSubscriptions(protocolVersion: version, channels: pending, shardChannels: pendingShards)
            return .wait
        case .ready:
            if let message = reply.errorMessage { throw Self.refusal(message, to: "a subscriber connection's command") }
            return .deliver(try RedisPubSubMessage(reply))
        }
    }

    /// After HELLO's login (or none yet): AUTH if still needed, else on to SELECT.
    private mutating func loggedIn(protocolVersion: Int, authenticated: Bool) -> Step {
        if !authenticated, let credentials {
            state = .awaitingAuth(protocolVersion: protocolVersion)
            return .send([.auth(credentials)])
        }
        return selected(protocolVersion: protocolVersion)
    }

    private mutating func selected(protocolVersion: Int) -> Step {
        if database != 0 {
            state = .awaitingSelect(protocolVersion: protocolVersion)
            return .send([.select(database: database)])
        }
        return subscribe(protocolVersion: protocolVersion)
    }

    private mutating func subscribe(protocolVersion: Int) -> Step {
        guard !channels.isEmpty || !shardChannels.isEmpty else {
            state = .ready(protocolVersion: protocolVersion)
            return .ready
        }
        var commands: [RedisCommand] = []
        if !channels.isEmpty { commands.append(.subscribe(channels: channels)) }
        if !shardChannels.isEmpty { commands.append(.shardSubscribe(channels: shardChannels)) }
        state = .awaitingSubscriptions(protocolVersion: protocolVersion, channels: channels.map { Array($0.utf8) },
                                       shardChannels: shardChannels.map { Array($0.utf8) })
        return .send(commands)
    }

    private static func isOK(_ reply: RESPValue) -> Bool {
        reply == .simpleString(Array("OK".utf8))
    }

    /// An error reply: a login refused or missing, or another refusal.
    private static func refusal(_ message: String, to command: String) -> RedisError {
        if message.hasPrefix("NOAUTH") { return RedisError(.authenticationRequired, reason: message) }
        if message.hasPrefix("WRONGPASS") { return RedisError(.authenticationFailed, reason: message) }
        return RedisError(.serverError, reason: "\(command): \(message)")
    }

    private func unexpected(_ reply: RESPValue, _ command: String) -> RedisError {
        RedisError(.unexpectedReply, reason: "\(RedisReplySummary(reply)) in reply to \(command)")
    }
}
