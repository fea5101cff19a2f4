// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// One topic's subscribers on one loop, in no particular order (a removal moves the last one into
/// the gap). Each subscriber holds its list and its index there (``WebSocket/topicSlots``), so that
/// leaving costs no lookup of the topic. Invariant: `sockets[i].topicSlots` holds exactly one entry
/// for this list, with index `i`; a list is in its table exactly while it has a subscriber.
final class TopicSubscribers {
    let topic: String
    @exclusivity(unchecked) fileprivate(set) var sockets: [WebSocket] = []

    fileprivate init(_ topic: String) { self.topic = topic }
}

/// Where a socket is in one topic's list.
struct TopicSlot {
    let list: TopicSubscribers
    var index: Int
}

/// The lists one socket is in, with its place in each, in no particular order: the first held
/// inline, the others in an array, so that a socket in one topic (most of them) allocates nothing
/// for it (an array of one slot was an allocation and a free per connection).
///
/// Invariant: `rest` is empty while `first` is `nil`.
struct TopicSlots {
    private var first: TopicSlot?
    private var rest: [TopicSlot] = []

    var isEmpty: Bool { first == nil }

    mutating func append(_ slot: TopicSlot) {
        if first == nil { first = slot } else { rest.append(slot) }
    }

    /// The slot for `list`, if the socket is in it.
    func slot(for list: TopicSubscribers) -> TopicSlot? {
        if let first, first.list === list { return first }
        return rest.first { $0.list === list }
    }

    /// Takes out the first slot that `matches`, if any.
    mutating func remove(where matches: (TopicSlot) -> Bool) -> TopicSlot? {
        guard let held = first else { return nil }
        if matches(held) {
            first = rest.popLast()
            return held
        }
        guard let position = rest.firstIndex(where: matches) else { return nil }
        rest.swapAt(position, rest.count - 1)
        return rest.removeLast()
    }

    /// Records that the socket's place in `list` is now `index`.
    mutating func move(in list: TopicSubscribers, to index: Int) {
        if first?.list === list {
            first?.index = index
        } else if let position = rest.firstIndex(where: { $0.list === list }) {
            rest[position].index = index
        }
    }

    /// Every slot, in no particular order.
    var all: [TopicSlot] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// Calls `body` with every slot.
    func forEach(_ body: (TopicSlot) -> Void) {
        guard let first else { return }
        body(first)
        for slot in rest { body(slot) }
    }
}

/// One loop's subscribers, by topic: the sockets of one server on one loop, and only those.
///
/// Every access happens on that loop's thread (a socket's subscription changes there, a publish is
/// delivered there), so delivery walks a plain array with no lock, and a publish from elsewhere
/// hops to each loop once, not once per subscriber.
///
/// A subscription hashes its topic once here, to find the topic's list; the socket keeps the list
/// itself, so leaving a topic or closing hashes nothing. (Keyed by topic on both sides, a connection
/// that subscribed once and closed hashed its topic about eight times, 2,400 instructions.) A
/// socket's entry for a list is found by walking its slots, by identity (by topic for an
/// unsubscribe): a walk of one socket's subscriptions, at most
/// ``WebSocketTransport/TransportOptions/maxSubscriptions`` (256 by default), per subscribe, leave,
/// or subscriber moved into a gap.
///
/// `@unchecked Sendable`: shared by the server's threads only to be handed to its loop.
final class TopicTable: @unchecked Sendable {
    /// The subscribers of each topic with at least one here.
    @exclusivity(unchecked) private var lists: [String: TopicSubscribers] = [:]
    /// Told when a topic gets its first subscriber here, or loses its last.
    private let presence: TopicPresence

    init(presence: TopicPresence) {
        self.presence = presence
    }

    /// Topics with at least one subscriber on this loop.
    var topicCount: Int { lists.count }

    /// The number of subscribers of `topic` on this loop.
    func subscriberCount(of topic: String) -> Int { lists[topic]?.sockets.count ?? 0 }

    /// Whether the lists and their subscribers' slots agree (``TopicSubscribers``' invariant), every
    /// list non-empty and filed under its topic: for tests.
    var isConsistent: Bool {
        lists.allSatisfy { topic, list in
            list.topic == topic && !list.sockets.isEmpty && list.sockets.indices.allSatisfy { index in
                list.sockets[index].topicSlots.all.filter { $0.list === list }.map(\.index) == [index]
            }
        }
    }

    /// Adds `socket` to `topic`'s subscribers, unless it is one already. (A topic's first
    /// subscriber on this loop, here, and its last one leaving, in ``remove(_:from:)``, are where a
    /// backplane would learn which topics to subscribe to on its bus.)
    func add(_ socket: WebSocket, to topic: String) {
        if let list = lists[topic] {
            guard socket.topicSlots.slot(for: list) == nil else { return }
            join(socket, list)
        } else {
            let list = TopicSubscribers(topic)
            lists[topic] = list
            join(socket, list)
            presence.appeared(topic)
        }
    }

    private func join(_ socket: WebSocket, _ list: TopicSubscribers) {
        socket.topicSlots.append(TopicSlot(list: list, index: list.sockets.count))
        list.sockets.append(socket)
    }

    /// Removes `socket` from `topic`'s subscribers, if it is one; a topic left without any is
    /// forgotten.
    func remove(_ socket: WebSocket, from topic: String) {
        guard let slot = socket.topicSlots.remove(where: { $0.list.topic == topic }) else { return }
        vacate(slot)
    }

    /// Empties `slot`, whose socket no longer lists it: the list's last subscriber takes its place,
    /// and a list left without any is forgotten.
    private func vacate(_ slot: TopicSlot) {
        let list = slot.list
        let last = list.sockets.removeLast()
        if slot.index < list.sockets.count {
            list.sockets[slot.index] = last
            // The moved socket's entry for this list now points at the gap it filled.
            last.topicSlots.move(in: list, to: slot.index)
        }
        if list.sockets.isEmpty {
            lists[list.topic] = nil
            presence.vanished(list.topic)
        }
    }

    /// Removes `socket` from every topic it is in (its connection ended).
    func removeFromAll(_ socket: WebSocket) {
        // Taken out whole, then walked: each vacancy may change another socket's slots, never these.
        var slots = TopicSlots()
        swap(&slots, &socket.topicSlots)
        slots.forEach { vacate($0) }
    }

    /// Queues `message` on every subscriber of `topic` here but `excluding`; see
    /// ``WebSocket/deliverPublished(_:)``.
    func deliver(_ message: Connection.PreparedMessage, to topic: String, excluding: WebSocket?) {
        // A copy of the array (a reference, no element copied): nothing here changes the table
        // (a subscriber closed for being slow leaves it when its socket closes, at the end of the
        // turn), but the walk does not depend on that.
        guard let list = lists[topic]?.sockets else { return }
        for socket in list where socket !== excluding { socket.deliverPublished(message) }
    }
}
