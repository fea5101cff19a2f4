// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// Part of `frame-server`: the same input read in place and answered, once with the replies framed
/// into the connection's output (`receiveAndAnswer(lending:_:)`, its output taken after each read) and
/// once with them framed in the read buffer and lent to a writer that takes only part of them
/// (`receiveAndAnswer(lending:writingOutput:_:)`, the rest taken after each read). The two must see
/// the same events and write the same bytes, in the same pieces of input; every read buffer is
/// overwritten when its call returns, so a reply or an event kept in it would show.
enum InPlaceDifferential {
    /// The reply to a lent message, decided by its bytes: an echo, a part as binary, or nothing. (No
    /// text part: a cut inside a character would throw, which the runs would then both do, but the
    /// point here is the output.)
    static func reply(_ view: Connection.EventView) -> Connection.LentReply {
        switch view {
        case .text(let bytes), .binary(let bytes):
            switch (bytes.first ?? 0) % 3 {
            case 0: return .echo
            case 1: return .binary(1..<(bytes.count / 2 + 1))
            default: return .none
            }
        case .other: return .none
        }
    }

    struct Outcome: Equatable {
        var events: [String] = []
        var output: [UInt8] = []
    }

    /// How many bytes the writer takes at the end of call number `call`: everything, or part.
    static func allowance(_ seed: Int, _ call: Int) -> Int {
        (seed &+ call) % 3 == 0 ? Int.max : (seed &* 31 &+ call &* 7) % 700
    }

    /// One run: each piece of `wire` lent to one call or more (a refused reply ends a call; the next,
    /// with nothing more to read, goes on with what was kept), and after each call a writer takes
    /// ``allowance(_:_:)`` bytes of the output: from the pieces the call lends it (`inPlace`), or
    /// from the connection's output after it. The output's remainder is taken after each piece. So
    /// both runs take the same number of bytes at the same moments, and the output limit trips alike.
    static func run(_ connection: Connection, _ wire: [UInt8], cuts: [Int], inPlace: Bool, seed: Int) -> Outcome {
        var connection = connection
        var outcome = Outcome()
        var start = 0
        var calls = 0
        let seen: (Connection.EventView) -> Connection.LentReply = { view in
            switch view {
            case .text(let text): outcome.events.append("text \(text.count)")
            case .binary(let data): outcome.events.append("binary \(data.count)")
            case .other(let event): outcome.events.append("\(event)")
            }
            return reply(view)
        }
        for end in cuts + [wire.count] {
            var buffer = Array(wire[start..<end])
            start = end
            buffer.withUnsafeMutableBytes { bytes in
                var lent = bytes
                for _ in 0..<1_000 {
                    calls += 1
                    var left = allowance(seed, calls)
                    let writer: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int = { pieces in
                        takePieces(pieces, left: &left, into: &outcome.output)
                    }
                    var threw = false
                    do throws(Connection.UsageError) {
                        if inPlace {
                            try connection.receiveAndAnswer(lending: lent, writingOutput: writer, seen)
                        } else {
                            try connection.receiveAndAnswer(lending: lent, seen)
                        }
                    } catch {
                        outcome.events.append("threw \(error)")
                        threw = true
                    }
                    if !inPlace { take(left, of: &connection, into: &outcome) }
                    if !threw { break }
                    lent = UnsafeMutableRawBufferPointer(rebasing: bytes[bytes.count...])
                }
                bytes.initializeMemory(as: UInt8.self, repeating: 0xC5)
            }
            outcome.output += connection.takeOutput()
            MemoryBounds.check(connection, who: "server reading in place")
        }
        return outcome
    }

    /// The reply sent as a send between two pulls, as ``Connection/answerNextEvent(_:)`` sends it.
    static func send(_ reply: Connection.LentReply, of view: Connection.EventView, on connection: inout Connection)
        throws(Connection.UsageError) {
        switch (view, reply) {
        case (.text(let bytes), .echo): try connection.send(textUTF8: bytes)
        case (.binary(let bytes), .echo): try connection.send(binary: bytes)
        case (.text(let bytes), .binary(let range)), (.binary(let bytes), .binary(let range)):
            let part = range.clamped(to: 0..<bytes.count)
            try connection.send(binary: UnsafeRawBufferPointer(rebasing: bytes[part]))
        default: break
        }
    }

    /// How the third run pulls.
    enum Pull: CaseIterable, CustomStringConvertible {
        /// `nextEvent(readingInPlace:from:)` alone.
        case general
        /// `nextWholeMessage(readingInPlace:from:)` first, as the event loop does, and the general
        /// pull only when it gives nothing.
        case wholeFirst
        /// As `wholeFirst`, with `nextWholeMessage(readingInPlace:from:binaryInto:)`: into one array
        /// reused from message to message, as the loop handler's face does.
        case wholeIntoArray

        var description: String {
            switch self {
            case .general: "the general pull alone"
            case .wholeFirst: "whole messages first"
            case .wholeIntoArray: "whole messages first, into an array"
            }
        }
    }

    /// The third run: each piece read in place by pulling (as `pull` says) and the replies sent
    /// between pulls. A refused reply ends what the other runs count as a call, and the writer takes
    /// its allowance there, as after theirs.
    static func runPulled(_ connection: Connection, _ wire: [UInt8], cuts: [Int], seed: Int, pull: Pull) -> Outcome {
        var connection = connection
        var outcome = Outcome()
        var start = 0
        var calls = 0
        var spare: [UInt8] = []
        for end in cuts + [wire.count] {
            var buffer = Array(wire[start..<end])
            start = end
            calls += 1
            buffer.withUnsafeMutableBytes { bytes in
                var offset = 0
                while true {
                    let pulled: Connection.EventView
                    if pull == .wholeIntoArray,
                       let (kind, text) = connection.nextWholeMessage(readingInPlace: bytes, from: &offset, binaryInto: &spare) {
                        // The array, as a message the connection owns: answered from its bytes.
                        pulled = kind == .text ? .text(text) : .other(.binary(spare))
                    } else if pull == .wholeFirst,
                              let (kind, payload) = connection.nextWholeMessage(readingInPlace: bytes, from: &offset) {
                        pulled = kind == .text ? .text(payload) : .binary(payload)
                    } else if let view = connection.nextEvent(readingInPlace: bytes, from: &offset) {
                        pulled = view
                    } else {
                        break
                    }
                    // A message not read in place (cut across reads) comes owned; the other runs
                    // lend it from the connection: answered from its bytes all the same.
                    var owned: [UInt8] = []
                    var ownedKind: Connection.MessageKind? = nil
                    switch pulled {
                    case .other(.text(let text)): (owned, ownedKind) = (Array(text.utf8), .text)
                    case .other(.binary(let data)): (owned, ownedKind) = (data, .binary)
                    default: break
                    }
                    owned.withUnsafeBytes { ownedBytes in
                        let view: Connection.EventView = switch ownedKind {
                        case .text?: .text(ownedBytes)
                        case .binary?: .binary(ownedBytes)
                        case nil: pulled
                        }
                        switch view {
                        case .text(let text): outcome.events.append("text \(text.count)")
                        case .binary(let data): outcome.events.append("binary \(data.count)")
                        case .other(let event): outcome.events.append("\(event)")
                        }
                        do throws(Connection.UsageError) {
                            try send(reply(view), of: view, on: &connection)
                        } catch {
                            outcome.events.append("threw \(error)")
                            take(allowance(seed, calls), of: &connection, into: &outcome)
                            calls += 1
                        }
                    }
                }
                bytes.initializeMemory(as: UInt8.self, repeating: 0xC5)
            }
            take(allowance(seed, calls), of: &connection, into: &outcome)
            outcome.output += connection.takeOutput()
            MemoryBounds.check(connection, who: "server pulling in place")
        }
        return outcome
    }

    /// What a writer with `left` bytes of allowance takes of `pieces`, in order, into `output`.
    static func takePieces(_ pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>, left: inout Int, into output: inout [UInt8]) -> Int {
        var taken = 0
        for piece in pieces where left > 0 {
            let n = min(left, piece.count)
            output += UnsafeRawBufferPointer(rebasing: piece[..<n])
            left -= n
            taken += n
        }
        return taken
    }

    /// A writer's turn: up to `allowance` bytes of the pending output.
    static func take(_ allowance: Int, of connection: inout Connection, into outcome: inout Outcome) {
        var left = allowance
        while left > 0, connection.pendingOutputCount > 0 {
            let before = connection.pendingOutputCount
            connection.withPendingOutputPieces(upTo: 32) { pieces in takePieces(pieces, left: &left, into: &outcome.output) }
            if connection.pendingOutputCount == before { break }
        }
    }

    /// Runs all three ways and requires the same outcome.
    static func check(_ connection: Connection, _ wire: [UInt8], cut: Int, writerSeed: Int) {
        let cuts = cut > 0 && cut < wire.count ? [cut] : []
        let framed = run(connection, wire, cuts: cuts, inPlace: false, seed: writerSeed)
        // Pulled each way: all as framed.
        for pull in Pull.allCases {
            let pulled = runPulled(connection, wire, cuts: cuts, seed: writerSeed, pull: pull)
            guard framed == pulled else {
                let first = framed.events.indices.first { $0 >= pulled.events.count || framed.events[$0] != pulled.events[$0] } ?? framed.events.count
                fuzzFailure("""
                    pulled in place (\(pull)): outcome differs from event \(first) on (cut at \(cut) of \(wire.count)), output \(framed.output.count) vs \(pulled.output.count) bytes:
                      framed: \(framed.events[min(first, framed.events.count)...].prefix(4)) (\(framed.events.count) events)
                      pulled: \(pulled.events[min(first, pulled.events.count)...].prefix(4)) (\(pulled.events.count) events)
                    """)
            }
        }
        let inPlace = run(connection, wire, cuts: cuts, inPlace: true, seed: writerSeed)
        guard framed.events == inPlace.events else {
            let first = framed.events.indices.first { $0 >= inPlace.events.count || framed.events[$0] != inPlace.events[$0] } ?? framed.events.count
            fuzzFailure("""
                in place: events differ from event \(first) on (cut at \(cut) of \(wire.count)):
                  framed:   \(framed.events[min(first, framed.events.count)...].prefix(4)) (\(framed.events.count) events)
                  in place: \(inPlace.events[min(first, inPlace.events.count)...].prefix(4)) (\(inPlace.events.count) events)
                """)
        }
        guard framed.output == inPlace.output else {
            fuzzFailure("in place: output differs (\(framed.output.count) vs \(inPlace.output.count) bytes, cut at \(cut))")
        }
    }
}
