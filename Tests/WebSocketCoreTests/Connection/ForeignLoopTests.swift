// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// A loop of someone else's (SwiftNIO's, say) driving a `Connection` the way such loops do: input in
/// pieces of any size from buffers it owns (`receive(_: UnsafeRawBufferPointer)`), output into a
/// buffer of its own through `withPendingOutputPieces` with writes that take part of what is lent
/// or nothing (writability that comes and goes), the peer's half closure, and a clock that moves
/// only when the loop says: the time is reported when `nextDeadline` has come, never before an input.
struct ForeignLoop {
    var connection: Connection
    var generator: Connection.SeededGenerator
    /// What the loop has written to its transport and the peer has not read yet.
    var wire: [UInt8] = []
    var events: [Connection.Event] = []
    var wroteShutdown = false
    var reportedTimes: [Connection.Instant] = []

    init(_ connection: Connection, seed: UInt64) {
        self.connection = connection
        generator = Connection.SeededGenerator(seed: seed)
    }

    /// Feeds `bytes` in pieces of 1 to 700 bytes, each copied into a buffer of the loop's own, and
    /// pulls the events after each piece.
    mutating func read(_ bytes: [UInt8]) {
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...700, using: &generator))
            // A buffer the loop owns and reuses; the connection must not keep pointers into it.
            var owned = [UInt8](repeating: 0xEE, count: end - start + 16)
            owned.replaceSubrange(8..<(8 + end - start), with: bytes[start..<end])
            owned.withUnsafeBytes { raw in connection.receive(UnsafeRawBufferPointer(rebasing: raw[8..<(8 + end - start)])) }
            owned = [UInt8](repeating: 0xDD, count: owned.count)  // overwritten at once
            start = end
            while let event = connection.nextEvent() { events.append(event) }
        }
    }

    /// Writes what the connection has, in several rounds whose capacity is random (0 while the
    /// transport is not writable), into `wire`; then shuts down writing if the connection says so.
    mutating func write() {
        var rounds = 0
        while connection.pendingOutputCount > 0, rounds < 1_000 {
            rounds += 1
            let capacity = Bool.random(using: &generator) ? 0 : Int.random(in: 1...4_096, using: &generator)
            guard capacity > 0 else { continue }
            connection.withPendingOutputPieces(upTo: 4) { pieces in
                var taken = 0
                for piece in pieces where taken < capacity {
                    let count = min(piece.count, capacity - taken)
                    wire.append(contentsOf: piece.prefix(count))
                    taken += count
                }
                return taken
            }
        }
        if case .halfCloseAndDrain = connection.transportDirective, connection.pendingOutputCount == 0 { wroteShutdown = true }
    }

    /// The loop's timer: reports the time only when the connection's deadline has come.
    mutating func timerFires(at now: Connection.Instant) {
        guard let deadline = connection.nextDeadline, deadline <= now else { return }
        reportedTimes.append(now)
        connection.advanceTime(to: now)
        while let event = connection.nextEvent() { events.append(event) }
    }

    /// What the peer reads: everything written since the last call.
    mutating func takeWire() -> [UInt8] {
        defer { wire.removeAll(keepingCapacity: true) }
        return wire
    }
}

@Suite("A foreign loop: input in pieces from its own buffers, output into its own, writability that comes and goes, a clock that moves only when asked")
struct ForeignLoopTests {
    static func at(_ milliseconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .milliseconds(milliseconds)) }

    /// One message of a random kind and size (up to 70 KB), or a fragmented one.
    static func randomMessage(_ generator: inout Connection.SeededGenerator) -> (text: Bool, bytes: [UInt8]) {
        let size = Int.random(in: 0...(Bool.random(using: &generator) ? 200 : 70_000), using: &generator)
        if Bool.random(using: &generator) {
            let alphabet = Array("aé€😀 z".unicodeScalars)
            var text = ""
            while text.utf8.count < size { text.unicodeScalars.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
            return (true, Array(text.utf8))
        }
        return (false, (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A writes, B reads and writes, A reads.
    static func exchange(_ a: inout ForeignLoop, _ b: inout ForeignLoop) {
        a.write()
        b.read(a.takeWire())
        b.write()
        a.read(b.takeWire())
    }

    static func timersFire(_ a: inout ForeignLoop, _ b: inout ForeignLoop, at now: Int) {
        a.timerFires(at: Self.at(now))
        b.timerFires(at: Self.at(now))
    }

    static func send(_ message: (text: Bool, bytes: [UInt8]), on loop: inout ForeignLoop) throws {
        if message.text { try loop.connection.send(text: String(decoding: message.bytes, as: UTF8.self)) }
        else { try loop.connection.send(binary: message.bytes) }
    }

    @Test("Random messages both ways arrive whole and in order; the closing handshake ends clean on both sides", arguments: [1, 2, 3, 4])
    func roundTrips(seed: UInt64) throws {
        var configuration = Connection.Configuration()
        configuration.timeouts.keepaliveInterval = .seconds(20)
        configuration.timeouts.keepaliveTimeout = .seconds(5)
        configuration.fragmentationSize = seed % 2 == 0 ? 1_000 : nil
        let (client, server) = try openPair(client: configuration, server: configuration, seed: seed)
        var a = ForeignLoop(client, seed: seed &* 31)
        var b = ForeignLoop(server, seed: seed &* 37)
        var generator = Connection.SeededGenerator(seed: seed)
        var sentByA: [(Bool, [UInt8])] = [], sentByB: [(Bool, [UInt8])] = []
        var now = 0
        // The clock starts; opening started the keepalive, which asks for a report at once.
        a.timerFires(at: Self.at(now))
        b.timerFires(at: Self.at(now))
        for _ in 0..<60 {
            now += Int.random(in: 0...3_000, using: &generator)  // time passes, unreported
            let message = Self.randomMessage(&generator)
            let fromA = Bool.random(using: &generator)
            if fromA {
                try Self.send(message, on: &a)
                sentByA.append(message)
            } else {
                try Self.send(message, on: &b)
                sentByB.append(message)
            }
            if Int.random(in: 0..<5, using: &generator) == 0 { try a.connection.ping(Array("p\(now)".utf8)) }
            Self.exchange(&a, &b)
            a.write()
            b.read(a.takeWire())
            Self.timersFire(&a, &b, at: now)
            Self.exchange(&a, &b)
        }
        try a.connection.close()
        Self.exchange(&a, &b)
        Self.timersFire(&a, &b, at: now)

        func messages(_ events: [Connection.Event]) -> [(Bool, [UInt8])] {
            events.compactMap { event in
                switch event {
                case .text(let text): return (true, Array(text.utf8))
                case .binary(let bytes): return (false, bytes)
                default: return nil
                }
            }
        }
        let receivedByB = messages(b.events), receivedByA = messages(a.events)
        #expect(receivedByB.count == sentByA.count && receivedByA.count == sentByB.count)
        #expect(zip(receivedByB, sentByA).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 })
        #expect(zip(receivedByA, sentByB).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 })
        let closes = (a.events + b.events).compactMap { event -> Connection.CloseStatus? in
            if case .closed(let status) = event { return status }
            return nil
        }
        #expect(closes.count == 2 && closes.allSatisfy { $0.wasClean && $0.code == .normalClosure })
        // The server closes first and drains; the client waits for it (RFC 6455 §7.1.1).
        #expect(b.wroteShutdown)
        #expect(a.connection.transportDirective == .awaitPeerClose)
        // No keepalive ever failed, though time was reported only when asked.
        #expect(!(a.events + b.events).contains { if case .protocolViolation = $0 { true } else { false } })
    }

    @Test("A peer that never answers: each timeout runs its whole length from the time the loop reports after the call, however long since the last report")
    func timeoutsInFull() throws {
        var configuration = Connection.Configuration()
        configuration.timeouts.close = .seconds(3)
        configuration.timeouts.linger = .seconds(2)
        let (client, _) = try openPair(client: configuration, server: configuration)
        var a = ForeignLoop(client, seed: 9)
        a.timerFires(at: Self.at(0))
        #expect(a.connection.nextDeadline == nil)
        // A minute later, unreported, the application closes; the peer never answers.
        try a.connection.close()
        a.write()
        #expect(a.connection.nextDeadline == .zero)  // the loop is asked for the time at once (none reported yet)
        a.timerFires(at: Self.at(60_000))
        #expect(a.connection.state == .closing(initiatedBy: .local))
        a.timerFires(at: Self.at(62_999))
        #expect(a.connection.state == .closing(initiatedBy: .local))
        // Reported only when asked: at 0 no timer ran, and 62,999 was before the deadline.
        #expect(a.reportedTimes == [Self.at(60_000)])
        a.timerFires(at: Self.at(63_000))
        guard case .closed(let status) = a.connection.state else {
            Issue.record("not closed at the close timeout: \(a.connection.state)")
            return
        }
        #expect(status.failure == .closeTimeout)
    }
}
