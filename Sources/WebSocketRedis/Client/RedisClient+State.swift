// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Every change of `state` is in this file.

extension RedisClient {
    /// Starts the handshake: queues `HELLO 3` (or `AUTH`, or nothing to log in with) for
    /// ``takeOutput()``. Only once: a later call does nothing.
    public mutating func start() {
        guard case .idle = state else { return }
        let channels = subscriptions.sorted()
        startChannels = subscriptions
        var handshake = RedisSubscriberHandshake(endpoint: endpoint, channels: sharded ? [] : channels,
                                                 shardChannels: sharded ? channels : [], usesHello: usesHello)
        let commands = handshake.start()
        state = .handshaking(handshake)
        if commands.isEmpty {
            // Nothing to log in with and nothing to select: the handshake is done before it started.
            step(.ready, protocolVersion: 2)
        } else {
            for command in commands { command.encode(into: &output) }
        }
    }

    /// Takes bytes read from the server: the events they complete come out of ``nextEvent()``.
    /// Bytes after a failure are ignored.
    public mutating func receive(_ bytes: some Collection<UInt8>) {
        if case .failed = state { return }
        decoder.feed(bytes)
        drainDecoder()
    }

    /// Takes bytes read from the server, as the collection variant does.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        if case .failed = state { return }
        decoder.feed(bytes)
        drainDecoder()
    }

    /// The server closed the connection: the client fails with ``RedisError/Code/connectionClosed``
    /// (a Redis server never ends a connection a client still uses, save on error or shutdown).
    public mutating func receiveEOF() {
        fail(RedisError(.connectionClosed, reason: decoder.hasPartialValue ? "the server closed the connection in the middle of a reply"
                                                                            : "the server closed the connection"))
    }

    /// Fails the client for a reason from outside (a timeout, a transport error): ``Event/failed(_:)``
    /// comes out unless it failed already.
    public mutating func fail(_ error: RedisError) {
        if case .failed = state { return }
        state = .failed(error)
        output.removeAll()
        events.append(.failed(error))
    }

    /// Adds a channel to a subscriber's ``subscriptions``, sending `SUBSCRIBE` (`SSUBSCRIBE` when
    /// sharded) once ready. A channel subscribed already is left alone.
    ///
    /// - Throws: ``RedisError/Code/limitExceeded`` when the server has too many commands to answer
    ///   (the channel is still added, for the next connection), ``RedisError/Code/notReady`` for a
    ///   publisher.
    public mutating func subscribe(_ channel: String) throws(RedisError) {
        guard role == .subscriber else { throw RedisError(.notReady, reason: "a publisher does not subscribe") }
        guard subscriptions.insert(channel).inserted else { return }
        guard case .ready(var ready) = state else { return }
        try checkRoom(ready, adding: 1)
        state = .idle   // the enum's copy released: the change below is made in place, not on a copy
        ready.pendingSubscribes[channel, default: 0] += 1
        state = .ready(ready)
        (sharded ? RedisCommand.shardSubscribe(channels: [channel]) : .subscribe(channels: [channel])).encode(into: &output)
    }

    /// Removes a channel from a subscriber's ``subscriptions``, sending `UNSUBSCRIBE` once ready.
    ///
    /// - Throws: as ``subscribe(_:)``.
    public mutating func unsubscribe(_ channel: String) throws(RedisError) {
        guard role == .subscriber else { throw RedisError(.notReady, reason: "a publisher does not subscribe") }
        guard subscriptions.remove(channel) != nil else { return }
        guard case .ready(var ready) = state else { return }
        try checkRoom(ready, adding: 1)
        state = .idle   // as in subscribe(_:)
        ready.pendingUnsubscribes[channel, default: 0] += 1
        state = .ready(ready)
        (sharded ? RedisCommand.shardUnsubscribe(channels: [channel]) : .unsubscribe(channels: [channel])).encode(into: &output)
    }

    /// Queues `PUBLISH channel payload` (`SPUBLISH` when sharded) on a ready publisher; its reply
    /// comes out as ``Event/published(receivers:)``, in order.
    ///
    /// - Throws: ``RedisError/Code/notReady`` unless ready (the message is not sent: Redis keeps no
    ///   message for later, so a caller counts it lost), ``RedisError/Code/limitExceeded`` when the
    ///   server is that far behind.
    public mutating func publish(channel: String, payload: some Collection<UInt8>) throws(RedisError) {
        guard role == .publisher else { throw RedisError(.notReady, reason: "a subscriber does not publish") }
        guard case .ready(var ready) = state else { throw notReadyError }
        try checkRoom(ready, adding: 1, bytes: payload.count + channel.utf8.count + 48)
        state = .idle   // as in subscribe(_:): each publish would otherwise copy the replies awaited
        ready.expected.append(.publish)
        state = .ready(ready)
        RedisCommand.appendPublish(channel: channel, payload: payload, sharded: sharded, to: &output)
    }

    /// Queues `PING` on a ready connection; its reply comes out as ``Event/pong``.
    ///
    /// - Throws: as ``publish(channel:payload:)``.
    public mutating func ping() throws(RedisError) {
        guard case .ready(var ready) = state else { throw notReadyError }
        try checkRoom(ready, adding: 1)
        state = .idle   // as in subscribe(_:)
        switch role {
        case .publisher: ready.expected.append(.ping)
        case .subscriber: ready.pendingPings += 1
        }
        state = .ready(ready)
        RedisCommand.ping.encode(into: &output)
    }

    private var notReadyError: RedisError {
        if let failure { return RedisError(.notReady, reason: "the connection failed: \(failure)") }
        return RedisError(.notReady, reason: "the connection is not ready yet")
    }

    private func checkRoom(_ ready: Ready, adding count: Int, bytes: Int = 64) throws(RedisError) {
        guard ready.pendingCount + count <= limits.maxPendingReplies else {
            throw RedisError(.limitExceeded, reason: "\(ready.pendingCount) replies awaited already (maxPendingReplies)")
        }
        guard output.count + bytes <= limits.maxOutputBytes else {
            throw RedisError(.limitExceeded, reason: "\(output.count) bytes queued already (maxOutputBytes)")
        }
    }

    // MARK: Replies

    private mutating func drainDecoder() {
        while true {
            if case .failed = state { return }
            let value: RESPValue
            do throws(RESPError) {
                guard let next = try decoder.next() else { return }
                value = next
            } catch {
                fail(RedisError(.malformedReply, reason: error.description))
                return
            }
            do throws(RedisError) {
                try handle(value)
            } catch {
                fail(error)
            }
        }
    }

    private mutating func handle(_ value: RESPValue) throws(RedisError) {
        switch state {
        case .idle:
            throw RedisError(.unexpectedReply, reason: "\(RedisReplySummary(value)) before any command")
        case .failed:
            return
        case .handshaking(var handshake):
            state = .idle   // released while it changes (a throw fails the client)
            let next = try handshake.receive(value)
            let version: Int
            switch handshake.state {
            case .awaitingAuth(let protocolVersion), .awaitingSelect(let protocolVersion),
                .awaitingSubscriptions(let protocolVersion, _, _), .ready(let protocolVersion):
                version = protocolVersion
            case .idle, .awaitingHello, .failed:
                version = 2
            }
            state = .handshaking(handshake)
            step(next, protocolVersion: version)
        case .ready(var ready):
            state = .idle   // released while it changes (a throw fails the client)
            switch role {
            case .publisher: try handlePublisherReply(value, &ready)
            case .subscriber: try handleSubscriberValue(value, &ready)
            }
            state = .ready(ready)
        }
    }

    /// Carries out a handshake step.
    private mutating func step(_ next: RedisSubscriberHandshake.Step, protocolVersion: Int) {
        switch next {
        case .send(let commands):
            for command in commands { command.encode(into: &output) }
        case .wait:
            break
        case .deliver(let message):
            deliver(message)
        case .ready:
            var ready = Ready(protocolVersion: protocolVersion)
            // Channels changed during the handshake: brought in line now.
            for channel in subscriptions.subtracting(startChannels).sorted() {
                ready.pendingSubscribes[channel, default: 0] += 1
                (sharded ? RedisCommand.shardSubscribe(channels: [channel]) : .subscribe(channels: [channel])).encode(into: &output)
            }
            for channel in startChannels.subtracting(subscriptions).sorted() {
                ready.pendingUnsubscribes[channel, default: 0] += 1
                (sharded ? RedisCommand.shardUnsubscribe(channels: [channel]) : .unsubscribe(channels: [channel])).encode(into: &output)
            }
            state = .ready(ready)
            events.append(.ready(protocolVersion: protocolVersion))
        }
    }

    private mutating func deliver(_ message: RedisPubSubMessage) {
        switch message {
        case .message(let channel, let payload), .shardMessage(let channel, let payload):
            // A message for a channel unsubscribed since is dropped; the handshake checked the rest.
            if subscriptions.contains(String(decoding: channel, as: UTF8.self)) {
                events.append(.message(channel: channel, payload: payload))
            }
        default:
            break
        }
    }

    private mutating func handlePublisherReply(_ value: RESPValue, _ ready: inout Ready) throws(RedisError) {
        guard let expected = ready.expected.popFirst() else {
            throw RedisError(.unexpectedReply, reason: "\(RedisReplySummary(value)) with no command awaiting a reply")
        }
        if let message = value.errorMessage {
            throw RedisError(.serverError, reason: "\(expected == .publish ? "PUBLISH" : "PING"): \(message)")
        }
        switch (expected, value) {
        case (.publish, .integer(let receivers)):
            events.append(.published(receivers: receivers))
        case (.ping, .simpleString(let text)) where text == Array("PONG".utf8):
            events.append(.pong)
        default:
            throw RedisError(.unexpectedReply, reason: "\(RedisReplySummary(value)) in reply to \(expected == .publish ? "PUBLISH" : "PING")")
        }
    }

    private mutating func handleSubscriberValue(_ value: RESPValue, _ ready: inout Ready) throws(RedisError) {
        if let message = value.errorMessage {
            throw RedisError(.serverError, reason: "on a subscriber connection: \(message)")
        }
        // RESP3 answers a subscriber's PING with a plain +PONG, RESP2 with a ["pong", ""] array.
        if case .simpleString(let text) = value, text == Array("PONG".utf8), ready.pendingPings > 0 {
            ready.pendingPings -= 1
            events.append(.pong)
            return
        }
        let message = try RedisPubSubMessage(value)
        switch message {
        case .message(let channel, let payload), .shardMessage(let channel, let payload):
            let name = String(decoding: channel, as: UTF8.self)
            if subscriptions.contains(name) {
                events.append(.message(channel: channel, payload: payload))
            } else if ready.pendingUnsubscribes[name] == nil {
                // Neither wanted nor being left: the server sends what nobody asked for.
                throw RedisError(.unexpectedReply, reason: "a message on a channel never subscribed to")
            }
        case .subscribed(let kind, let channel, _):
            guard kind == (sharded ? .shardChannel : .channel),
                Self.take(String(decoding: channel, as: UTF8.self), from: &ready.pendingSubscribes)
            else { throw RedisError(.unexpectedReply, reason: "a subscription confirmed that was not asked for") }
            events.append(.subscribed(channel: channel))
        case .unsubscribed(let kind, let channel, _):
            // Redis 7 unsubscribes shard channels itself when their slot moves to another shard:
            // unexpected here, so the connection is made again and subscribes anew.
            guard kind == (sharded ? .shardChannel : .channel), let channel,
                Self.take(String(decoding: channel, as: UTF8.self), from: &ready.pendingUnsubscribes)
            else { throw RedisError(.unexpectedReply, reason: "an unsubscription that was not asked for") }
            events.append(.unsubscribed(channel: channel))
        case .pong:
            guard ready.pendingPings > 0 else { throw RedisError(.unexpectedReply, reason: "a pong without a PING") }
            ready.pendingPings -= 1
            events.append(.pong)
        case .patternMessage:
            throw RedisError(.unexpectedReply, reason: "a pattern message, and no pattern was subscribed to")
        }
    }

    private static func take(_ channel: String, from pending: inout [String: Int]) -> Bool {
        guard let count = pending[channel] else { return false }
        pending[channel] = count > 1 ? count - 1 : nil
        return true
    }
}
