// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension WebSocket {
    // MARK: Topics (a server's connections)

    /// Subscribes the connection to `topic`: from now on it receives what
    /// ``WebSocketServer/publish(topic:text:excluding:)`` and the other publish calls send to that topic,
    /// until ``unsubscribe(_:)`` or the end of the connection (which unsubscribes it from
    /// everything). May be called from any thread; a publish made after this returns, from any
    /// thread, reaches the connection. Subscribing to a topic twice is one subscription.
    ///
    /// - Returns: whether it was a new subscription; `false` when it was one already, or the
    ///   connection has ended.
    /// - Throws: ``WebSocketTransport/WebSocketError/invalidArgument(_:)`` for a client's socket (only
    ///   a server's connections subscribe), a topic longer than
    ///   ``WebSocketTransport/TransportOptions/maxTopicLength`` bytes, or one more than
    ///   ``WebSocketTransport/TransportOptions/maxSubscriptions`` topics.
    @discardableResult
    public func subscribe(_ topic: String) throws(WebSocketError) -> Bool {
        guard let server else { throw .invalidArgument("only a server's connections subscribe to topics") }
        // The server's own copy of the options, a stored property: `options` hands out a copy of all
        // of them (a retain and a release of each reference they hold) for each field read.
        let limit = server.options.maxSubscriptions
        let maxLength = server.options.maxTopicLength
        guard topic.utf8.count <= maxLength else {
            throw .invalidArgument("topic of \(topic.utf8.count) bytes, over maxTopicLength (\(maxLength))")
        }
        let added = try shared.withLock { (shared) throws(WebSocketError) -> Bool in
            guard shared.ending == nil else { return false }
            // Below the limit, one insertion says whether it was there (each lookup hashes the topic).
            guard shared.topics.count < limit else {
                if shared.topics.contains(topic) { return false }
                throw .invalidArgument("already subscribed to \(limit) topics (maxSubscriptions)")
            }
            return shared.topics.insert(topic)
        }
        guard added else { return false }
        if loop.inLoop {
            // Joined at once, with no second look at the set: an unsubscribe from another thread
            // since the insertion queued its own sync behind this, which finds it unwanted.
            if !peek({ $0.isFinished }) { server.topicTable(on: loop).add(self, to: topic) }
        } else {
            syncSubscription(topic)
        }
        return true
    }

    /// Unsubscribes the connection from `topic`: a publish made after this returns, from any
    /// thread, does not reach it (one already on its way to the connection's loop may). May be
    /// called from any thread.
    ///
    /// - Returns: whether it was subscribed.
    @discardableResult
    public func unsubscribe(_ topic: String) -> Bool {
        let removed = shared.withLock { $0.topics.remove(topic) }
        if removed { syncSubscription(topic) }
        return removed
    }

    /// The topics the connection is subscribed to (empty once it has ended).
    public var subscriptions: Set<String> { shared.withLock { $0.topics.set } }

    /// Makes the loop's table agree with `shared.topics` about `topic`: at once on the loop,
    /// otherwise in the loop's next turn, before any publish made after the call that asked for it.
    /// Comparing with the set, rather than carrying out the change itself, keeps subscriptions and
    /// unsubscriptions from several threads right whatever order their syncs run in: the last
    /// one finds the last word.
    private func syncSubscription(_ topic: String) {
        guard let server else { return }
        if loop.inLoop {
            applySubscription(topic, table: server.topicTable(on: loop))
        } else {
            let table = server.topicTable(on: loop)
            loop.execute { [self] in applySubscription(topic, table: table) }
        }
    }

    /// (On the loop) See ``syncSubscription(_:)``. A socket that has ended joins nothing: it left
    /// every topic when it closed.
    private func applySubscription(_ topic: String, table: TopicTable) {
        let wanted = !peek({ $0.isFinished }) && shared.withLock { $0.topics.contains(topic) }
        if wanted { table.add(self, to: topic) } else { table.remove(self, from: topic) }
    }

    /// (On the loop, as the socket is closed for being slow) Leaves every topic.
    func leaveAllTopics() {
        guard server != nil else { return }
        shared.withLock { $0.topics.removeAll() }
        leaveTopicTable()
    }

    /// (On the loop) Leaves the loop's table, the topics others read (`shared.topics`) emptied
    /// already: as the socket closes, with the rest of its ending, under one lock. The table is
    /// what the socket's slots say it is in: a subscription not yet applied there never will be
    /// (``applySubscription(_:table:)`` joins nothing once the socket has ended).
    func leaveTopicTable() {
        guard let server, !topicSlots.isEmpty else { return }
        server.topicTable(on: loop).removeFromAll(self)
    }

    /// (On the loop) Queues a published message, framed once for every subscriber: the output
    /// holds the prepared bytes themselves, shared. A connection closing (or not open) skips it.
    ///
    /// A subscriber whose buffered output (with what waits for room) has reached
    /// ``highWaterMark`` cannot keep up: it is closed with 1013 (Try Again Later), so that the
    /// publisher's messages never pile up in memory for it. 1013 rather than 1008 (Policy
    /// Violation): the client broke no rule with anything it sent (1008 is for a message that
    /// violates a policy); the server cannot keep its messages for it now, a temporary condition
    /// after which it may connect again (a ``ReconnectingWebSocket`` does) and start afresh.
    func deliverPublished(_ message: Connection.PreparedMessage) {
        do throws(WebSocketError) {
            try sendNow(.prepared(message))
        } catch .bufferFull {
            fellBehind(with: message)
        } catch {
            // Closing, closed, or in the middle of a fragmented message of its own: skipped, as a
            // broadcast skips it.
        }
    }

    /// (On the loop) A publish was refused for room: the subscriber is closed once it holds its
    /// limit; below it (async sends of its own wait for room), the message waits behind them.
    private func fellBehind(with message: Connection.PreparedMessage) {
        let held = peek { $0.bufferedAmount + $0.waitingBytes }
        if held >= highWaterMark {
            // It leaves its topics at once: the publishes that follow do not come back here.
            leaveAllTopics()
            peek { $0.closedForBackpressure = true }
            startClosing(Connection.CloseFrame(code: .tryAgainLater, reason: "subscriber too slow"))
        } else {
            _ = peek { $0.sendOrWait(.prepared(message)) { _ in } }
            markDirty()
        }
    }
}
