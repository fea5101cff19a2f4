// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// (Client) Sessions kept for resumption, set as ``TLSConfiguration/sessionCache``: a client
/// session whose server gave it a ticket is stored here, and the next client session of the same
/// ``TLSContext`` for the same server name and port offers it, for a shorter handshake
/// (``TLSSession/isResumed``).
///
/// ```swift
/// var configuration = TLSConfiguration.client()
/// configuration.sessionCache = TLSSessionCache(capacity: 100)
/// let context = try TLSContext(configuration)
/// ```
///
/// - **Bounded**: at most ``capacity`` sessions; storing one more drops the one used least
///   recently.
/// - **Kept apart**: a session is offered only to the name and port it was made for, and only by the
///   context that made it. Another context (another configuration, or the same configuration
///   loaded again, or a context after ``TLSContext/reload(_:)``) never resumes it, so a session
///   verified under one set of trust roots, pins or trust evaluator is never resumed under another
///   (a resumption verifies no certificate). A session whose certificate a trust evaluator accepted
///   by overriding a failed verification is never stored.
/// - **Single use** in TLS 1.3 (RFC 8446 §C.4: a ticket reused lets the network link the
///   connections): a session is taken out when offered, and the connection that resumes it stores
///   its own new one. A TLS 1.2 session stays until replaced.
/// - **Thread-safe**: any number of contexts and sessions use one cache at once.
///
/// Equality is identity: a cache equals itself only.
public final class TLSSessionCache: Sendable, Hashable {
    /// Where a session may be resumed: the context that made it, the name, the port.
    struct Key: Hashable, Sendable {
        var context: UInt64
        var serverName: String
        var port: UInt16?
    }

    private struct Entry: Sendable {
        var session: CachedSession
        var lastUse: UInt64
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    /// The most sessions kept.
    public let capacity: Int
    private let state = Locked(State())

    /// An empty cache of at most `capacity` sessions (0 keeps none).
    public init(capacity: Int = 256) {
        self.capacity = max(0, capacity)
    }

    /// The number of sessions kept now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every session: the next connections make full handshakes.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    /// Keeps `session` for `key`, replacing the one there, and dropping the least recently used
    /// when the cache is full.
    func store(_ session: CachedSession, for key: Key) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.clock += 1
            if state.entries[key] == nil, state.entries.count >= capacity,
               let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.entries[oldest] = nil
            }
            state.entries[key] = Entry(session: session, lastUse: state.clock)
        }
    }

    /// The session kept for `key`, taken out when it may be used once only.
    func take(for key: Key) -> CachedSession? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            if entry.session.isSingleUse {
                state.entries[key] = nil
            } else {
                state.clock += 1
                entry.lastUse = state.clock
                state.entries[key] = entry
            }
            return entry.session
        }
    }

    /// Whether `lhs` and `rhs` are the same cache.
    public static func == (lhs: TLSSessionCache, rhs: TLSSessionCache) -> Bool { lhs === rhs }

    /// Hashes the cache's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
