// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The topics one connection is subscribed to, as a set: kept without storage of its own or any
/// hashing while there is at most one, which is what most connections have.
///
/// A `Set<String>` allocates its storage for the first element and hashes the topic for every
/// insertion and lookup: about 1,500 instructions of every connection that subscribed once and
/// closed (`CALLGRIND_WORKLOAD=handshakes`, loop-handler). One topic is held inline and compared
/// (two small strings compare by their two words); a second moves both into a set.
///
/// Invariant: `.one` holds exactly one topic; `.many` holds any number (it stays a set when
/// unsubscribing leaves one or none, as a connection with several is likely to take more again).
struct TopicSet: Sendable {
    private enum Storage: Sendable {
        case empty
        case one(String)
        case many(Set<String>)
    }

    private var storage: Storage = .empty

    init() {}

    /// The topics in it.
    var count: Int {
        switch storage {
        case .empty: return 0
        case .one: return 1
        case .many(let topics): return topics.count
        }
    }

    var isEmpty: Bool { count == 0 }

    func contains(_ topic: String) -> Bool {
        switch storage {
        case .empty: return false
        case .one(let held): return held == topic
        case .many(let topics): return topics.contains(topic)
        }
    }

    /// Adds `topic`; whether it was not there already.
    mutating func insert(_ topic: String) -> Bool {
        switch storage {
        case .empty:
            storage = .one(topic)
            return true
        case .one(let held):
            guard held != topic else { return false }
            storage = .many([held, topic])
            return true
        case .many(var topics):
            // Taken out of the enum first, so that the set is unique and grows in place.
            storage = .empty
            defer { storage = .many(topics) }
            return topics.insert(topic).inserted
        }
    }

    /// Removes `topic`; whether it was there.
    mutating func remove(_ topic: String) -> Bool {
        switch storage {
        case .empty:
            return false
        case .one(let held):
            guard held == topic else { return false }
            storage = .empty
            return true
        case .many(var topics):
            storage = .empty
            defer { storage = .many(topics) }
            return topics.remove(topic) != nil
        }
    }

    mutating func removeAll() { storage = .empty }

    /// The same topics as a `Set`.
    var set: Set<String> {
        switch storage {
        case .empty: return []
        case .one(let held): return [held]
        case .many(let topics): return topics
        }
    }
}
