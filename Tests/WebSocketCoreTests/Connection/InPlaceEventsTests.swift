// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore

@Suite("nextEvent(readingInPlace:from:): input read in place, pulled one event at a time")
struct InPlaceEventsTests {
    /// How ``runPulled(_:chunks:echo:pull:configuration:)`` pulls.
    enum Pull: CaseIterable, CustomStringConvertible {
        /// ``Connection/nextEvent(readingInPlace:from:)`` alone.
        case general
        /// The whole-message pull first, lending.
        case whole
        /// The whole-message pull first, binary messages unmasked into an array.
        case wholeIntoArray

        var description: String {
            switch self {
            case .general: "general"
            case .whole: "whole"
            case .wholeIntoArray: "whole into an array"
            }
        }
    }

    /// Feeds `input` to a server in `chunks`, each read in place from a fresh buffer that is
    /// overwritten once pulled to the end; accepts a handshake request as soon as it is pulled, and
    /// (with `echo`) answers every message between two pulls with the same message, sent from the view.
    /// With `pull` `.whole`, each pull tries ``Connection/nextWholeMessage(readingInPlace:from:)`` first
    /// (as the adapters do), and the general pull only when it gives nothing; with `.wholeIntoArray`,
    /// ``Connection/nextWholeMessage(readingInPlace:from:binaryInto:)`` first, into one array reused
    /// from message to message (as the loop handler's face does).
    static func runPulled(_ input: [UInt8], chunks: [Int], echo: Bool = false, pull: Pull = .general,
                          configuration: Connection.Configuration = Connection.Configuration())
        throws -> (events: [Connection.Event], output: [UInt8])
    {
        var server = try Connection(role: .server, configuration: configuration)
        var events: [Connection.Event] = []
        var output: [UInt8] = []
        var spare: [UInt8] = []
        for piece in PropertyTests.pieces(of: input, chunks: chunks) {
            var buffer = Array(piece)
            try buffer.withUnsafeMutableBytes { bytes in
                var offset = 0
                while true {
                    let view: Connection.EventView
                    if pull == .wholeIntoArray,
                       let (kind, text) = server.nextWholeMessage(readingInPlace: bytes, from: &offset, binaryInto: &spare) {
                        if kind == .binary {
                            events.append(.binary(spare))
                            if echo { try? server.send(binary: spare) }
                            continue
                        }
                        view = .text(text)
                    } else if pull == .whole, let (kind, payload) = server.nextWholeMessage(readingInPlace: bytes, from: &offset) {
                        view = kind == .text ? .text(payload) : .binary(payload)
                    } else if let next = server.nextEvent(readingInPlace: bytes, from: &offset) {
                        view = next
                    } else {
                        break
                    }
                    let event = LentInputTests.owned(view)
                    events.append(event)
                    if case .handshakeRequest = event { try server.accept() }
                    if echo {
                        switch view {
                        case .text(let payload): try? server.send(text: String(decoding: payload, as: UTF8.self))
                        case .binary(let payload): try? server.send(binary: payload)
                        case .other(.text(let text)): try? server.send(text: text)
                        case .other(.binary(let payload)): try? server.send(binary: payload)
                        case .other: break
                        }
                    }
                }
                #expect(offset == bytes.count)
                bytes.initializeMemory(as: UInt8.self, repeating: 0xEE)
            }
            output += server.takeOutput()
        }
        server.receiveEOF()
        events += drain(&server)
        return (events, output + server.takeOutput())
    }

    /// The reference: input copied in, events pulled with `nextEvent()`, echoed the same way.
    static func runCopied(_ input: [UInt8], chunks: [Int], configuration: Connection.Configuration = Connection.Configuration())
        throws -> (events: [Connection.Event], output: [UInt8])
    {
        var server = try Connection(role: .server, configuration: configuration)
        var events: [Connection.Event] = []
        var output: [UInt8] = []
        for piece in PropertyTests.pieces(of: input, chunks: chunks) {
            server.receive(piece)
            while let event = server.nextEvent() {
                events.append(event)
                switch event {
                case .handshakeRequest: try server.accept()
                case .text(let text): try? server.send(text: text)
                case .binary(let payload): try? server.send(binary: payload)
                default: break
                }
            }
            output += server.takeOutput()
        }
        server.receiveEOF()
        events += drain(&server)
        return (events, output + server.takeOutput())
    }

    @Test("Any split, messages or fragments delivery: the same events and output as input copied in", arguments: [51, 52, 53] as [UInt64])
    func sameAsCopied(seed: UInt64) throws {
        for pull in Pull.allCases {
            try LentInputTests.expectSameAsCopied(seed: seed) { input, chunks, configuration in
                try Self.runPulled(input, chunks: chunks, pull: pull, configuration: configuration)
            }
        }
    }

    @Test("Echoes sent between pulls go out in order, before what is read after them, as with nextEvent()", arguments: [61, 62] as [UInt64])
    func echoesBetweenPulls(seed: UInt64) throws {
        let input = try PropertyTests.recordedClientInput(seed: seed, maxBytes: 40_000)
        var rng = Connection.SeededGenerator(seed: seed)
        var splits: [[Int]] = [[input.count], [1], [3, 5000]]
        splits += (0..<3).map { _ in (0..<40).map { _ in Int.random(in: 1...9000, using: &rng) } }
        for chunks in splits {
            let reference = try Self.runCopied(input, chunks: chunks)
            for pull in Pull.allCases {
                let pulled = try Self.runPulled(input, chunks: chunks, echo: true, pull: pull)
                #expect(pulled.events == reference.events, "seed \(seed), chunks \(chunks.prefix(3)), pull \(pull)")
                #expect(pulled.output == reference.output, "seed \(seed), chunks \(chunks.prefix(3)), pull \(pull)")
                #expect(pulled.output.count > input.count / 2)
            }
        }
    }

    @Test("Hostile input: the same close code and output as input copied in, however it is split", arguments: [71, 72] as [UInt64])
    func hostileSameAsCopied(seed: UInt64) throws {
        var rng = Connection.SeededGenerator(seed: seed)
        let valid = try PropertyTests.recordedClientInput(seed: seed, maxBytes: 2000)
        let tails: [[UInt8]] = [
            (0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) },
            frame(0x2, [1, 2, 3]),
            clientFrame(0x1, [0xC3, 0x28]),
            clientFrame(0x2, [4, 5]) + clientFrame(0x8, [0x03, 0xE8]) + clientFrame(0x2, [6]),
        ]
        let cut = valid.count / 2
        for tail in tails {
            let input = Array(valid[..<cut]) + tail
            for chunks in [[input.count], [1], [5, 11, 200]] {
                let reference = try Self.runCopied(input, chunks: chunks)
                for pull in Pull.allCases {
                    let pulled = try Self.runPulled(input, chunks: chunks, echo: true, pull: pull)
                    #expect(pulled.events == reference.events, "chunks \(chunks), pull \(pull): \(pulled.events.count) events against \(reference.events.count)")
                    #expect(pulled.output == reference.output)
                }
            }
        }
    }

    @Test("Control frames read in place: the same events and output as copied in, between messages and fragments, valid and hostile")
    func controlFramesSameAsCopied() throws {
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 5))
        let request = client.takeOutput()
        let bye = [UInt8]([0x03, 0xE8]) + Array("bye".utf8)
        let tails: [(String, [UInt8])] = [
            ("pings and pongs", clientFrame(0x9, []) + clientFrame(0x9, [UInt8](repeating: 7, count: 125)) + clientFrame(0xA, [1, 2, 3])),
            ("a ping between fragments", clientFrame(0x1, Array("fr".utf8), fin: false) + clientFrame(0x9, [9])
                + clientFrame(0x0, Array("agment".utf8))),
            ("an empty Close", clientFrame(0x8, [])),
            ("a Close with a reason", clientFrame(0x8, bye)),
            ("a Close, then a message", clientFrame(0x8, [0x03, 0xE8]) + clientFrame(0x2, [1])),
            ("an unmasked ping", frame(0x9, [1])),
            ("a fragmented ping", clientFrame(0x9, [1], fin: false)),
            ("a ping with RSV1", clientFrame(0x9, [1], rsv: 0x40)),
            ("a ping of 126 bytes", clientFrame(0x9, [UInt8](repeating: 1, count: 126))),
            ("a Close of one byte", clientFrame(0x8, [0x03])),
            ("a Close with 1005", clientFrame(0x8, [0x03, 0xED])),
            ("a Close with 999", clientFrame(0x8, [0x03, 0xE7])),
            ("a Close with a reason that is not UTF-8", clientFrame(0x8, [0x03, 0xE8, 0xC3, 0x28])),
            ("an unknown control opcode", clientFrame(0xB, [1])),
        ]
        for (name, tail) in tails {
            let input = request + clientFrame(0x2, [1, 2]) + tail + clientFrame(0x1, Array("after".utf8))
            // After the request, the rest whole (every frame read in place), or cut small (through the inbox).
            for chunks in [[input.count], [request.count, input.count], [request.count, 2, 5], [1], [3, 7]] {
                let reference = try Self.runCopied(input, chunks: chunks)
                for pull in Pull.allCases {
                    let pulled = try Self.runPulled(input, chunks: chunks, echo: true, pull: pull)
                    #expect(pulled.events == reference.events, "\(name), chunks \(chunks), pull \(pull)")
                    #expect(pulled.output == reference.output, "\(name), chunks \(chunks), pull \(pull)")
                }
            }
        }
        // In place, a ping is answered and a Close closes, as copied in (not only alike).
        let wire = request + clientFrame(0x9, [4, 2]) + clientFrame(0x8, bye)
        let pulled = try Self.runPulled(wire, chunks: [request.count, wire.count])
        #expect(pulled.events.contains(.ping([4, 2])))
        #expect(pulled.events.contains(.closeReceived(Connection.CloseFrame(code: .normalClosure, reason: "bye"))))
        #expect(decodeFrames(Array(pulled.output.drop { $0 != 0x8A })).map(\.opcode) == [0xA, 0x8])
    }

    @Test("The short pull gives a whole message only when it is next: not while an event is held, nor once the input ended; the general pull then keeps the order")
    func shortPullKeepsTheOrder() throws {
        var (_, server) = try openPair()
        // A ping copied in and not pulled yet: its event is held.
        server.receive(clientFrame(0x9, [7]))
        var wire = clientFrame(0x2, [1, 2, 3])
        var events: [Connection.Event] = []
        wire.withUnsafeMutableBytes { bytes in
            var offset = 0
            #expect(server.nextWholeMessage(readingInPlace: bytes, from: &offset) == nil)
            #expect(offset == 0)
            while let view = server.nextEvent(readingInPlace: bytes, from: &offset) { events.append(LentInputTests.owned(view)) }
        }
        #expect(events == [.ping([7]), .binary([1, 2, 3])])
        // Whole and next: given, and the offset moves past it.
        var next = clientFrame(0x1, Array("next".utf8))
        next.withUnsafeMutableBytes { bytes in
            var offset = 0
            let message = server.nextWholeMessage(readingInPlace: bytes, from: &offset)
            #expect(message?.kind == .text)
            #expect(message.map { Array($0.payload) } == Array("next".utf8))
            #expect(offset == bytes.count)
        }
        // The input ended: nothing more is read, even whole.
        server.receiveEOF()
        var late = clientFrame(0x2, [9])
        late.withUnsafeMutableBytes { bytes in
            var offset = 0
            #expect(server.nextWholeMessage(readingInPlace: bytes, from: &offset) == nil)
            #expect(offset == 0)
        }
    }

    @Test("The short pull leaves a Close frame where it is, for the general pull; a ping it reads")
    func shortPullLeavesClose() throws {
        var (_, server) = try openPair()
        var wire = clientFrame(0x2, [1]) + clientFrame(0x9, [7]) + clientFrame(0x8, [0x03, 0xE8])
        let closeStart = wire.count - clientFrame(0x8, [0x03, 0xE8]).count
        var events: [Connection.Event] = []
        wire.withUnsafeMutableBytes { bytes in
            var offset = 0
            #expect(server.nextWholeMessage(readingInPlace: bytes, from: &offset).map { Array($0.payload) } == [1])
            // The ping is read, its event queued: nothing given, the offset past it.
            #expect(server.nextWholeMessage(readingInPlace: bytes, from: &offset) == nil)
            #expect(offset == closeStart)
            while let view = server.nextEvent(readingInPlace: bytes, from: &offset) {
                events.append(LentInputTests.owned(view))
                // The Close, still there: declined again, nothing read.
                if events.count == 1 {
                    #expect(server.nextWholeMessage(readingInPlace: bytes, from: &offset) == nil)
                    #expect(offset == closeStart)
                }
            }
            #expect(offset == bytes.count)
        }
        #expect(events.first == .ping([7]))
        #expect(events.contains(.closeReceived(Connection.CloseFrame(code: .normalClosure, reason: ""))))
        #expect(server.state == .closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)))
    }

    @Test("A pull made with the time arms what it reads from the last report (a Close's linger), as a report right after would; nothing else it arms, and nothing after it")
    func armingFromTheLastReport() throws {
        func at(_ seconds: Int) -> Connection.Instant { Connection.Instant(sinceOrigin: .seconds(seconds)) }
        var configuration = Connection.Configuration()
        configuration.timeouts.linger = .seconds(3)
        configuration.timeouts.close = .seconds(7)
        for viaInbox in [false, true] {
            var (_, armed) = try openPair(server: configuration)
            armed.advanceTime(to: at(100))
            var plain = armed
            // A Close whole in the read, or completed in the inbox from a read before.
            var wire = clientFrame(0x8, [0x03, 0xE8])
            if viaInbox {
                armed.receive(Array(wire[..<3]))
                plain.receive(Array(wire[..<3]))
                wire.removeFirst(3)
            }
            var armedEvents: [Connection.Event] = []
            var plainEvents: [Connection.Event] = []
            var copy = wire
            wire.withUnsafeMutableBytes { bytes in
                var offset = 0
                while let view = armed.nextEventArmingFromLastReport(readingInPlace: bytes, from: &offset) {
                    armedEvents.append(LentInputTests.owned(view))
                }
            }
            copy.withUnsafeMutableBytes { bytes in
                var offset = 0
                while let view = plain.nextEvent(readingInPlace: bytes, from: &offset) { plainEvents.append(LentInputTests.owned(view)) }
            }
            #expect(armedEvents == plainEvents)
            #expect(armedEvents.contains(.closeReceived(Connection.CloseFrame(code: .normalClosure, reason: ""))))
            // Armed from the report at 100; without the time, pending: a report is asked for at once.
            #expect(armed.nextDeadline == at(103))
            #expect(armed.recomputedDeadline == at(103))
            #expect(plain.nextDeadline == at(100))
            #expect(armed.transportDirective == .halfCloseAndDrain(deadline: at(103)))
            // That report arms the plain one the same: the two are then alike.
            plain.advanceTime(to: at(100))
            #expect(plain.nextDeadline == armed.nextDeadline)
            #expect(plain.transportDirective == armed.transportDirective && plain.state == armed.state)
            #expect(plain.takeOutput() == armed.takeOutput())
            for connection in [armed, plain] {
                var connection = connection
                connection.advanceTime(to: at(103))
                #expect(connection.transportDirective == .close)
            }
        }
        // What the caller does after the pull waits for the next report, as always: close() arms
        // its timer pending.
        var (_, open) = try openPair(server: configuration)
        open.advanceTime(to: at(100))
        var ping = clientFrame(0x9, [1])
        ping.withUnsafeMutableBytes { bytes in
            var offset = 0
            while open.nextEventArmingFromLastReport(readingInPlace: bytes, from: &offset) != nil {}
        }
        #expect(open.nextDeadline == nil)
        try open.close()
        #expect(open.nextDeadline == at(100))
        open.advanceTime(to: at(150))
        #expect(open.nextDeadline == at(157))
    }

    @Test("A whole masked message is lent from the caller's buffer, and the connection can send while it is held")
    func lentFromTheCallersBuffer() throws {
        var (client, server) = try openPair()
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var wire = clientFrame(0x2, payload) + clientFrame(0x1, Array("after".utf8))
        let headerSize = 8  // 2 bytes, the 16-bit length that 300 needs, the 4-byte masking key
        var views: [Range<Int>] = []
        var events: [Connection.Event] = []
        try wire.withUnsafeMutableBytes { bytes in
            let base = UInt(bitPattern: bytes.baseAddress)
            var offset = 0
            while let view = server.nextEvent(readingInPlace: bytes, from: &offset) {
                events.append(LentInputTests.owned(view))
                guard case .binary(let lent) = view else { continue }
                let start = Int(UInt(bitPattern: lent.baseAddress) - base)
                views.append(start..<(start + lent.count))
                #expect(offset == headerSize + payload.count)   // the next frame not read yet
                try server.send(binary: lent)
            }
        }
        #expect(views == [headerSize..<(headerSize + payload.count)])
        #expect(events == [.binary(payload), .text("after")])
        #expect(server.bufferedInputCount == 0)
        client.receive(server.takeOutput())
        #expect(drain(&client) == [.binary(payload)])
    }

    @Test("A client pulls unmasked binary messages into one array, growing and shrinking: each exactly, text lent as before")
    func clientIntoArray() throws {
        var (client, server) = try openPair()
        let sizes = [0, 1, 125, 126, 70_000, 3, 65_535, 65_536, 0, 300]
        var sent: [Connection.Event] = []
        for (index, size) in sizes.enumerated() {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            try server.send(binary: payload)
            sent.append(.binary(payload))
            if index % 3 == 0 {
                try server.send(text: "text \(index)")
                sent.append(.text("text \(index)"))
            }
        }
        var wire = server.takeOutput()
        var received: [Connection.Event] = []
        var spare: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9]
        wire.withUnsafeMutableBytes { bytes in
            var offset = 0
            while let (kind, text) = client.nextWholeMessage(readingInPlace: bytes, from: &offset, binaryInto: &spare) {
                received.append(kind == .binary ? .binary(spare) : .text(String(decoding: text, as: UTF8.self)))
                if kind == .binary { #expect(text.isEmpty) }
            }
            #expect(offset == bytes.count)
        }
        #expect(received == sent)
    }
}
