// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// One connection to a Redis server as a value, in one of a backplane's two roles: a subscriber (it
/// subscribes to channels and receives their messages) or a publisher (it publishes, and reads each
/// reply in the order of its command). It performs no I/O: the caller feeds it the bytes it reads,
/// writes the bytes it gives, and pulls its events.
///
/// ```swift
/// var client = RedisClient(endpoint: endpoint, role: .subscriber, channels: ["room:1"])
/// client.start()                                  // HELLO 3 AUTH …
/// write(client.takeOutput())
/// client.receive(bytesRead)
/// while let event = client.nextEvent() {
///     switch event {
///     case .ready: break                          // logged in, every channel confirmed
///     case .message(let channel, let payload): relay(payload, on: channel)
///     case .failed(let error): reconnect(after: error)
///     default: break
///     }
/// }
/// ```
///
/// The start is ``RedisSubscriberHandshake``'s: `HELLO 3` with `AUTH`, or RESP2 and `AUTH` on a
/// server without `HELLO`, then `SELECT`, then the channels given at ``init(endpoint:role:channels:sharded:usesHello:limits:)``
/// (a publisher has none). Channels added or removed meanwhile are subscribed or unsubscribed as soon
/// as it is ``Event/ready(protocolVersion:)``.
///
/// Anything the server sends that has no place (an error reply, a reply nobody waits for, a message
/// on a channel never subscribed, bytes that are not RESP or exceed ``Limits/resp``) fails the client
/// for good with a ``RedisError``, delivered as ``Event/failed(_:)``: the connection is then to be
/// closed and made again, which a subscriber does by starting over with ``subscriptions``.
public struct RedisClient: Sendable {
    /// What the connection is for.
    public enum Role: Sendable, Hashable {
        /// Subscribes to channels and receives their messages; sends nothing else but `PING`.
        case subscriber
        /// Publishes; sends nothing else but `PING`.
        case publisher
    }

    /// What the server may make the client hold, and what a caller may queue before the server
    /// answers.
    public struct Limits: Sendable, Hashable {
        /// The decoder's limits (the longest bulk string by default 16 MiB + 64 KiB).
        public var resp: RESPDecoder.Limits
        /// The most commands awaiting their reply (publishes, pings, subscription changes). Default
        /// 65,536: a server that stops answering does not make the list grow without end.
        public var maxPendingReplies: Int
        /// The most bytes of commands queued and not yet taken by ``takeOutput()``. Default 64 MiB.
        public var maxOutputBytes: Int

        /// Limits, by default those above; values below 1 count as 1.
        public init(resp: RESPDecoder.Limits = RESPDecoder.Limits(), maxPendingReplies: Int = 65_536,
                    maxOutputBytes: Int = 64 << 20) {
            self.resp = resp
            self.maxPendingReplies = max(1, maxPendingReplies)
            self.maxOutputBytes = max(1, maxOutputBytes)
        }
    }

    /// What happened, in the order it happened.
    public enum Event: Sendable, Hashable {
        /// Logged in, and (subscriber) every channel given at the start is confirmed: publishes are
        /// accepted from now on.
        case ready(protocolVersion: Int)
        /// A message on a channel subscribed to.
        case message(channel: [UInt8], payload: [UInt8])
        /// A subscription confirmed by the server.
        case subscribed(channel: [UInt8])
        /// An unsubscription confirmed by the server.
        case unsubscribed(channel: [UInt8])
        /// A publish's reply: how many subscribers (on this server, or this shard) received it.
        case published(receivers: Int64)
        /// A `PING`'s reply.
        case pong
        /// The client failed and reads nothing more; the connection is to be closed.
        case failed(RedisError)
    }

    /// What a reply in a publisher's queue answers.
    enum Expected: Sendable, Hashable {
        case publish, ping
    }

    /// Where the client is.
    enum State: Sendable {
        /// ``start()`` not called yet.
        case idle
        /// Logging in and subscribing to the first channels.
        case handshaking(RedisSubscriberHandshake)
        /// Ready: replies are matched to what was sent.
        case ready(Ready)
        /// Failed for good.
        case failed(RedisError)
    }

    /// What a ready connection waits for.
    struct Ready: Sendable {
        var protocolVersion: Int
        /// Publisher: the replies awaited, in order.
        var expected = RingBuffer<Expected>()
        /// Subscriber: confirmations awaited, per channel.
        var pendingSubscribes: [String: Int] = [:]
        var pendingUnsubscribes: [String: Int] = [:]
        /// Subscriber: `PING`s not answered yet.
        var pendingPings = 0

        var pendingCount: Int {
            expected.count + pendingPings + pendingSubscribes.values.reduce(0, +) + pendingUnsubscribes.values.reduce(0, +)
        }
    }

    /// The endpoint logged in to.
    public let endpoint: RedisEndpoint
    /// The connection's role.
    public let role: Role
    /// Whether channels are shard channels (`SSUBSCRIBE`, `SPUBLISH`, Redis 7) rather than classic
    /// ones.
    public let sharded: Bool
    /// Whether the start tries `HELLO 3` (RESP3) first.
    public let usesHello: Bool
    /// The limits in force.
    public let limits: Limits
    /// The channels this subscriber wants: those given at the start, plus ``subscribe(_:)``, minus
    /// ``unsubscribe(_:)``; what a new connection subscribes to after this one failed.
    public internal(set) var subscriptions: Set<String>

    var state: State = .idle
    var decoder: RESPDecoder
    var output: [UInt8] = []
    var events = RingBuffer<Event>()
    /// The channels the start subscribes to (the others are sent once ready).
    var startChannels: Set<String> = []

    /// A client that will log in to `endpoint` and, as a subscriber, subscribe to `channels`.
    public init(endpoint: RedisEndpoint, role: Role, channels: Set<String> = [], sharded: Bool = false,
                usesHello: Bool = true, limits: Limits = Limits()) {
        self.endpoint = endpoint
        self.role = role
        self.sharded = sharded
        self.usesHello = usesHello
        self.limits = limits
        self.subscriptions = role == .subscriber ? channels : []
        decoder = RESPDecoder(limits: limits.resp)
    }

    /// Whether the client is ready: logged in and, for a subscriber, its first channels confirmed.
    public var isReady: Bool {
        if case .ready = state { return true }
        return false
    }

    /// The error the client failed with, or `nil`.
    public var failure: RedisError? {
        if case .failed(let error) = state { return error }
        return nil
    }

    /// The protocol the server speaks once ready (3 after `HELLO 3`, 2 otherwise), or `nil` before.
    public var protocolVersion: Int? {
        if case .ready(let ready) = state { return ready.protocolVersion }
        return nil
    }

    /// How many commands await their reply.
    public var pendingReplyCount: Int {
        if case .ready(let ready) = state { return ready.pendingCount }
        return 0
    }

    /// `PING`s sent and not answered: a caller that pings periodically treats one still unanswered
    /// at the next as a dead connection.
    public var unansweredPings: Int {
        guard case .ready(let ready) = state else { return 0 }
        return ready.pendingPings + ready.expected.count(of: .ping)
    }

    /// The number of bytes to write.
    public var pendingOutputCount: Int { output.count }

    /// The bytes to write to the server, removed from the client.
    public mutating func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: false) }
        return output
    }

    /// The next event, or `nil` when there is none until more bytes arrive.
    public mutating func nextEvent() -> Event? {
        events.popFirst()
    }
}
