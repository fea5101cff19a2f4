// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import TransportTestSupport
import WebSocketRedis
import WebSocketTransport

/// A connection's events as they come, with waits on them (a condition with a generous bound, never
/// a sleep).
final class EventRecorder: Sendable {
    private let events = Locked<[RedisConnection.Event]>([])

    var handler: @Sendable (RedisConnection.Event) -> Void {
        { [events] event in
            events.withLock { $0.append(event) }
            events.broadcast()
        }
    }

    var all: [RedisConnection.Event] { events.withLock { $0 } }

    /// Waits until `condition` holds for the events so far; whether it did within `timeout`.
    func wait(timeout: Duration = .seconds(60), until condition: ([RedisConnection.Event]) -> Bool) -> Bool {
        events.wait(until: condition, deadline: now() + timeout, now: now)
    }

    /// Waits for `count` events of the kind `matches` picks.
    func wait(for count: Int, timeout: Duration = .seconds(60), _ matches: @escaping (RedisConnection.Event) -> Bool) -> Bool {
        wait(timeout: timeout) { $0.filter(matches).count >= count }
    }

    var connections: [Duration?] {
        all.compactMap { if case .connected(_, let outage) = $0 { return outage } else { return nil } }
    }

    var errors: [RedisError] {
        all.compactMap { if case .disconnected(let error, _) = $0 { return error } else { return nil } }
    }

    var messages: [(channel: String, payload: [UInt8])] {
        all.compactMap { if case .message(let channel, let payload) = $0 { return (channel, payload) } else { return nil } }
    }

    static func isConnected(_ event: RedisConnection.Event) -> Bool {
        if case .connected = event { return true } else { return false }
    }

    static func isDisconnected(_ event: RedisConnection.Event) -> Bool {
        if case .disconnected = event { return true } else { return false }
    }

    static func isMessage(_ event: RedisConnection.Event) -> Bool {
        if case .message = event { return true } else { return false }
    }
}

extension RedisConnection.Options {
    /// Retries within milliseconds, so that tests of reconnection run fast.
    static var fast: Self {
        var options = Self()
        options.reconnect = RedisReconnectPolicy(initialDelay: .milliseconds(20), factor: 2, maximumDelay: .milliseconds(200))
        return options
    }
}
