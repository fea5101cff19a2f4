// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

/// A transform whose output shows its state: each encoded piece is followed by the count of pieces
/// encoded so far (a stand-in for a compressor's context).
struct CountingTransform: MessageTransform {
    var count: UInt8 = 0
    var reservedBits: UInt8 { 0x40 }
    func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool, output: (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult {
        output(input) ? .consumed : .stopped
    }
    func shouldEncode(messageOfSize size: Int?) -> Bool { size != 0 }
    mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8] {
        count &+= 1
        return Array(input) + [count]
    }
}

@Suite("Boxed transforms, random sources and extensions: values, as the existentials they replace were")
struct BoxedValuesTests {
    static func encode(_ transform: inout Connection.Transform, _ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { transform.encode($0, isFinal: true) }
    }

    @Test("A copy of a transform forks its state: each goes on from where the copy was made")
    func transformForks() {
        var original = Connection.Transform(CountingTransform())
        #expect(original.reservedBits == 0x40)
        #expect(Self.encode(&original, [7]) == [7, 1])
        var copy = original
        #expect(Self.encode(&original, [8]) == [8, 2])
        #expect(Self.encode(&original, [9]) == [9, 3])
        #expect(Self.encode(&copy, [8]) == [8, 2])
        #expect(original.shouldEncode(messageOfSize: 0) == false && copy.shouldEncode(messageOfSize: 1))
        var decoded: [UInt8] = []
        let result = [UInt8]([1, 2, 3]).withUnsafeBytes { copy.decode($0, isFinal: true) { decoded += $0; return true } }
        #expect(result == .consumed && decoded == [1, 2, 3])
    }

    @Test("A copy of a random source forks it: both draw what the generator would, from the copy on")
    func randomForks() {
        var reference = Connection.SeededGenerator(seed: 42)
        var source = RandomSource(Connection.SeededGenerator(seed: 42))
        for _ in 0..<3 { #expect(source.next() == reference.next()) }
        var copy = source
        let expected = (0..<3).map { _ in reference.next() }
        #expect((0..<3).map { _ in source.next() } == expected)
        #expect((0..<3).map { _ in copy.next() } == expected)
    }

    @Test("Configuration: extensions set as a list or added one by one are the same boxed list")
    func configuredExtensions() {
        var configuration = Connection.Configuration()
        configuration.extensions = [XORExtension()]
        configuration.add(RefusingExtension())
        #expect(configuration.configuredExtensions.map(\.name) == ["x-xor", "x-refuse"])
        #expect(configuration.extensions.map(\.name) == ["x-xor", "x-refuse"])
        #expect(configuration.extensionOffers == [Connection.ExtensionHeader(name: "x-xor"), Connection.ExtensionHeader(name: "x-refuse")])
        configuration.extensions = []
        #expect(configuration.configuredExtensions.isEmpty)
    }
}
