// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// The byte-collection entry points take any `Collection<UInt8>`: those without contiguous storage
/// (a reversed array, a lazy map, a range's bytes) go through a copy and must give the same bytes on
/// the wire, and the same events, as an array.
@Suite("Collections without contiguous storage in and out")
struct NonContiguousCollectionTests {
    static let payload: [UInt8] = Array(0..<200).map { UInt8($0 & 0xFF) }

    /// `payload` as a collection that has no contiguous storage (a reversed view of its reverse).
    static var scattered: ReversedCollection<[UInt8]> { Array(payload.reversed()).reversed() }

    @Test("The collection really is not contiguous (or the test would prove nothing)")
    func precondition() {
        #expect(Self.scattered.withContiguousStorageIfAvailable { _ in true } == nil)
        #expect(Array(Self.scattered) == Self.payload)
    }

    @Test("send(binary:) writes the same frames for a non-contiguous collection as for an array")
    func sendBinary() throws {
        let (client, _) = try openPair()
        var a = client, b = client
        try a.send(binary: Self.payload)
        try b.send(binary: Self.scattered)
        let bytes = b.takeOutput()
        #expect(a.takeOutput() == bytes)
        #expect(decodeFrames(bytes) == [DecodedFrame(fin: true, opcode: 0x2, masked: true, payload: Self.payload)])
    }

    @Test("sendFragment writes the same frames for a non-contiguous collection as for an array")
    func sendFragment() throws {
        let (_, server) = try openPair()
        var a = server, b = server
        try a.sendFragment(Self.payload, kind: .binary, isFinal: false)
        try a.sendFragment(Self.payload.lazy.map { $0 ^ 0xFF }, kind: .binary, isFinal: true)
        try b.sendFragment(Self.scattered, kind: .binary, isFinal: false)
        try b.sendFragment(Self.payload.map { $0 ^ 0xFF }, kind: .binary, isFinal: true)
        let bytes = b.takeOutput()
        #expect(a.takeOutput() == bytes)
        #expect(decodeFrames(bytes) == [DecodedFrame(fin: false, opcode: 0x2, masked: false, payload: Self.payload),
                                        DecodedFrame(fin: true, opcode: 0x0, masked: false, payload: Self.payload.map { $0 ^ 0xFF })])
    }

    @Test("PreparedMessage(binary:) from a non-contiguous collection frames the same bytes")
    func preparedBinary() throws {
        let (_, server) = try openPair()
        var a = server, b = server
        try a.send(Connection.PreparedMessage(binary: Self.payload, fragmentationSize: 64))
        try b.send(Connection.PreparedMessage(binary: Self.scattered, fragmentationSize: 64))
        let bytes = b.takeOutput()
        #expect(a.takeOutput() == bytes)
        let frames = decodeFrames(bytes)
        #expect(frames.map(\.opcode) == [0x2, 0x0, 0x0, 0x0])
        #expect(frames.flatMap(\.payload) == Self.payload)
    }

    @Test("receive(_:) takes a non-contiguous collection, split anywhere")
    func receiveScattered() throws {
        var (client, server) = try openPair()
        try client.send(binary: Self.payload)
        try client.send(text: "κόσμε")
        let wire = client.takeOutput()
        for split in [0, 1, 7, wire.count / 2, wire.count] {
            var s = server
            s.receive(Array(wire[..<split].reversed()).reversed())
            s.receive(Array(wire[split...].reversed()).reversed())
            #expect(drain(&s) == [.binary(Self.payload), .text("κόσμε")])
        }
    }
}
