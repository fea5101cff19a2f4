// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if os(Linux)
import Glibc
import Testing
import WebSocketCore
import TransportTestSupport
@testable import WebSocketTransport

/// `Socket.writeSome(pieces:)`: one gathered send, in order, with the single-send rules (EINTR
/// retried, EAGAIN is 0 bytes, a short send is reported as such).
@Suite struct GatheredSendTests {
    func pieces(_ arrays: [[UInt8]], _ body: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws -> Int) rethrows -> Int {
        // Pins each array in turn, as the connection does.
        func lend(_ index: Int, _ list: inout [UnsafeRawBufferPointer]) throws -> Int {
            guard index < arrays.count else { return try list.withUnsafeBufferPointer { try body($0) } }
            return try arrays[index].withUnsafeBytes { raw in
                list.append(raw)
                return try lend(index + 1, &list)
            }
        }
        var list: [UnsafeRawBufferPointer] = []
        return try lend(0, &list)
    }

    func readAll(_ socket: Socket, count: Int) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < count {
            let outcome = try buffer.withUnsafeMutableBytes { try socket.read(into: $0, deadline: SystemCalls.live.monotonicNow() + .seconds(10)) }
            guard case .bytes(let n) = outcome else { break }
            received += buffer[..<n]
        }
        return received
    }

    @Test func writesThePiecesInOrderInOneCall() throws {
        let faults = Faults()
        let (writer, reader) = try socketPair(system: faults.system)
        let arrays: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 4, count: 1000), [5]]
        let written = try pieces(arrays) { try writer.writeSome(pieces: $0) }
        #expect(written == 1004)
        #expect(faults.calls(.send) == 1)
        #expect(try readAll(reader, count: 1004) == arrays.flatMap { $0 })
    }

    @Test func retriesEINTRAndReportsEAGAINAndShortSends() throws {
        let faults = Faults()
        let (writer, reader) = try socketPair(system: faults.system)
        let arrays: [[UInt8]] = [[1, 2, 3, 4], [5, 6]]
        faults.plan(.send, [.interrupt, .interrupt])
        #expect(try pieces(arrays) { try writer.writeSome(pieces: $0) } == 6)
        #expect(faults.calls(.send) == 3)
        faults.plan(.send, [.wouldBlock])
        #expect(try pieces(arrays) { try writer.writeSome(pieces: $0) } == 0)
        faults.plan(.send, [.short(3)])
        #expect(try pieces(arrays) { try writer.writeSome(pieces: $0) } == 3)
        faults.plan(.send, [.error(.brokenPipe)])
        #expect(throws: Errno.brokenPipe) { try pieces(arrays) { try writer.writeSome(pieces: $0) } }
        #expect(try readAll(reader, count: 9) == [1, 2, 3, 4, 5, 6, 1, 2, 3])
    }

    @Test func takesAtMostMaxPiecesAtOnce() throws {
        let (writer, reader) = try socketPair(system: .live)
        let arrays = (0..<(Socket.maxPieces + 10)).map { [UInt8(truncatingIfNeeded: $0)] }
        #expect(try pieces(arrays) { try writer.writeSome(pieces: $0) } == Socket.maxPieces)
        #expect(try readAll(reader, count: Socket.maxPieces) == arrays.prefix(Socket.maxPieces).flatMap { $0 })
    }
}
#endif
