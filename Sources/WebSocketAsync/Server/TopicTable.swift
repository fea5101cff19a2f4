// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// One loop's subscribers, by topic: the sockets of one server on one loop, and only those.
///
/// Every access happens on that loop's thread (a socket's subscription changes there, a publish is
/// delivered there), so delivery walks a plain array with no lock, and a publish from elsewhere
/// hops to each loop once, not once per subscriber.
///
/// `@unchecked Sendable`: shared by the server's threads only to be handed to its loop.
final class TopicTable: @unchecked Sendable {
    /// The subscribers of each topic with at least one here, in no particular order (a removal
    /// moves the last one into the gap). Each socket knows its slot in every array it is in
    /// (``WebSocket/topicSlots``), so that leaving a topic costs no search.
    @exclusivity(unchecked) private var subscribers: [String: [WebSocket]] = [:]
    /// Told when a topic gets its first subscriber here, or loses its last.
    private let presence: TopicPresence

    init(presence: TopicPresence) {
        self.presence = presence
    }

    /// Topics with at least one subscriber on this loop.
    var topicCount: Int { subscribers.count }

    /// The number of subscribers of `topic` on this loop.
    func subscriberCount(of topic: String) -> Int { subscribers[topic]?.count ?? 0 }

    /// Adds `socket` to `topic`'s subscribers, unless it is one already. (A topic's first
    /// subscriber on this loop, here, and its last one leaving, in ``remove(_:from:)``, are where a
    /// backplane would learn which topics to subscribe to on its bus.)
    func add(_ socket: WebSocket, to topic: String) {
        guard socket.topicSlots[topic] == nil else { return }
        // The topic's list is looked up once and appended to in place (each lookup hashes the topic).
        let slot = Self.append(socket, to: &subscribers[topic, default: []])
        socket.topicSlots[topic] = slot
        if slot == 0 { presence.appeared(topic) }
    }

    /// Appends `socket` to `list`; its slot there.
    private static func append(_ socket: WebSocket, to list: inout [WebSocket]) -> Int {
        list.append(socket)
        return list.count - 1
    }

    /// Removes `socket` from `topic`'s subscribers, if it is one; a topic left without any is
    /// forgotten.
    func remove(_ socket: WebSocket, from topic: String) {
        guard let slot = socket.topicSlots.removeValue(forKey: topic) else { return }
        vacate(slot, of: topic)
    }

    /// Empties `slot` of `topic`'s subscribers, whose socket no longer lists the topic: the last
    /// subscriber takes its place, and a topic left without any is forgotten. The list is changed in
    /// place with one lookup (taken out and put back, it was looked up twice).
    private func vacate(_ slot: Int, of topic: String) {
        let (moved, emptied) = Self.vacate(slot, in: &subscribers[topic])
        if let moved { moved.topicSlots[topic] = slot }
        if emptied { presence.vanished(topic) }
    }

    /// ``vacate(_:of:)`` on the list itself: the subscriber moved into `slot`, if any, and whether
    /// the list is gone (`nil`: the slot was its last).
    private static func vacate(_ slot: Int, in list: inout [WebSocket]?) -> (moved: WebSocket?, emptied: Bool) {
        // Moved out, so that it is changed unshared, and back unless empty.
        guard var subscribers = list.take() else { return (nil, false) }
        let last = subscribers.removeLast()
        var moved: WebSocket? = nil
        if slot < subscribers.count {
            subscribers[slot] = last
            moved = last
        }
        if subscribers.isEmpty { return (moved, true) }
        list = subscribers
        return (moved, false)
    }

    /// Removes `socket` from every topic it is in (its connection ended).
    func removeFromAll(_ socket: WebSocket) {
        // The socket's slots are taken out whole, then walked: walking a copy of their keys (each
        // removal changed the dictionary being walked) cost an allocation per connection.
        var slots: [String: Int] = [:]
        swap(&slots, &socket.topicSlots)
        for (topic, slot) in slots { vacate(slot, of: topic) }
    }

    /// Queues `message` on every subscriber of `topic` here but `excluding`; see
    /// ``WebSocket/deliverPublished(_:)``.
    func deliver(_ message: Connection.PreparedMessage, to topic: String, excluding: WebSocket?) {
        // A copy of the array (a reference, no element copied): nothing here changes the table
        // (a subscriber closed for being slow leaves it when its socket closes, at the end of the
        // turn), but the walk does not depend on that.
        guard let list = subscribers[topic] else { return }
        for socket in list where socket !== excluding { socket.deliverPublished(message) }
    }
}
