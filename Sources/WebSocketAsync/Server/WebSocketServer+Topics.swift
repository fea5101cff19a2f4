// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension WebSocketServer {
    // MARK: Topics

    /// Publishes a text message to every connection subscribed to `topic`
    /// (``WebSocket/subscribe(_:)``): framed once, and the same bytes queued on every subscriber of
    /// every loop, but `excluding` (the sender of a chat message, say). May be called from any
    /// thread; returns at once, `false` when the message was refused (see
    /// ``publish(topic:_:excluding:)``, "A publisher faster than the loops").
    @discardableResult
    public func publish(topic: String, text: String, excluding: WebSocket? = nil) -> Bool {
        publish(topic: topic, Connection.PreparedMessage(text: text, fragmentationSize: core.configuration.fragmentationSize),
                excluding: excluding)
    }

    /// Publishes a binary message to every connection subscribed to `topic`; see
    /// ``publish(topic:text:excluding:)``.
    @discardableResult
    public func publish(topic: String, binary: some Collection<UInt8>, excluding: WebSocket? = nil) -> Bool {
        publish(topic: topic, Connection.PreparedMessage(binary: binary, fragmentationSize: core.configuration.fragmentationSize),
                excluding: excluding)
    }

    /// Publishes a prepared message (framed with the server's
    /// ``WebSocketCore/Connection/Configuration/fragmentationSize``, if it has one) to every
    /// connection subscribed to `topic` but `excluding`.
    ///
    /// - **Once per loop.** A loop's subscribers are listed on that loop and touched only there: a
    ///   publish on a loop (from a handler) is queued on its subscribers at once; one from anywhere
    ///   else reaches each of the server's other loops as one task, which queues it on the
    ///   subscribers there. No lock and no copy per subscriber: each one's output holds the prepared
    ///   bytes themselves (unmasked frames, reserved bits clear).
    /// - **Order.** Each subscriber gets one publisher's messages in the order that publisher made
    ///   them (publishes from several threads at once interleave in some order), and its own sends
    ///   in the order they and the publishes reached its loop.
    /// - **permessage-deflate.** A subscriber that negotiated it gets the message uncompressed, RSV1
    ///   clear (RFC 7692 §6 allows any message to go uncompressed): compressed bytes could not be
    ///   shared, each connection's compression context being its own.
    /// - **Slow subscribers.** One whose buffered output has reached its ``WebSocket/highWaterMark``
    ///   (``WebSocketCore/Connection/Limits/maxBufferedOutput``) is closed with 1013 (Try Again
    ///   Later) and leaves its topics: the server never holds more than that per subscriber, however
    ///   fast the publisher. A subscriber closing, or not open yet, skips the message.
    ///
    /// - **A publisher faster than the loops.** A publish from another thread reaches the loops
    ///   as tasks that hold the message until they run. Their bytes (counted once per loop) are
    ///   bounded by ``WebSocketTransport/TransportOptions/maxPublishBacklog``: a publish that would
    ///   pass it is refused, delivered to no one, and this returns `false`. Slow down, or drop.
    ///   (Never blocking: a handler on one loop may publish to the others.) A publish from a
    ///   handler on one of the server's loops is delivered there at once, and counts only for
    ///   the other loops.
    ///
    /// With a backplane attached (``attach(_:)``), the message also goes to the other servers on it.
    ///
    /// - Returns: whether the message was queued for delivery.
    @discardableResult
    public func publish(topic: String, _ message: Connection.PreparedMessage, excluding: WebSocket? = nil) -> Bool {
        guard publishLocally(topic: topic, message, excluding: excluding) else { return false }
        if let backplane = core.topicPresence.backplane {
            backplane.publish(BackplaneMessage(topic: topic, kind: message.kind, payload: message.payload))
        }
        return true
    }

    /// Delivers a prepared message to this server's subscribers of `topic` only, never to a
    /// backplane (``attach(_:)``): what comes from the bus is delivered this way, and so may be a
    /// message meant for this server's clients alone. Bounded as ``publish(topic:_:excluding:)`` is.
    ///
    /// - Returns: whether the message was queued for delivery.
    @discardableResult
    public func publishLocally(topic: String, _ message: Connection.PreparedMessage, excluding: WebSocket? = nil) -> Bool {
        core.deliverLocally(topic: topic, message, excluding: excluding)
    }
}
