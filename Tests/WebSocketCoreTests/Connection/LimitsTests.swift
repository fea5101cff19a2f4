// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Limits: frame, message and fragment count, decided before memory is spent")
struct LimitsTests {
    @Test("A frame over maxFrameSize fails with 1009 from its header alone")
    func frameTooLarge() throws {
        var config = Connection.Configuration()
        config.limits.maxFrameSize = 1000
        var (_, server) = try openPair(server: config)
        // Only the header of a 1001-byte frame arrives.
        server.receive([0x82, 0xFE, 0x03, 0xE9, 1, 2, 3, 4])
        let events = drain(&server)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.frameTooLarge)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("A length of 2^62 then silence: 1009 at once, nothing allocated for it")
    func hugeLengthThenSilence() throws {
        var (_, server) = try openPair()
        server.receive([0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.frameTooLarge)))
        #expect(server.messageBuffer.capacity == 0)
    }

    @Test("A message over maxMessageSize fails with 1009 when the frame that crosses it is announced")
    func messageTooLarge() throws {
        var config = Connection.Configuration()
        config.limits.maxMessageSize = 10
        var (_, server) = try openPair(server: config)
        server.receive(clientFrame(0x2, [UInt8](repeating: 1, count: 6), fin: false))
        #expect(drain(&server).isEmpty)
        server.receive(Array(clientFrame(0x0, [UInt8](repeating: 1, count: 5), fin: true).prefix(6)))
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("A message of exactly maxMessageSize passes")
    func messageAtLimit() throws {
        var config = Connection.Configuration()
        config.limits.maxMessageSize = 10
        var (_, server) = try openPair(server: config)
        server.receive(clientFrame(0x2, [UInt8](repeating: 1, count: 4), fin: false) + clientFrame(0x0, [UInt8](repeating: 2, count: 6)))
        #expect(drain(&server) == [.binary([1, 1, 1, 1, 2, 2, 2, 2, 2, 2])])
    }

    @Test("100,000 one-byte fragments: 1009 at the fragment limit, memory bounded by the message limit")
    func manyFragments() throws {
        var config = Connection.Configuration()
        config.limits.maxFragmentsPerMessage = 1000
        var (_, server) = try openPair(server: config)
        var sawViolation = false
        var maxCapacity = 0
        var wire: [UInt8] = clientFrame(0x2, [0], fin: false)
        for _ in 1..<100_000 {
            wire += clientFrame(0x0, [0], fin: false)
            if wire.count > 4096 {
                server.receive(wire)
                wire.removeAll()
                for event in drain(&server) {
                    if case .protocolViolation(let v) = event {
                        #expect(v.kind == .tooManyFragments)
                        sawViolation = true
                    }
                }
                maxCapacity = max(maxCapacity, server.messageBuffer.capacity)
                if sawViolation { break }
            }
        }
        #expect(sawViolation)
        #expect(maxCapacity <= 1000 * 2)
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("With the default limits, 100,000 one-byte fragments cost no more than their bytes")
    func manyFragmentsDefaultLimits() throws {
        var (_, server) = try openPair()
        var wire: [UInt8] = []
        for i in 0..<100_000 { wire += clientFrame(i == 0 ? 0x2 : 0x0, [UInt8(truncatingIfNeeded: i)], fin: i == 99_999) }
        server.receive(wire)
        let events = drain(&server)
        #expect(events == [.binary((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })])
    }

    // MARK: The fragment count

    /// One message in `count` frames (`count` ≥ 1) as the peer of `receiver` sends it: masked towards
    /// a server. Every frame carries `size` bytes of 0x61, the last one `lastSize`.
    static func fragmentedMessage(_ opcode: UInt8 = 0x2, count: Int, size: Int, lastSize: Int? = nil,
                                  toServer: Bool) -> [UInt8] {
        let key: [UInt8]? = toServer ? [0x11, 0x22, 0x33, 0x44] : nil
        let payload = [UInt8](repeating: 0x61, count: size)
        let last = [UInt8](repeating: 0x61, count: lastSize ?? size)
        if count == 1 { return frame(opcode, last, key: key) }
        let middle = frame(0x0, payload, fin: false, key: key)
        var wire = frame(opcode, payload, fin: false, key: key)
        wire.reserveCapacity(count * middle.count + last.count + 14)
        for _ in 0..<(count - 2) { wire += middle }
        wire += frame(0x0, last, key: key)
        return wire
    }

    /// Feeds `wire` in 64 KiB reads, as a socket would deliver it, and returns the events.
    static func receive(_ connection: inout Connection, _ wire: [UInt8]) -> [Connection.Event] {
        var events: [Connection.Event] = []
        for start in stride(from: 0, to: wire.count, by: 64 << 10) {
            connection.receive(wire[start..<min(wire.count, start + (64 << 10))])
            events += drain(&connection)
        }
        return events
    }

    /// The payload the events deliver, whole or in pieces, and whether the message ended.
    static func delivered(_ events: [Connection.Event]) -> (bytes: [UInt8], messages: Int) {
        var bytes: [UInt8] = []
        var messages = 0
        for event in events {
            switch event {
            case .binary(let payload): bytes += payload; messages += 1
            case .text(let text): bytes += Array(text.utf8); messages += 1
            case .fragment(let piece): bytes += piece.bytes; if piece.isFinal { messages += 1 }
            default: break
            }
        }
        return (bytes, messages)
    }

    @Test("A message of exactly maxFragmentsPerMessage frames passes; the next frame's header fails it with 1009",
          arguments: [1, 2, 3, 64], [Connection.Delivery.messages, .fragments])
    func fragmentCapBoundary(cap: Int, delivery: Connection.Delivery) throws {
        var config = Connection.Configuration()
        config.limits.maxFragmentsPerMessage = cap
        config.delivery = delivery
        var (_, server) = try openPair(server: config)

        let atCap = Self.delivered(Self.receive(&server, Self.fragmentedMessage(count: cap, size: 3, toServer: true)))
        #expect(atCap.bytes == [UInt8](repeating: 0x61, count: 3 * cap))
        #expect(atCap.messages == 1)
        #expect(server.state == .open)

        // One frame more: its 3-byte payload is held back, so that the refusal comes from its header.
        let over = Self.fragmentedMessage(count: cap + 1, size: 3, toServer: true)
        let lastFrame = over.count - 9
        let beforeLast = Self.receive(&server, Array(over[..<lastFrame]))
        #expect(!beforeLast.contains { if case .protocolViolation = $0 { true } else { false } })
        #expect(server.state == .open)
        server.receive(over[lastFrame..<(over.count - 3)])
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.tooManyFragments)))
        #expect(decodeFrames(server.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("Values of maxFragmentsPerMessage below 1 count as 1: a single frame passes, two fail",
          arguments: [0, -1, Int.min])
    func fragmentCapBelowOne(cap: Int) throws {
        var config = Connection.Configuration()
        config.limits.maxFragmentsPerMessage = cap
        var (_, server) = try openPair(server: config)
        #expect(Self.receive(&server, Self.fragmentedMessage(count: 1, size: 5, toServer: true))
                == [.binary([UInt8](repeating: 0x61, count: 5))])
        #expect(Self.receive(&server, Self.fragmentedMessage(count: 2, size: 5, toServer: true)).first
                == .protocolViolation(Connection.ProtocolViolation(.tooManyFragments)))
    }

    @Test("With the default limits, 2^20 fragments pass and one more fails with 1009")
    func defaultFragmentCapBoundary() throws {
        let cap = Connection.Limits().maxFragmentsPerMessage
        #expect(cap == 1 << 20)
        // Towards a client, unmasked and empty but for the first byte: 2 bytes a frame keep the wire small.
        var (client, _) = try openPair()
        let atCap = Self.fragmentedMessage(count: cap, size: 0, toServer: false)
        var events = Self.receive(&client, [0x02, 0x01, 0x61] + atCap.dropFirst(2))
        #expect(events == [.binary([0x61])])
        let over = Self.fragmentedMessage(count: cap + 1, size: 0, toServer: false)
        events = Self.receive(&client, over)
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.tooManyFragments)))
        #expect(decodeFrames(client.takeOutput()).compactMap(closeCode) == [1009])
    }

    @Test("With the default limits, Autobahn 9.3.1 and 9.4.1 pass: 4 MiB in 65,536 fragments of 64 bytes and an empty last one, in both roles",
          arguments: [(UInt8(0x1), true), (0x2, true), (0x1, false), (0x2, false)])
    func autobahnSmallFragments(opcode: UInt8, toServer: Bool) throws {
        var (client, server) = try openPair()
        let wire = Self.fragmentedMessage(opcode, count: 65_537, size: 64, lastSize: 0, toServer: toServer)
        let events = toServer ? Self.receive(&server, wire) : Self.receive(&client, wire)
        let payload = [UInt8](repeating: 0x61, count: 4 << 20)
        #expect(events == [opcode == 0x1 ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)])
    }

    @Test("With the default limits, Autobahn 9.1.6 and 9.2.6 pass: a 16 MiB message, in one frame or two; a byte more fails with 1009 from the header")
    func defaultSizeLimitsAreInclusive() throws {
        #expect(Connection.Limits().maxFrameSize == 16 << 20 && Connection.Limits().maxMessageSize == 16 << 20)
        // Towards a client: unmasked, so that the test does not spend its time masking 16 MiB.
        var (client, _) = try openPair()
        let payload = [UInt8](repeating: 0x61, count: 16 << 20)
        var events = Self.receive(&client, Self.fragmentedMessage(count: 1, size: 16 << 20, toServer: false))
        #expect(events == [.binary(payload)])
        events = Self.receive(&client, Self.fragmentedMessage(count: 2, size: 8 << 20, toServer: false))
        #expect(events == [.binary(payload)])

        // 8 MiB, then the header of a continuation of 8 MiB + 1.
        var over = Self.fragmentedMessage(count: 1, size: 8 << 20, toServer: false)
        over[0] = 0x02  // not final
        events = Self.receive(&client, over + [0x80, 0x7F, 0, 0, 0, 0, 0, 0x80, 0, 0x01])
        #expect(events.first == .protocolViolation(Connection.ProtocolViolation(.messageTooLarge)))

        // A single frame of 16 MiB + 1, to a server: refused from its header.
        var (_, server) = try openPair()
        server.receive([0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0x01, 1, 2, 3, 4])
        #expect(drain(&server).first == .protocolViolation(Connection.ProtocolViolation(.frameTooLarge)))
    }

    @Test("A large frame grows its buffer as bytes arrive, never beyond what was announced")
    func growthBounded() throws {
        var (client, server) = try openPair()
        let payload = [UInt8](repeating: 7, count: 1 << 20)
        try client.send(binary: payload)
        let wire = client.takeOutput()
        server.receive(wire[0..<100])
        #expect(drain(&server).isEmpty)
        #expect(server.messageBuffer.capacity < 64 << 10)
        server.receive(wire[100...])
        #expect(server.messageBuffer.capacity <= (1 << 20) + 4096)
        #expect(drain(&server) == [.binary(payload)])
    }

    @Test("Sends are refused once the output reaches maxBufferedOutput")
    func outputLimit() throws {
        var config = Connection.Configuration()
        config.limits.maxBufferedOutput = 100
        var (_, server) = try openPair(server: config)
        try server.send(binary: [UInt8](repeating: 0, count: 150))
        #expect(throws: Connection.UsageError.outputBufferFull) { try server.send(text: "more") }
        #expect(throws: Connection.UsageError.outputBufferFull) { try server.ping() }
        _ = server.takeOutput()
        try server.send(text: "more")
    }

    @Test("maxBufferedOutput counts the output the caller took and says it still holds: sends are refused and automatic pongs skipped on the sum")
    func outputHeldByCaller() throws {
        var configuration = Connection.Configuration()
        configuration.limits.maxBufferedOutput = 1_000
        var (client, server) = try openPair(client: configuration, server: configuration)
        try client.send(binary: [UInt8](repeating: 1, count: 600))
        let taken = client.takeOutput()
        #expect(client.pendingOutputCount == 0)
        // Without the report, the taken bytes no longer count: two more sends fit.
        var unreported = client
        try unreported.send(binary: [UInt8](repeating: 2, count: 500))
        try unreported.send(binary: [UInt8](repeating: 3, count: 10))
        // Reported, they do: about 600 held and 500 more pending are past the mark.
        client.outputHeldByCaller = taken.count
        #expect(client.outputHeldByCaller == taken.count)
        try client.send(binary: [UInt8](repeating: 2, count: 500))
        #expect(throws: Connection.UsageError.outputBufferFull) { try client.send(binary: [3]) }
        // The channel wrote what it held: room again.
        client.outputHeldByCaller = 0
        try client.send(binary: [3])
        client.outputHeldByCaller = -5
        #expect(client.outputHeldByCaller == 0)

        // A server whose caller holds more than the mark skips the automatic pong, then answers again.
        server.outputHeldByCaller = 2_000
        try client.ping([1])
        _ = client.takeOutput()
        server.receive(Array(clientFrame(0x9, [1])))
        #expect(drain(&server) == [.ping([1])])
        #expect(server.pendingOutputCount == 0)
        server.outputHeldByCaller = 0
        server.receive(Array(clientFrame(0x9, [2])))
        #expect(drain(&server) == [.ping([2])])
        #expect(decodeFrames(server.takeOutput()).map(\.opcode) == [0xA])
    }
}
