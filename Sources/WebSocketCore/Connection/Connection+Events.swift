// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Pulling events: each pull steps the phase's reader (frames when open, the HTTP head otherwise)
// until it yields an event or needs input. Input is parsed here, not in `receive`, so that a caller
// that stops pulling stops the work.

extension Connection {
    /// The next event, parsing buffered input as needed; `nil` when more input (or a handshake
    /// decision) is needed first.
    public mutating func nextEvent() -> Connection.Event? {
        while true {
            if let event = dequeueEvent() { return event }
            switch step() {
            case .event(let event): return event
            case .lent(let kind, let payload): return ownedEvent(kind, payload)
            case .progress: continue
            case .needInput:
                if let event = dequeueEvent() { return event }
                return nil
            }
        }
    }

    enum Step {
        case event(Connection.Event)
        /// (``nextEventView(_:)``) A whole message whose payload stays where it is, lent to the caller.
        case lent(Connection.MessageKind, LentPayload)
        /// Something changed (queued events, a new phase); step again.
        case progress
        case needInput
    }

    mutating func step() -> Step {
        // The frame-reading phases first, by the phase's case alone: no payload is bound, so none is
        // copied on the hot path.
        switch phase {
        case .open, .closingLocally:
            return stepFrames()
        case .clientAwaitingResponse, .clientReadingRejection, .serverAwaitingRequest, .serverAwaitingDecision,
             .closingRemotely, .closed:
            return stepHandshake()
        }
    }

    mutating func enqueue(_ event: Connection.Event) {
        // Room for a closing handshake's two events (`closeReceived`, `closed`) from the first: the
        // queue, emptied as it is read, keeps its storage, and grown one event at a time it was
        // allocated again at the close.
        if events.capacity == 0 { events.reserveCapacity(Self.eventsCapacity) }
        events.append(event)
    }

    /// The events a connection's queue has room for from its first (it grows past them when it must).
    /// Two, not more: room for four moved where glibc put the 1 KiB arrays of the serialize
    /// benchmarks, whose `malloc` then took a slower path (+120 instructions per frame, all of them
    /// inside `_int_malloc`).
    static var eventsCapacity: Int { 2 }

    mutating func dequeueEvent() -> Connection.Event? {
        guard eventsStart < events.count else { return nil }
        return events.dequeue(advancing: &eventsStart)
    }
}
