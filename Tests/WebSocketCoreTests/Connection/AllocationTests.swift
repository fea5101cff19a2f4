// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
@_spi(Testing) @testable import WebSocketCore

/// Heap allocations on the receive path, counted by interposing malloc for the test's own thread.
@Suite("Allocations on the receive path",
       .enabled(if: allocation_counting_is_available() != 0,
                "allocation counting interposes glibc's malloc: Linux only, and off under sanitizers"))
struct AllocationTests {

    /// Wire bytes of `count` frames of `size` bytes from one side, cut into `readSize` reads.
    static func reads(count: Int, size: Int, fromClient: Bool, readSize: Int = 16 << 10) throws -> (Connection, [[UInt8]]) {
        var (client, server) = try openPair()
        let payload = [UInt8](repeating: 0x61, count: size)
        var wire: [UInt8] = []
        for _ in 0..<count {
            if fromClient { try client.send(binary: payload) } else { try server.send(binary: payload) }
            wire += fromClient ? client.takeOutput() : server.takeOutput()
        }
        let reads = stride(from: 0, to: wire.count, by: readSize).map { Array(wire[$0..<min(wire.count, $0 + readSize)]) }
        return (fromClient ? server : client, reads)
    }

    /// Allocations made by `receive` and `nextEventView` while feeding `reads` and lending every
    /// event (only around those calls, so that the test's own bookkeeping is not counted).
    static func allocationsWhileLending(_ connection: inout Connection, _ reads: [[UInt8]]) -> (allocations: UInt, events: Int) {
        var allocations: UInt = 0
        var events = 0
        for read in reads {
            var lentBytes = 0
            let before = allocation_count_for_current_thread()
            connection.receive(read)
            while connection.nextEventView({ view in
                if case .binary(let payload) = view { lentBytes &+= payload.count }
            }) {
                events &+= 1
            }
            allocations += allocation_count_for_current_thread() - before
            precondition(lentBytes >= 0)
        }
        return (allocations, events)
    }

    @Test("The counter works: an array allocation is seen")
    func counterSeesAllocations() throws {
        let before = allocation_count_for_current_thread()
        let array = [UInt8](repeating: 1, count: Int.random(in: 100...200))
        let after = allocation_count_for_current_thread()
        #expect(array.count >= 100)
        #expect(after - before >= 1)
    }

    @Test("Steady state: no allocation per message when lending, client and server, small and 1 KiB messages",
          arguments: [(16, false), (16, true), (1024, false), (1024, true), (60_000, true)])
    func noAllocationWhenLending(size: Int, fromClient: Bool) throws {
        var (connection, reads) = try Self.reads(count: max(2000, 400_000 / size), size: size, fromClient: fromClient)
        // Warm up on a copy, over every path the reads take: the runtime instantiates some type
        // metadata on first use, once per process.
        var copy = connection
        _ = Self.allocationsWhileLending(&copy, reads)
        // Then the first reads grow the buffers that the steady state reuses.
        let warm = reads.count / 4
        _ = Self.allocationsWhileLending(&connection, Array(reads[..<warm]))
        let (allocations, events) = Self.allocationsWhileLending(&connection, Array(reads[warm...]))
        #expect(events > 100)
        // Frames split across reads are copied into the input buffer, which can grow at most a few
        // times; nothing is allocated per message.
        #expect(allocations <= 4, "\(allocations) allocations for \(events) messages of \(size) bytes")
    }

    @Test("Steady state: no allocation per echo when reading in place (receiveAndAnswer(lending:_:)), the output taken into a reused array or written from the read buffer",
          arguments: [(16, false, false), (16, true, false), (1024, false, false), (1024, true, false),
                      (16, true, true), (1024, true, true)])
    func noAllocationEchoingInPlace(size: Int, fromClient: Bool, writingOutput: Bool) throws {
        var (connection, reads) = try Self.reads(count: 2000, size: size, fromClient: fromClient, readSize: 4096)
        var output: [UInt8] = []
        var echoed = 0
        func run(_ connection: inout Connection, _ reads: ArraySlice<[UInt8]>, counting: Bool) -> UInt {
            var allocations: UInt = 0
            for read in reads {
                var buffer = read   // the read buffer, lent (a copy made outside the count)
                buffer.withUnsafeMutableBytes { _ in }
                let before = allocation_count_for_current_thread()
                buffer.withUnsafeMutableBytes { bytes in
                    if writingOutput {
                        // (A server's echoes framed in `bytes`, their pieces counted as a writev takes them.)
                        try? connection.receiveAndAnswer(lending: bytes, writingOutput: { pieces in
                            var total = 0
                            for piece in pieces { total += piece.count }
                            return total
                        }) { view in
                            if case .binary = view, counting { echoed &+= 1 }
                            return .echo
                        }
                    } else {
                        try? connection.receiveAndAnswer(lending: bytes) { view in
                            if case .binary = view, counting { echoed &+= 1 }
                            return .echo
                        }
                    }
                }
                if !writingOutput { connection.takeOutput(into: &output) }
                allocations += allocation_count_for_current_thread() - before
            }
            return allocations
        }
        var copy = connection
        _ = run(&copy, reads[...], counting: false)   // the runtime's first-use metadata
        let warm = reads.count / 4
        _ = run(&connection, reads[..<warm], counting: false)
        let allocations = run(&connection, reads[warm...], counting: true)
        #expect(echoed > 1000)
        // Frames cut across reads are joined in the inbox, which grows at most a few times.
        #expect(allocations <= 4, "\(allocations) allocations for \(echoed) echoes of \(size) bytes")
    }

    @Test("nextEvent() allocates at most the message itself")
    func ownedEventsAllocateOnlyTheMessage() throws {
        var (connection, reads) = try Self.reads(count: 1000, size: 100, fromClient: true)
        var events = 0
        var allocations: UInt = 0
        for read in reads {
            let before = allocation_count_for_current_thread()
            connection.receive(read)
            while connection.nextEvent() != nil { events &+= 1 }
            allocations += allocation_count_for_current_thread() - before
        }
        #expect(events == 1000)
        #expect(allocations <= UInt(events) + 4)
    }

    /// Allocations made by `advanceTime(to:)` and `nextDeadline` alone, called `steps` times from
    /// `start`, 1 ms apart, expecting `deadline` after each call.
    static func timerAllocations(_ connection: inout Connection, from start: Connection.Instant, steps: Int,
                                 expecting deadline: Connection.Instant?) -> (allocations: UInt, mismatches: Int) {
        var allocations: UInt = 0
        var mismatches = 0
        for step in 0..<steps {
            let now = start + .milliseconds(step)
            let before = allocation_count_for_current_thread()
            connection.advanceTime(to: now)
            let next = connection.nextDeadline
            allocations += allocation_count_for_current_thread() - before
            if next != deadline { mismatches += 1 }
        }
        return (allocations, mismatches)
    }

    /// Moves `connection`'s pending output into `peer` and the peer's reply back, outside the count:
    /// the peer's work is not the timers'.
    static func exchange(_ connection: inout Connection, with peer: inout Connection, wire: inout [UInt8]) {
        wire.removeAll(keepingCapacity: true)
        connection.withPendingOutput { raw in
            wire.append(contentsOf: raw)
            return raw.count
        }
        peer.receive(wire)
        _ = drain(&peer)
        connection.receive(peer.takeOutput())
        _ = drain(&connection)
    }

    @Test("Timers: advanceTime(to:) and nextDeadline allocate nothing while open (keepalive ping and pong armed, pings firing), closing and closed",
          arguments: [true, false])
    func timersAllocateNothing(client isClient: Bool) throws {
        var config = Connection.Configuration()
        config.timeouts.keepaliveInterval = .seconds(30)
        config.timeouts.keepaliveTimeout = .seconds(10)
        config.timeouts.close = .seconds(5)
        config.timeouts.linger = .seconds(2)
        let (client, server) = try openPair(client: config, server: config)
        var connection = isClient ? client : server
        var peer = isClient ? server : client
        func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }
        var wire: [UInt8] = []
        var allocations: UInt = 0
        var mismatches = 0
        var pings = 0

        // Ping cycles: 10 s of steps with the ping timer armed, the step that sends the ping, 5 s
        // with the pong timer armed, then the pong. The first cycle warms up (type metadata on first
        // use, the output buffer's first growth) and is not counted.
        var now = at(0)
        connection.advanceTime(to: now)
        for cycle in 0..<21 {
            let ping = now + .seconds(30)
            var counted = Self.timerAllocations(&connection, from: now + .seconds(20), steps: 10_000, expecting: ping)
            let before = allocation_count_for_current_thread()
            connection.advanceTime(to: ping)
            let pongDeadline = connection.nextDeadline
            counted.allocations += allocation_count_for_current_thread() - before
            if pongDeadline != ping + .seconds(10) { counted.mismatches += 1 }
            if connection.pendingOutputCount > 0 { pings += 1 }
            let waiting = Self.timerAllocations(&connection, from: ping + .milliseconds(1), steps: 5_000,
                                                expecting: ping + .seconds(10))
            Self.exchange(&connection, with: &peer, wire: &wire)
            now = ping + .seconds(5)
            // The pong started the next ping's timer, which asks for the time at once (the last
            // step reported `now`).
            if connection.nextDeadline != now { counted.mismatches += 1 }
            connection.advanceTime(to: now)
            if connection.nextDeadline != now + .seconds(30) { counted.mismatches += 1 }
            if cycle > 0 {
                allocations += counted.allocations + waiting.allocations
                mismatches += counted.mismatches + waiting.mismatches
            }
        }
        #expect(pings == 21)
        #expect(connection.state == .open)

        // Closing: the close timer armed while the peer's Close is awaited.
        try connection.close()
        let closing = Self.timerAllocations(&connection, from: now, steps: 4_001, expecting: now + .seconds(5))
        #expect(connection.state == .closing(initiatedBy: .local))
        // Closed: a client awaits the server's TCP close (the close timer), a server drains until
        // the linger deadline; that deadline passing releases the transport without allocating.
        Self.exchange(&connection, with: &peer, wire: &wire)
        now = now + .seconds(4)
        let waitDeadline = now + (isClient ? .seconds(5) : .seconds(2))
        let closed = Self.timerAllocations(&connection, from: now, steps: 1_000, expecting: waitDeadline)
        let before = allocation_count_for_current_thread()
        connection.advanceTime(to: waitDeadline)
        let afterRelease = connection.nextDeadline
        let releasing = allocation_count_for_current_thread() - before
        #expect(connection.transportDirective == .close)
        #expect(afterRelease == nil)

        #expect(allocations == 0, "\(allocations) allocations in 20 ping cycles of 15,001 calls each")
        #expect(mismatches == 0)
        #expect(closing.allocations == 0 && closing.mismatches == 0)
        #expect(closed.allocations == 0 && closed.mismatches == 0)
        #expect(releasing == 0)
    }

    @Test("Timers with awaited pings: advanceTime(to:) and nextDeadline allocate nothing while pings wait, and nothing once none does",
          arguments: [true, false])
    func awaitedPingTimersAllocateNothing(client isClient: Bool) throws {
        let (client, server) = try openPair()
        var connection = isClient ? client : server
        var peer = isClient ? server : client
        func at(_ milliseconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .milliseconds(milliseconds)) }
        var wire: [UInt8] = []
        connection.advanceTime(to: at(0))
        _ = try connection.sendPing(awaitingPongWithin: .seconds(10))
        _ = try connection.sendPing(awaitingPongWithin: nil)
        // Their clocks start at the next report, asked for at once.
        #expect(connection.nextDeadline == at(0))
        connection.advanceTime(to: at(0))
        // Warm up on a copy (type metadata on first use), then count: two pings wait, one with a deadline.
        var copy = connection
        _ = Self.timerAllocations(&copy, from: at(1), steps: 100, expecting: at(10_000))
        let waiting = Self.timerAllocations(&connection, from: at(1), steps: 5_000, expecting: at(10_000))
        // Both answered (the pong of the second answers the first too), their outcomes taken.
        Self.exchange(&connection, with: &peer, wire: &wire)
        var outcomes = 0
        while let (_, outcome) = connection.nextPingOutcome() {
            if outcome.answered != nil { outcomes += 1 }
        }
        #expect(outcomes == 2)
        // No ping waits any more, and the arrays that held them keep their capacity.
        let none = Self.timerAllocations(&connection, from: at(5_001), steps: 5_000, expecting: nil)
        #expect(waiting.allocations == 0 && waiting.mismatches == 0)
        #expect(none.allocations == 0 && none.mismatches == 0)
    }
}

extension AllocationTests {
    /// Allocations while `connection` receives `wire` and gives out every event.
    static func allocationsReading(_ wire: [UInt8], into connection: inout Connection) -> (allocations: UInt, events: [Connection.Event]) {
        var events: [Connection.Event] = []
        events.reserveCapacity(8)
        let before = allocation_count_for_current_thread()
        connection.receive(wire)
        while let event = connection.nextEvent() { events.append(event) }
        return (allocation_count_for_current_thread() - before, events)
    }

    @Test("A control frame's payload is not copied to a new buffer: a pong costs one allocation (its event's payload), a Close none for its payload")
    func controlPayloads() throws {
        let key: [UInt8] = [1, 2, 3, 4]
        // Warmed on a copy first: type metadata is instantiated once per process.
        let (_, opened) = try openPair()
        for warm in [false, true] {
            var server = opened
            // A pong answers no ping: the event holds the payload, which is all it costs.
            let pong = Self.allocationsReading(frame(0xA, [7, 7, 7], key: key), into: &server)
            // The Close frame closes: its payload is parsed where it lies (the events, the status and
            // the reply may allocate; a second buffer for the payload must not).
            var closing = opened
            let closeOnly = Self.allocationsReading(frame(0x8, [0x03, 0xE8], key: key), into: &closing)
            var withReason = opened
            let closeWithReason = Self.allocationsReading(frame(0x8, [0x03, 0xE8] + Array("bye".utf8), key: key), into: &withReason)
            guard warm else { continue }
            #expect(pong.events == [.pong([7, 7, 7])])
            #expect(pong.allocations == 1, "\(pong.allocations) allocations for a pong")
            guard case .closed(let status)? = closeWithReason.events.last else {
                throw TestFailure("\(closeWithReason.events)")
            }
            #expect(status.reason == "bye")
            guard case .closed(let plain)? = closeOnly.events.last else { throw TestFailure("\(closeOnly.events)") }
            #expect(plain == Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))
            // A short reason lives inside its String: a reason costs only the status's own box,
            // which a clean close without one shares with every other (made once).
            #expect(closeWithReason.allocations == closeOnly.allocations + 1,
                    "\(closeWithReason.allocations) with a reason, \(closeOnly.allocations) without")
            // Four, with the payload's buffer and the reply, and no box for the status. The event
            // queue has room for the closing handshake's events from its first (growing it here
            // cost a fifth), and taking the payload out of its buffer cost a sixth (as it cost a
            // pong a second).
            #expect(closeOnly.allocations <= 4, "\(closeOnly.allocations) allocations for a Close frame")
        }
    }
}

extension AllocationTests {
    @Test("The statuses of nearly every close are made once: a clean close without a reason (1000, 1001, 1005) and each status the connection names itself take no allocation, and a change to one makes a box of its own")
    func sharedCloseStatuses() {
        let makers: [() -> Connection.CloseStatus] = [
            { Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true) },
            { Connection.CloseStatus(code: .goingAway, reason: "", wasClean: true) },
            { Connection.CloseStatus(code: .noStatusReceived, reason: "", wasClean: true) },
            { .lostWithoutClose }, { .aborted }, { .handshakeFailed }, { .handshakeRejected }, { .keepaliveTimedOut },
            { .closeTimedOut },
        ]
        var made: [Connection.CloseStatus] = makers.map { $0() }
        // Counted on the second pass: the first makes the shared ones, and the runtime's metadata.
        for pass in 0..<2 {
            for index in makers.indices {
                let before = allocation_count_for_current_thread()
                made[index] = makers[index]()
                let allocations = allocation_count_for_current_thread() - before
                if pass == 1 { #expect(allocations == 0, "\(allocations) allocations for \(made[index])") }
            }
        }
        #expect(made.map(\.code.rawValue) == [1000, 1001, 1005, 1006, 1006, 1006, 1006, 1006, 1006])
        #expect(made[0].wasClean && made[0].reason.isEmpty && made[0].failure == nil)
        #expect(made[3].failure == .unexpectedEndOfStream && made[3].reason == "connection closed without a close frame")
        #expect(made[4].failure == .aborted && made[5].failure == nil && made[6].reason == "opening handshake rejected")
        #expect(made[7].failure == .keepaliveTimeout && made[8].failure == .closeTimeout)
        // Any other code, a reason, an unclean end or a failure takes a box of its own.
        for (code, reason, clean) in [(4000, "", true), (1000, "bye", true), (1000, "", false)] {
            let start = allocation_count_for_current_thread()
            let status = Connection.CloseStatus(code: Connection.CloseCode(rawValue: UInt16(code)), reason: reason, wasClean: clean)
            #expect(allocation_count_for_current_thread() - start >= 1, "\(status)")
        }
        // A change to a shared status is its own; the shared one, and equality, stay as they were.
        var changed = Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)
        changed.reason = "changed"
        #expect(changed.reason == "changed" && changed.code == .normalClosure)
        #expect(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true).reason == "")
        #expect(changed != made[0])
        changed.reason = ""
        #expect(changed == made[0] && changed.hashValue == made[0].hashValue)
    }
}

extension AllocationTests {
    /// A library's request (wsload's, and most clients'): every value a small string or none.
    static let plainRequest = Array(("GET /chat HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    @Test("A request read whole takes no box for its parser and no string for its key; cut across reads, one box, made at the cut; asked for events before any byte, nothing")
    func requestHeadAllocations() throws {
        // An adapter asks for events before its first read: no parser is made for nothing.
        var early = try Connection(role: .server)
        #expect(early.nextEvent() == nil)
        #expect(early.headParser == nil && early.headParserBoxesMade == 0)
        early.receive(Self.plainRequest[..<10])
        #expect(early.nextEvent() == nil)
        #expect(early.headParser != nil && early.headParserBoxesMade == 1)
        for warm in [false, true] {
            var whole = try Connection(role: .server)
            let read = Self.allocationsReading(Self.plainRequest, into: &whole)
            // Cut in the key's line: the first read leaves the parser (and its line) for the next.
            var cut = try Connection(role: .server)
            let first = Self.allocationsReading(Array(Self.plainRequest[..<100]), into: &cut)
            #expect(cut.headParser != nil)
            let second = Self.allocationsReading(Array(Self.plainRequest[100...]), into: &cut)
            guard warm else { continue }
            guard case .handshakeRequest(let request)? = read.events.first else {
                throw TestFailure("\(read.events)")
            }
            #expect(request.key == "dGhlIHNhbXBsZSBub25jZQ==")
            #expect(request.clientKey.isValid, "the key is kept as a string")
            #expect(second.events == read.events)
            #expect(whole.headParser == nil && cut.headParser == nil)
            #expect(whole.headParserBoxesMade == 0)
            #expect(cut.headParserBoxesMade == 1)
            // What the box and the stored line cost shows in the count (a debug build's own
            // allocations are many, and the same for both).
            #expect(first.allocations + second.allocations > read.allocations,
                    "\(first.allocations) + \(second.allocations) for a cut request, \(read.allocations) whole")
        }
    }
}

@Suite("Memory held by an idle connection")
struct IdleMemoryTests {
    @Test("An idle open connection without deflate holds at most 4 KiB of buffers, in both roles")
    func idleFootprint() throws {
        var (client, server) = try openPair()
        for i in 0..<50 {
            try client.send(text: "message \(i)")
            try server.send(binary: [UInt8](repeating: UInt8(i), count: 100))
            _ = pump(&client, into: &server)
            _ = pump(&server, into: &client)
        }
        // The value itself (held in a class by an adapter) plus what its buffers hold.
        let value = MemoryLayout<Connection>.size
        #expect(value + client.bufferCapacity <= 4096, "client holds \(value) + \(client.bufferCapacity) bytes")
        #expect(value + server.bufferCapacity <= 4096, "server holds \(value) + \(server.bufferCapacity) bytes")
    }
}
