// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

/// Which topics have subscribers on any of one server's loops, and the backplane attached to the
/// server, told when a topic gets its first subscriber here or loses its last.
///
/// Each loop's ``TopicTable`` reports only its own transitions (a topic's first subscriber on that
/// loop, its last), so the lock here is taken when a topic comes or goes on a loop, never per
/// message delivered. A publish reads the backplane under it once, not once per subscriber.
///
/// Invariant: `loops[topic]` is the number of the server's loops with at least one subscriber of
/// `topic`, and absent at 0; the backplane (once attached) has been told `subscribe` for exactly
/// the topics present, in the order they came and went.
final class TopicPresence: Sendable {
    private struct State {
        var loops: [String: Int] = [:]
        var backplane: (any TopicBackplane)? = nil
    }
    private let state = Locked(State())

    /// `topic` got its first subscriber on one of the loops.
    func appeared(_ topic: String) {
        state.withLock { state in
            state.loops[topic, default: 0] += 1
            if state.loops[topic] == 1 { state.backplane?.subscribe(topic) }
        }
    }

    /// `topic` lost its last subscriber on one of the loops.
    func vanished(_ topic: String) {
        state.withLock { state in
            guard let count = state.loops[topic] else { return }
            if count > 1 {
                state.loops[topic] = count - 1
            } else {
                state.loops[topic] = nil
                state.backplane?.unsubscribe(topic)
            }
        }
    }

    /// The backplane attached, if any.
    var backplane: (any TopicBackplane)? { state.withLock { $0.backplane } }

    /// Attaches `backplane` unless one is: starts it with `deliver`, then subscribes it to every
    /// topic present. Under the lock, so that no appearance or departure slips in between.
    func attach(_ backplane: any TopicBackplane, delivering deliver: @escaping @Sendable (BackplaneMessage) -> Void) -> Bool {
        state.withLock { state in
            guard state.backplane == nil else { return false }
            backplane.start(delivering: deliver)
            state.backplane = backplane
            for topic in state.loops.keys.sorted() { backplane.subscribe(topic) }
            return true
        }
    }

    /// Detaches the backplane, if any, and returns it (to be stopped outside the lock).
    func detach() -> (any TopicBackplane)? {
        state.withLock { state in
            defer { state.backplane = nil }
            return state.backplane
        }
    }
}
