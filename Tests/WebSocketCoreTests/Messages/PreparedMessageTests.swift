// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import AllocationCounter
import Testing
@_spi(Testing) @testable import WebSocketCore

/// A test extension whose transform XORs payloads with 0x5A, marked by RSV1: a stand-in for
/// permessage-deflate (the deflate module has its own prepared-message test).
struct XORExtension: WebSocketExtension {
    var name: String { "x-xor" }
    func makeOffers() -> [Connection.ExtensionHeader] { [Connection.ExtensionHeader(name: name)] }
    func accept(response: Connection.ExtensionHeader, offers: [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError> {
        .success(Connection.Transform(XORTransform()))
    }
    func negotiate(offers: [Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)? {
        (Connection.ExtensionHeader(name: name), Connection.Transform(XORTransform()))
    }
}

struct XORTransform: MessageTransform {
    var reservedBits: UInt8 { 0x40 }
    /// Messages encoded so far: a stand-in for a compressor's context.
    var encoded = 0
    func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool, output: (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult {
        let decoded = input.map { $0 ^ 0x5A }
        return decoded.withUnsafeBytes { output($0) } ? .consumed : .stopped
    }
    func shouldEncode(messageOfSize size: Int?) -> Bool { true }
    mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8] {
        if isFinal { encoded += 1 }
        return input.map { $0 ^ 0x5A }
    }
}

@Suite("Prepared messages: framed once, shared by server connections")
struct PreparedMessageTests {
    static let sizes = [0, 1, 125, 126, 1000, 65_535, 65_536, 200_000]

    /// A text of `count` bytes of UTF-8, multi-byte characters included.
    static func text(_ count: Int) -> String {
        var text = String(repeating: "κ", count: count / 2)
        if count % 2 == 1 { text += "a" }
        return text
    }

    /// The address of an array's storage, to tell shared storage from a copy.
    static func address(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        bytes.withUnsafeBytes { $0.baseAddress }
    }

    /// Sends `body` to one copy of `connection` and `other` to another: whether they end with the
    /// same output and then the same bytes for one more message (same state, same masking keys).
    static func sameAfter(_ connection: Connection, _ body: (inout Connection) throws -> Void,
                          _ other: (inout Connection) throws -> Void) throws -> Bool {
        var (a, b) = (connection, connection)
        try body(&a)
        try other(&b)
        guard a.pendingOutputCount == b.pendingOutputCount, a.takeOutput() == b.takeOutput() else { return false }
        try? a.send(text: "next")
        try? b.send(text: "next")
        return a.takeOutput() == b.takeOutput() && a.state == b.state
    }

    @Test("The wire bytes are those of send(text:) and send(binary:) from a server", arguments: sizes)
    func sameBytesAsSend(size: Int) throws {
        let (_, server) = try openPair()
        let text = Self.text(size)
        var sent = server
        try sent.send(text: text)
        var prepared = server
        try prepared.send(Connection.PreparedMessage(text: text))
        #expect(prepared.takeOutput() == sent.takeOutput())
        let binary = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        sent = server
        try sent.send(binary: binary)
        prepared = server
        try prepared.send(Connection.PreparedMessage(binary: binary))
        #expect(prepared.takeOutput() == sent.takeOutput())
        #expect(Connection.PreparedMessage(binary: binary[...]) == Connection.PreparedMessage(binary: binary))  // not contiguous-only
        #expect(Connection.PreparedMessage(text: text).payloadCount == text.utf8.count)
    }

    @Test("Prepared with a fragmentation size: the frames of a server with that fragmentationSize",
          arguments: [1, 7, 100, 999, 1000, 5000])
    func fragmentedLikeTheConnection(fragmentationSize: Int) throws {
        var configuration = Connection.Configuration()
        configuration.fragmentationSize = fragmentationSize
        var (client, server) = try openPair(server: configuration)
        let text = Self.text(1000)
        var sent = server
        try sent.send(text: text)
        let prepared = Connection.PreparedMessage(text: text, fragmentationSize: fragmentationSize)
        #expect(prepared.largestFramePayload == min(1000, fragmentationSize))
        try server.send(prepared)
        let wire = server.takeOutput()
        #expect(wire == sent.takeOutput())
        client.receive(wire)
        #expect(drain(&client) == [.text(text)])
    }

    @Test("A frame larger than the connection's fragmentationSize is refused, changing nothing; smaller ones go")
    func fragmentationSizeRespected() throws {
        var configuration = Connection.Configuration()
        configuration.fragmentationSize = 100
        var (client, server) = try openPair(server: configuration)
        let text = Self.text(1000)
        #expect(throws: Connection.UsageError.preparedFrameTooLarge(1000)) { try server.send(Connection.PreparedMessage(text: text)) }
        #expect(throws: Connection.UsageError.preparedFrameTooLarge(101)) {
            try server.send(Connection.PreparedMessage(text: text, fragmentationSize: 101))
        }
        #expect(server.pendingOutputCount == 0)
        try server.send(Connection.PreparedMessage(text: text, fragmentationSize: 100))
        try server.send(Connection.PreparedMessage(text: text, fragmentationSize: 40))
        try server.send(Connection.PreparedMessage(text: "short"))  // one frame within the size
        #expect(pump(&server, into: &client) == [.text(text), .text(text), .text("short")])
    }

    @Test("The peer decodes it: text and binary, empty and large, to a client")
    func peerDecodes() throws {
        var (client, server) = try openPair()
        for size in Self.sizes {
            try server.send(Connection.PreparedMessage(text: Self.text(size)))
            try server.send(Connection.PreparedMessage(binary: [UInt8](repeating: 0xA5, count: size)))
            #expect(pump(&server, into: &client) == [.text(Self.text(size)), .binary([UInt8](repeating: 0xA5, count: size))])
        }
    }

    @Test("Empty output: the prepared array is adopted, not copied, and takeOutput returns it")
    func adoptedWithoutCopy() throws {
        let (_, server) = try openPair()
        let prepared = Connection.PreparedMessage(text: Self.text(1024))
        // One message to 100 connections: each output is the prepared storage itself.
        var connections = [Connection](repeating: server, count: 100)
        for index in connections.indices { try connections[index].send(prepared) }
        for index in connections.indices {
            #expect(connections[index].pendingOutputCount == prepared.wireBytes.count)
            let output = connections[index].takeOutput()
            #expect(output == prepared.wireBytes)
            #expect(Self.address(output) == Self.address(prepared.wireBytes))
            #expect(connections[index].pendingOutputCount == 0)
        }
    }

    @Test("Lent with withPendingOutput: the prepared bytes in place, consumed in parts, then released")
    func lentInPlaceAndConsumed() throws {
        var (client, server) = try openPair()
        let prepared = Connection.PreparedMessage(binary: [UInt8](repeating: 3, count: 5000))
        try server.send(prepared)
        var written: [UInt8] = []
        while server.pendingOutputCount > 0 {
            server.withPendingOutput { bytes in
                if written.isEmpty {
                    #expect(bytes.baseAddress == Self.address(prepared.wireBytes))
                }
                let count = min(bytes.count, 1234)
                written += bytes[..<count]
                return count
            }
        }
        #expect(written == prepared.wireBytes)
        // After it, our own frames go into our own buffer.
        try server.send(text: "after")
        client.receive(written + server.takeOutput())
        #expect(drain(&client) == [.binary([UInt8](repeating: 3, count: 5000)), .text("after")])
        #expect(prepared.wireBytes == Connection.PreparedMessage(binary: [UInt8](repeating: 3, count: 5000)).wireBytes)
    }

    @Test("After a partial write, and before and after other frames, the bytes append in order and the prepared bytes stay intact")
    func appendsAfterPartialOutput() throws {
        var (client, server) = try openPair()
        let prepared = Connection.PreparedMessage(text: "broadcast")
        let pristine = prepared.wireBytes
        try server.send(text: String(repeating: "x", count: 300))
        var wire: [UInt8] = []
        server.withPendingOutput { bytes in
            wire += bytes[..<100]
            return 100
        }
        try server.send(prepared)                // appended after the unwritten rest
        try server.ping([1, 2, 3])
        try server.send(prepared)
        // Adopted, then partly written, then another frame: the rest is copied out, never written into.
        wire += server.takeOutput()
        try server.send(prepared)
        server.withPendingOutput { bytes in
            wire += bytes[..<4]
            return 4
        }
        try server.send(binary: [9, 9])
        wire += server.takeOutput()
        #expect(prepared.wireBytes == pristine)
        client.receive(wire)
        #expect(drain(&client) == [.text(String(repeating: "x", count: 300)), .text("broadcast"), .ping([1, 2, 3]),
                                   .text("broadcast"), .text("broadcast"), .binary([9, 9])])
    }

    @Test("Behind pending output, queued as it is: a burst of prepared messages is never copied, and goes out in order")
    func queuedBehindPendingOutputWithoutCopy() throws {
        var (client, server) = try openPair()
        let first = Connection.PreparedMessage(binary: [UInt8](repeating: 1, count: 1024))
        let second = Connection.PreparedMessage(text: Self.text(2000))
        try server.send(text: "own")             // pending in the connection's own buffer
        for _ in 0..<500 {
            try server.send(first)
            try server.send(second)
        }
        try server.ping([7])                     // our own frame after the queued ones
        let expectedCount = 500 * (first.wireBytes.count + second.wireBytes.count)
        #expect(server.pendingOutputCount > expectedCount)
        // What the connection holds for them is references, not 1.5 MB of copies.
        #expect(server.bufferCapacity < 64 << 10)
        // Lent piece by piece, in order; each prepared message is its own storage, in place.
        var wire: [UInt8] = []
        var preparedPieces = 0
        while server.pendingOutputCount > 0 {
            server.withPendingOutput { bytes in
                if bytes.baseAddress == Self.address(first.wireBytes) || bytes.baseAddress == Self.address(second.wireBytes) {
                    preparedPieces += 1
                }
                // Partial writes across the pieces' boundaries too.
                let count = min(bytes.count, 700)
                wire += bytes[..<count]
                return count
            }
        }
        #expect(preparedPieces >= 1000)
        client.receive(wire)
        var expected: [Connection.Event] = [.text("own")]
        for _ in 0..<500 { expected += [.binary([UInt8](repeating: 1, count: 1024)), .text(Self.text(2000))] }
        expected.append(.ping([7]))
        #expect(drain(&client) == expected)
        // takeOutput joins what is queued behind our own bytes.
        try server.send(text: "a")
        try server.send(first)
        try server.send(text: "b")
        let joined = server.takeOutput()
        #expect(server.pendingOutputCount == 0)
        client.receive(joined)
        #expect(drain(&client) == [.text("a"), .binary([UInt8](repeating: 1, count: 1024)), .text("b")])
    }

    @Test("withPendingOutputPieces: the pieces in order, prepared ones in place, at most the number asked for, partial writes")
    func lentAsPieces() throws {
        var (client, server) = try openPair()
        let prepared = Connection.PreparedMessage(binary: [UInt8](repeating: 2, count: 3000))
        // Nothing pending: nothing lent.
        var called = false
        server.withPendingOutputPieces(upTo: 8) { _ in called = true; return 0 }
        #expect(!called)
        try server.send(text: "own")
        for _ in 0..<5 { try server.send(prepared) }
        try server.send(text: "tail")
        var wire: [UInt8] = []
        var calls = 0
        var lentInPlace = 0
        while server.pendingOutputCount > 0 {
            calls += 1
            server.withPendingOutputPieces(upTo: 3) { pieces in
                #expect(pieces.count <= 3 && pieces.count >= 1)
                lentInPlace += pieces.filter { $0.baseAddress == Self.address(prepared.wireBytes) }.count
                // Write everything of the first piece and half of the second.
                var count = pieces[0].count
                wire += pieces[0]
                if pieces.count > 1 {
                    let half = pieces[1].count / 2
                    wire += pieces[1][..<half]
                    count += half
                }
                return count
            }
        }
        #expect(calls > 1)
        #expect(lentInPlace >= 5)
        client.receive(wire)
        var expected: [Connection.Event] = [.text("own")]
        for _ in 0..<5 { expected.append(.binary([UInt8](repeating: 2, count: 3000))) }
        expected.append(.text("tail"))
        #expect(drain(&client) == expected)
    }

    @Test("A client refuses it with a typed error and changes nothing (its frames need fresh masking keys)")
    func clientRefuses() throws {
        let (client, _) = try openPair()
        var refused = client
        #expect(throws: Connection.UsageError.preparedMessageFromClient) { try refused.send(Connection.PreparedMessage(text: "no")) }
        #expect(try Self.sameAfter(client, { try? $0.send(Connection.PreparedMessage(text: "no")) }, { _ in }))
        // Also before the handshake completes: the role is checked first.
        var connecting = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 1))
        #expect(throws: Connection.UsageError.preparedMessageFromClient) { try connecting.send(Connection.PreparedMessage(text: "no")) }
    }

    @Test("Refused in every state a send is refused in, with the same error, changing nothing")
    func stateRefusals() throws {
        let prepared = Connection.PreparedMessage(text: "hello")
        var cases: [(String, Connection)] = []
        cases.append(("awaiting the request", try Connection(role: .server, random: Connection.SeededGenerator(seed: 3))))
        var deciding = try Connection(role: .server, random: Connection.SeededGenerator(seed: 3))
        var client = try Connection(role: .client(clientOptions()), random: Connection.SeededGenerator(seed: 4))
        deciding.receive(client.takeOutput())
        _ = drain(&deciding)
        cases.append(("awaiting the decision", deciding))
        let (_, open) = try openPair()
        var closing = open
        try closing.close()
        cases.append(("after our Close", closing))
        var (peer, remotelyClosing) = try openPair()
        try remotelyClosing.sendFragment(Array("ours".utf8), kind: .text, isFinal: false)
        try peer.close()
        _ = pump(&peer, into: &remotelyClosing)
        cases.append(("after the peer's Close, our fragmented message unfinished", remotelyClosing))
        var (_, closed) = try openPair()
        closed.abort()
        _ = drain(&closed)
        cases.append(("closed", closed))
        var midMessage = open
        try midMessage.sendFragment(Array("part".utf8), kind: .text, isFinal: false)
        cases.append(("in the middle of a fragmented message", midMessage))
        var tight = Connection.Configuration()
        tight.limits.maxBufferedOutput = 100
        var (_, full) = try openPair(server: tight)
        try full.send(binary: [UInt8](repeating: 0, count: 200))
        cases.append(("with the output full", full))

        for (name, connection) in cases {
            var viaSend = connection
            var expected: Connection.UsageError? = nil
            do { try viaSend.send(text: "hello") } catch { expected = error }
            var viaPrepared = connection
            var actual: Connection.UsageError? = nil
            do { try viaPrepared.send(prepared) } catch { actual = error }
            #expect(expected != nil, "\(name): send(text:) was accepted")
            #expect(actual == expected, "\(name)")
            #expect(viaPrepared.pendingOutputCount == connection.pendingOutputCount, "\(name)")
            #expect(try Self.sameAfter(connection, { try? $0.send(prepared) }, { _ in }), "\(name)")
        }
    }

    @Test("With a negotiated transform: sent untransformed (RSV1 clear), decoded by the peer, the transform untouched")
    func untransformedUnderAnExtension() throws {
        var configuration = Connection.Configuration()
        configuration.extensions = [XORExtension()]
        var (client, server) = try openPair(client: configuration, server: configuration)
        let prepared = Connection.PreparedMessage(text: "plain")
        try server.send(text: "transformed")
        let transformed = server.takeOutput()
        #expect(transformed[0] == 0xC1)  // FIN, RSV1, text
        try server.send(prepared)
        let plain = server.takeOutput()
        #expect(plain == prepared.wireBytes)
        #expect(plain[0] == 0x81)
        try server.send(text: "transformed again")
        client.receive(transformed + plain + server.takeOutput())
        #expect(drain(&client) == [.text("transformed"), .text("plain"), .text("transformed again")])
        // Equivalent to a send that opts out of the transform.
        #expect(try Self.sameAfter(server, { try $0.send(prepared) }, { try $0.send(text: "plain", compress: false) }))
    }

    @Test("Steady state: no allocation per prepared message sent and taken",
          .enabled(if: allocation_counting_is_available() != 0,
                   "allocation counting interposes glibc's malloc: Linux only, and off under sanitizers"))
    func noAllocation() throws {
        var (_, server) = try openPair()
        let prepared = Connection.PreparedMessage(text: Self.text(1024))
        var normal = server
        // Warm up (type metadata, first use).
        for _ in 0..<10 {
            try server.send(prepared)
            #expect(server.takeOutput().count == prepared.wireBytes.count)
            try normal.send(text: Self.text(1024))
            #expect(normal.takeOutput().count == prepared.wireBytes.count)
        }
        let text = Self.text(1024)
        var taken = 0
        let before = allocation_count_for_current_thread()
        for _ in 0..<1000 {
            try server.send(prepared)
            taken &+= server.takeOutput().count
        }
        let preparedAllocations = allocation_count_for_current_thread() - before
        let beforeNormal = allocation_count_for_current_thread()
        for _ in 0..<1000 {
            try normal.send(text: text)
            taken &+= normal.takeOutput().count
        }
        let normalAllocations = allocation_count_for_current_thread() - beforeNormal
        #expect(taken == 2000 * prepared.wireBytes.count)
        #expect(preparedAllocations == 0, "\(preparedAllocations) allocations for 1000 prepared messages")
        // The comparison: send(text:) allocates the output it hands over, once per message.
        #expect(normalAllocations >= 1000)
    }
}
