// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// Redis as the bus that joins several servers' topics (a ``WebSocketTransport/TopicBackplane``):
/// attach one to each server (`WebSocketServer.attach(_:)`), all with the same Redis and channel
/// prefix, and a publish on any server reaches the subscribers of every one.
///
/// ```swift
/// let redis = try RedisEndpoint(parsing: "redis://app:secret@cache:6379/0")
/// server.attach(RedisBackplane(endpoint: redis))
/// ```
///
/// Each topic is the Redis channel `channelPrefix + topic`, subscribed to while the server has
/// subscribers of the topic. Two connections carry it, each on a thread of its own
/// (``RedisConnection``): a subscriber and a publisher. Each message travels in a
/// ``BackplaneEnvelope`` naming its kind (text or binary) and the publishing server (``origin``, a
/// random identity per backplane), so that a server skips its own messages when Redis brings them
/// back: it delivered them to its own subscribers already.
///
/// **What is lost.** Redis Pub/Sub delivers at most once and keeps nothing. While the subscriber is
/// cut off from Redis (a restart, a network cut), what other servers publish does not reach this
/// server's clients; while the publisher is, what this server publishes reaches only its own
/// clients. Both connections reconnect with backoff and the subscriber subscribes again to every
/// topic: the clients stay connected throughout. ``Event/disconnected(_:_:retryingIn:)`` says when
/// a cut begins, ``Event/connected(_:outage:)`` how long it lasted, and ``statistics`` counts
/// publishes lost and time cut off.
public final class RedisBackplane: TopicBackplane {
    /// Which of the two connections an event is about.
    public enum Role: Sendable, Hashable {
        /// The connection that receives other servers' messages.
        case subscriber
        /// The connection that sends this server's messages.
        case publisher
    }

    /// What the backplane reports (on its connections' threads).
    public enum Event: Sendable, Hashable {
        /// A connection is ready: after `outage` cut off (`nil` the first time).
        case connected(Role, outage: Duration?)
        /// A connection failed; the next attempt comes in `retryingIn`. Until it is back, messages are
        /// lost (see the type's documentation).
        case disconnected(Role, RedisError, retryingIn: Duration)
        /// A connection could not even start (no thread, no descriptor).
        case failedToStart(Role, RedisError)
        /// Redis confirmed the subscription to `topic`'s channel: other servers' messages to it
        /// arrive from now on. (On a new connection, ``connected(_:outage:)`` confirms every topic.)
        case subscribed(topic: String)
    }

    /// What the backplane did so far.
    public struct Statistics: Sendable, Hashable {
        /// The subscriber connection's statistics.
        public var subscriber: RedisConnection.Statistics
        /// The publisher connection's statistics (``RedisConnection/Statistics/publishesLost``: this
        /// server's publishes that never reached Redis).
        public var publisher: RedisConnection.Statistics
        /// Messages from other servers handed to this server's subscribers.
        public var delivered: Int
        /// This server's own messages, back from Redis and skipped.
        public var ownSkipped: Int
        /// Messages on the channels that were not envelopes of this version (another program, another
        /// version): skipped.
        public var unreadable: Int
    }

    /// The Redis server.
    public let endpoint: RedisEndpoint
    /// What every channel name starts with (all servers of a deployment use the same).
    public let channelPrefix: String
    /// This backplane's identity in the envelopes it publishes.
    public let origin: [UInt8]
    private let subscriber: RedisConnection
    private let publisher: RedisConnection
    private let onEvent: @Sendable (Event) -> Void
    private struct State {
        var deliver: (@Sendable (BackplaneMessage) -> Void)? = nil
        var delivered = 0
        var ownSkipped = 0
        var unreadable = 0
    }
    private let state: Locked<State>

    /// A backplane over `endpoint`, not started: the server starts it when it attaches it.
    ///
    /// - Parameters:
    ///   - endpoint: the Redis server (``RedisEndpoint/init(parsing:)`` reads a `redis://` URL).
    ///   - channelPrefix: prepended to each topic to name its Redis channel. Default `websocket:`.
    ///   - options: both connections' options (TLS for `rediss://`, timeouts, reconnection, limits).
    ///   - origin: this server's identity in the envelopes; default 16 random bytes. Give each server
    ///     its own.
    ///   - onEvent: called on a connection's thread for each event (log the cuts, say).
    public init(endpoint: RedisEndpoint, channelPrefix: String = "websocket:", options: RedisConnection.Options = RedisConnection.Options(),
                origin: [UInt8]? = nil, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.endpoint = endpoint
        self.channelPrefix = channelPrefix
        let origin = origin ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        self.origin = origin
        self.onEvent = onEvent
        let state = Locked(State())
        self.state = state
        subscriber = RedisConnection(endpoint: endpoint, role: .subscriber, options: options) { event in
            switch event {
            case .message(let channel, let payload):
                Self.received(payload, on: channel, prefix: channelPrefix, origin: origin, state: state)
            case .connected(_, let outage): onEvent(.connected(.subscriber, outage: outage))
            case .disconnected(let error, let delay): onEvent(.disconnected(.subscriber, error, retryingIn: delay))
            case .subscribed(let channel):
                if channel.hasPrefix(channelPrefix) { onEvent(.subscribed(topic: String(channel.dropFirst(channelPrefix.count)))) }
            }
        }
        publisher = RedisConnection(endpoint: endpoint, role: .publisher, options: options) { event in
            switch event {
            case .connected(_, let outage): onEvent(.connected(.publisher, outage: outage))
            case .disconnected(let error, let delay): onEvent(.disconnected(.publisher, error, retryingIn: delay))
            case .message, .subscribed: break
            }
        }
    }

    /// What the backplane did so far.
    public var statistics: Statistics {
        let counts = state.withLock { ($0.delivered, $0.ownSkipped, $0.unreadable) }
        return Statistics(subscriber: subscriber.statistics, publisher: publisher.statistics, delivered: counts.0,
                          ownSkipped: counts.1, unreadable: counts.2)
    }

    /// Whether both connections are ready now.
    public var isConnected: Bool { subscriber.isConnected && publisher.isConnected }

    // MARK: TopicBackplane

    /// Starts both connections; `deliver` gets other servers' messages.
    public func start(delivering deliver: @escaping @Sendable (BackplaneMessage) -> Void) {
        state.withLock { $0.deliver = deliver }
        for (role, connection) in [(Role.subscriber, subscriber), (.publisher, publisher)] {
            do throws(RedisError) {
                try connection.start()
            } catch {
                onEvent(.failedToStart(role, error))
            }
        }
    }

    /// Subscribes to `topic`'s channel.
    public func subscribe(_ topic: String) {
        subscriber.subscribe(channelPrefix + topic)
    }

    /// Unsubscribes from `topic`'s channel.
    public func unsubscribe(_ topic: String) {
        subscriber.unsubscribe(channelPrefix + topic)
    }

    /// Publishes `message` in an envelope on its topic's channel; one the publisher cannot send now
    /// (cut off) is lost and counted.
    public func publish(_ message: BackplaneMessage) {
        var bytes: [UInt8] = []
        BackplaneEnvelope.append(origin: origin, kind: message.kind == .text ? .text : .binary, payload: message.payload, to: &bytes)
        publisher.publish(channel: channelPrefix + message.topic, payload: bytes)
    }

    /// Closes both connections (waiting for their threads).
    public func stop() {
        state.withLock { $0.deliver = nil }
        subscriber.close()
        publisher.close()
    }

    /// A message on a subscribed channel: another server's goes to `deliver`; this one's own, and
    /// anything not an envelope, are skipped.
    private static func received(_ payload: [UInt8], on channel: String, prefix: String, origin: [UInt8], state: Locked<State>) {
        guard channel.hasPrefix(prefix), let envelope = BackplaneEnvelope(decoding: payload) else {
            state.withLock { $0.unreadable += 1 }
            return
        }
        guard envelope.origin != origin else {
            state.withLock { $0.ownSkipped += 1 }
            return
        }
        let topic = String(channel.dropFirst(prefix.count))
        let deliver = state.withLock { state -> (@Sendable (BackplaneMessage) -> Void)? in
            if state.deliver != nil { state.delivered += 1 }
            return state.deliver
        }
        deliver?(BackplaneMessage(topic: topic, kind: envelope.kind == .text ? .text : .binary, payload: envelope.payload))
    }
}
