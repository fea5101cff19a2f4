// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension WebSocketServer {
    // MARK: A backplane (topics across servers)

    /// Attaches a message bus that joins this server's topics with other servers' (Redis, with
    /// `WebSocketRedis.RedisBackplane`): from now on, every publish here also goes to the bus, and
    /// what other servers publish comes from it to the subscribers here. See ``WebSocketTransport/TopicBackplane``.
    ///
    /// ```swift
    /// let server = try WebSocketServer(port: 9001) { socket, event in … }
    /// server.attach(RedisBackplane(endpoint: try RedisEndpoint(parsing: "redis://cache:6379")))
    /// ```
    ///
    /// - A message from the bus reaches this server's subscribers of its topic and goes nowhere else
    ///   (never back to the bus). A text message that is not valid UTF-8 is dropped: it could not
    ///   be sent as text (RFC 6455 §8.1).
    /// - The bus is told which topics have subscribers here, as they come and go, so that it brings
    ///   only those.
    /// - One bus per server: attaching another while one is attached does nothing and returns
    ///   `false`. ``stop(closing:reason:)``, ``drain(code:reason:timeout:)`` and
    ///   ``detachBackplane()`` stop it.
    @discardableResult
    public func attach(_ backplane: any TopicBackplane) -> Bool {
        core.topicPresence.attach(backplane) { [weak core] message in core?.deliverFromBackplane(message) }
    }

    /// Detaches the backplane, if one is attached, and stops it: publishes stay on this server.
    public func detachBackplane() {
        core.topicPresence.detach()?.stop()
    }
}

extension ServerCore {
    /// Delivers `message` to the subscribers of `topic` on every loop of the server, and to
    /// nothing else: at once on the calling loop, as one task on each of the others. `false`, and
    /// nothing delivered, when the tasks would take the loops' backlog past its limit
    /// (``PublishBacklog``).
    @discardableResult
    func deliverLocally(topic: String, _ message: Connection.PreparedMessage, excluding: WebSocket?) -> Bool {
        var others = 0
        for loop in loops where !loop.inLoop { others += 1 }
        let size = message.wireBytes.count
        let (cost, overflow) = size.multipliedReportingOverflow(by: others)
        guard !overflow, publishBacklog.reserve(cost) else { return false }
        for (loop, table) in zip(loops, topicTables) {
            if loop.inLoop {
                table.deliver(message, to: topic, excluding: excluding)
            } else {
                loop.execute { [publishBacklog] in
                    table.deliver(message, to: topic, excluding: excluding)
                    publishBacklog.release(size)
                }
            }
        }
        return true
    }

    /// A message another server published, from the backplane: to the subscribers here only.
    func deliverFromBackplane(_ message: BackplaneMessage) {
        let prepared: Connection.PreparedMessage
        switch message.kind {
        case .binary:
            prepared = Connection.PreparedMessage(binary: message.payload, fragmentationSize: configuration.fragmentationSize)
        case .text:
            // Decoding replaces what is not UTF-8: the same bytes back means they were valid.
            let text = String(decoding: message.payload, as: UTF8.self)
            guard text.utf8.elementsEqual(message.payload) else { return }
            prepared = Connection.PreparedMessage(text: text, fragmentationSize: configuration.fragmentationSize)
        }
        // Refused past the backlog's limit: lost, as Redis Pub/Sub may lose any message.
        deliverLocally(topic: message.topic, prepared, excluding: nil)
    }
}
