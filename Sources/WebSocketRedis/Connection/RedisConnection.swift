// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore
import WebSocketTransport

/// A connection to Redis in one role, subscriber or publisher, run on a thread of its own: it
/// connects (TCP, a Unix domain socket, or `rediss://` over the TLS layer with its verification), logs
/// in, subscribes, and when the connection fails (Redis restarted, a network cut, a reply that makes
/// no sense) connects again with backoff and subscribes again to every channel.
///
/// ```swift
/// let endpoint = try RedisEndpoint(parsing: "redis://app:secret@cache:6379/0")
/// let subscriber = RedisConnection(endpoint: endpoint, role: .subscriber, channels: ["room:1"]) { event in
///     switch event {
///     case .message(let channel, let payload): relay(payload, to: channel)
///     case .disconnected(let error, _): log("cut off from Redis, messages are lost: \(error)")
///     case .connected: break
///     }
/// }
/// try subscriber.start()
/// subscriber.subscribe("room:2")
///
/// let publisher = RedisConnection(endpoint: endpoint, role: .publisher)
/// try publisher.start()
/// publisher.publish(channel: "room:1", payload: bytes)   // false: cut off, counted as lost
/// ```
///
/// Redis Pub/Sub delivers at most once and keeps nothing: what is published while a subscriber is cut
/// off never reaches it, and a publisher cut off has nowhere to send. Both are made visible:
/// ``Event/disconnected(_:retryingIn:)`` when the cut starts, ``Event/connected(protocolVersion:outage:)``
/// with its length when it ends, and ``statistics`` counts the cuts, their total length, and the
/// publishes refused meanwhile.
///
/// The handler runs on the connection's thread, one event at a time, in order; it may call
/// ``publish(channel:payload:)``, ``subscribe(_:)`` and ``unsubscribe(_:)``, but not ``close()``
/// (which waits for that thread). The thread holds the connection until ``close()``: a connection
/// started and dropped keeps connecting.
public final class RedisConnection: Sendable {
    /// What a connection reports.
    public enum Event: Sendable, Hashable {
        /// Logged in and, for a subscriber, subscribed to every channel: messages flow. `outage` is
        /// how long the connection was cut off before (from the loss of the last ready connection),
        /// `nil` the first time.
        case connected(protocolVersion: Int, outage: Duration?)
        /// A message on a channel subscribed to.
        case message(channel: String, payload: [UInt8])
        /// A channel added by ``RedisConnection/subscribe(_:)`` on a ready connection is confirmed:
        /// its messages flow from now on. (The channels of a new connection are confirmed by
        /// ``connected(protocolVersion:outage:)``.)
        case subscribed(channel: String)
        /// A connection (or an attempt) failed; the next attempt comes in `retryingIn`. Until
        /// ``connected(protocolVersion:outage:)``, messages published (by anyone) are lost to this
        /// connection.
        case disconnected(RedisError, retryingIn: Duration)
    }

    /// What the connection did since it started.
    public struct Statistics: Sendable, Hashable {
        /// Connections made ready (the first included).
        public var connections = 0
        /// Ready connections lost (each one a cut during which messages were lost).
        public var disconnections = 0
        /// Attempts that failed before the connection was ready (refused, wrong password, timeout).
        public var failedAttempts = 0
        /// The total time cut off: from the loss of a ready connection to the next ready one.
        public var timeCutOff: Duration = .zero
        /// Publishes refused because the publisher was not ready (cut off, or still logging in), or
        /// the server too far behind (``RedisClient/Limits``): messages lost.
        public var publishesLost = 0
        /// Messages received on subscribed channels.
        public var messagesReceived = 0

        /// Statistics, all zero.
        public init() {}
    }

    /// How the connection connects, waits and retries.
    public struct Options: Sendable {
        /// Makes the TLS layer for `rediss://` (the `WebSocketTLS` module's `TLSContext`, whose client
        /// configuration verifies the server's certificate and name by default); `nil` refuses
        /// `rediss://` with ``RedisError/Code/connectFailed``.
        public var tls: (any TLSLayerFactory)?
        /// The longest a connect may take (every address the name resolves to, in turn). Default 5 s.
        public var connectTimeout: Duration
        /// The longest the login and the first subscriptions may take. Default 5 s.
        public var handshakeTimeout: Duration
        /// How often a ready connection sends `PING`; one still unanswered at the next ends the
        /// connection with ``RedisError/Code/timedOut`` (a cut that sends no reset is noticed within
        /// two intervals). Default 10 s; `nil`: never.
        public var pingInterval: Duration?
        /// How soon to try again.
        public var reconnect: RedisReconnectPolicy
        /// What the server may make the connection hold.
        public var limits: RedisClient.Limits
        /// Shard channels (`SSUBSCRIBE`, `SPUBLISH`) rather than classic ones. Default `false`: see
        /// the guide (a cluster's shard channels need routing to the shard that owns each, which this
        /// connection does not do).
        public var sharded: Bool
        /// Try `HELLO 3` (RESP3) first. Default `true`.
        public var usesHello: Bool
        /// The bytes read from the socket at once. Default 64 KiB.
        public var readBufferSize: Int

        /// Options; every parameter defaults to the value documented on its property.
        public init(tls: (any TLSLayerFactory)? = nil, connectTimeout: Duration = .seconds(5),
                    handshakeTimeout: Duration = .seconds(5), pingInterval: Duration? = .seconds(10),
                    reconnect: RedisReconnectPolicy = RedisReconnectPolicy(), limits: RedisClient.Limits = RedisClient.Limits(),
                    sharded: Bool = false, usesHello: Bool = true, readBufferSize: Int = 64 << 10) {
            self.tls = tls
            self.connectTimeout = connectTimeout
            self.handshakeTimeout = handshakeTimeout
            self.pingInterval = pingInterval
            self.reconnect = reconnect
            self.limits = limits
            self.sharded = sharded
            self.usesHello = usesHello
            self.readBufferSize = readBufferSize
        }
    }

    /// Where the connection's thread is.
    enum Phase: Sendable {
        case notStarted, running, stopping, ended
    }

    /// What the connection's thread and the callers share.
    struct Shared: Sendable {
        var phase = Phase.notStarted
        /// The connection being made or in use, or `nil` between attempts.
        var client: RedisClient?
        /// The channels wanted, kept across connections.
        var subscriptions: Set<String>
        var statistics = Statistics()
    }

    /// The server.
    public let endpoint: RedisEndpoint
    /// The role.
    public let role: RedisClient.Role
    /// The options.
    public let options: Options
    let handler: @Sendable (Event) -> Void
    let shared: Locked<Shared>
    /// Wakes the thread from its wait: new output, a stop. `nil` only when the process had no
    /// descriptor left for it, and then ``start()`` fails.
    let wake: WakeSignal?
    let system = SystemCalls.live

    /// A connection, not started: ``start()`` starts its thread.
    ///
    /// - Parameters:
    ///   - endpoint: the server and how to log in (``RedisEndpoint/init(parsing:)`` reads a URL).
    ///   - role: subscriber or publisher.
    ///   - channels: for a subscriber, the channels to subscribe to from the start.
    ///   - options: timeouts, TLS, backoff, limits.
    ///   - handler: called on the connection's thread for each event.
    public init(endpoint: RedisEndpoint, role: RedisClient.Role, channels: Set<String> = [], options: Options = Options(),
                handler: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.endpoint = endpoint
        self.role = role
        self.options = options
        self.handler = handler
        shared = Locked(Shared(subscriptions: role == .subscriber ? channels : []))
        wake = try? WakeSignal(system: SystemCalls.live)
    }

    /// Starts the connection's thread. Once: later calls do nothing.
    ///
    /// - Throws: ``RedisError/Code/connectFailed`` when no thread (or no wake-up pipe) can be had.
    public func start() throws(RedisError) {
        guard let wake else { throw RedisError(.connectFailed, reason: "no descriptor left for the wake-up pipe") }
        let starts = shared.withLock { state -> Bool in
            guard case .notStarted = state.phase else { return false }
            state.phase = .running
            return true
        }
        guard starts else { return }
        do throws(Errno) {
            try spawnDetachedThread { [self] in run(wake: wake) }
        } catch {
            shared.withLock { $0.phase = .ended }
            throw RedisError(.connectFailed, reason: "no thread: \(error)")
        }
    }

    /// Stops the connection: closes the socket, ends the thread, and returns once it has ended. No
    /// event comes after. Do not call it from the handler.
    public func close() {
        let wasRunning = shared.withLock { state -> Bool in
            switch state.phase {
            case .notStarted, .ended:
                state.phase = .ended
                return false
            case .running, .stopping:
                state.phase = .stopping
                return true
            }
        }
        guard wasRunning else { return }
        shared.broadcast()
        wake?.signal()
        _ = shared.wait(until: { if case .ended = $0.phase { return true } else { return false } }, deadline: nil,
                        now: system.monotonicNow)
    }

    /// Whether a connection is ready now.
    public var isConnected: Bool { shared.withLock { $0.client?.isReady ?? false } }

    /// What the connection did so far.
    public var statistics: Statistics { shared.withLock { $0.statistics } }

    /// The channels a subscriber wants.
    public var subscriptions: Set<String> { shared.withLock { $0.subscriptions } }

    /// Adds a channel: subscribed now if ready (``Event/subscribed(channel:)`` once confirmed), and on
    /// every connection from now on. A publisher ignores it.
    public func subscribe(_ channel: String) {
        change { (state: inout Shared) throws(RedisError) in
            state.subscriptions.insert(channel)
            try state.client?.subscribe(channel)
        }
    }

    /// Removes a channel: unsubscribed now if ready, and on no connection from now on. A publisher
    /// ignores it.
    public func unsubscribe(_ channel: String) {
        change { (state: inout Shared) throws(RedisError) in
            state.subscriptions.remove(channel)
            try state.client?.unsubscribe(channel)
        }
    }

    /// Publishes `payload` on `channel` (a publisher only). Returns whether it was sent: `false` when
    /// not ready (cut off, still logging in) or too far behind, counted in
    /// ``Statistics/publishesLost``. A message sent may still be lost if the connection fails before
    /// Redis reads it: Pub/Sub is at most once.
    @discardableResult
    public func publish(channel: String, payload: some Collection<UInt8>) -> Bool {
        let sent = shared.withLock { state -> Bool in
            guard state.client != nil else {
                state.statistics.publishesLost += 1
                return false
            }
            do throws(RedisError) {
                try state.client!.publish(channel: channel, payload: payload)
                return true
            } catch {
                state.statistics.publishesLost += 1
                return false
            }
        }
        if sent { wake?.signal() }
        return sent
    }

    /// Applies a subscription change; a client it overloads fails (and the next connection
    /// subscribes to everything wanted).
    private func change(_ body: (inout Shared) throws(RedisError) -> Void) {
        guard role == .subscriber else { return }
        shared.withLock { state in
            do throws(RedisError) {
                try body(&state)
            } catch {
                state.client?.fail(error)
            }
        }
        wake?.signal()
    }
}
