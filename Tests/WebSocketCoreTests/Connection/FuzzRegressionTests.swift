// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@_spi(Testing) @testable import WebSocketCore

/// Inputs the fuzz targets (Fuzz/) found, replayed through the API. Each test names the target and
/// inlines the input (the crash file's bytes, and what its script does); see "Turning a crash into a
/// regression test" in Fuzz/README.md.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// `connection-server`, crash-5a1588f4d92d5d4193dee583c66f8fcc77387992 (29 bytes):
    ///
    ///     00 00 11                 control: defaults; split seed 0x11
    ///     15 02 CE BA              the server sends the text fragment "κ", not final
    ///     02 06 00 00              its peer sends Close 1000, no reason
    ///     00 11 15 02 CE BA 02 06 00 00 09 00 09 00 09 00 09 0C
    ///                              16 more bytes from the peer
    ///
    /// The peer's Close arrived while the server was streaming a message, so the reply waits for the
    /// last fragment (`closingRemotely`). Nothing is read in that phase, yet `receive(_:)` kept
    /// appending: the 16 bytes stayed buffered, and a peer could fill memory until the close timer,
    /// or forever with `timeouts.close = nil`.
    @Test("Bytes after the peer's Close, while we stream a message, are dropped, not buffered")
    func bytesAfterPeerCloseWhileStreaming() throws {
        var config = Connection.Configuration()
        config.timeouts.close = nil
        var (client, server) = try openPair(server: config)
        try server.sendFragment([0xCE, 0xBA], kind: .text, isFinal: false)
        try client.close(code: .normalClosure)
        let after: [UInt8] = [0x15, 0x02, 0xCE, 0xBA, 0x02, 0x06, 0x00, 0x00, 0x09, 0x00, 0x09, 0x00, 0x09, 0x00, 0x09, 0x0C]
        // In the same read as the Close frame, and in later reads.
        server.receive(client.takeOutput() + after)
        #expect(drain(&server) == [.closeReceived(Connection.CloseFrame(code: .normalClosure))])
        #expect(server.state == .closing(initiatedBy: .remote))
        #expect(server.bufferedInputCount == 0)
        for _ in 0..<64 { server.receive([UInt8](repeating: 0x41, count: 1 << 14)) }
        #expect(drain(&server).isEmpty)
        #expect(server.bufferedInputCount == 0)
        #expect(server.retainedPayloadCapacity <= 1024)
        // The message still ends, and the close reply follows it.
        try server.sendFragment([], kind: .text, isFinal: true)
        #expect(drain(&server) == [.closed(Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))])
        let frames = decodeFrames(server.takeOutput())
        #expect(frames.map(\.opcode) == [0x1, 0x0, 0x8])
        #expect(frames.last.flatMap(closeCode) == 1000)
    }

    /// `http-request`, crash-2bccfde52b7a82e197d1a638925057fcf06d6dd2 (547 bytes; control 0x04: the
    /// tight limits, `maxHeaderBytes` 600): `GET / HTTP/1.1`, then a header line `X-Big: vvv…` of
    /// about 530 bytes, unfinished.
    ///
    /// The head parser's line buffer grew by doubling, one byte at a time, to 1,548 bytes of
    /// capacity for a line that may never pass 600: `retainedPayloadCapacity` beyond the invariant
    /// (the head's limit, plus the refusal body's, plus 512). It now grows geometrically up to the
    /// head's limit and no further.
    @Test("A long header line keeps the head parser's buffer within maxHeaderBytes")
    func longHeaderLineStaysWithinTheHeadLimit() throws {
        var config = Connection.Configuration()
        config.limits.maxHeaderBytes = 600
        config.limits.maxRejectionBodySize = 200
        for length in [100, 300, 530, 570] {
            var server = try Connection(role: .server, configuration: config)
            let head = Array("GET / HTTP/1.1\r\nX-Big: ".utf8) + [UInt8](repeating: 0x76, count: length)
            server.receive(head)
            #expect(server.nextEvent() == nil)
            #expect(server.retainedPayloadCapacity <= 600 + 64, "a \(length)-byte line")
        }
    }

    /// `frame-client`, crash-2e64f0989f4dbea1ed3b90fec2e152553565ae0c (1,325 bytes; control 0x2D:
    /// fragment delivery, tight limits with `maxBufferedOutput` 1000, frames encoded by the harness,
    /// end of stream): a stream of 9-byte pings, some of them between the fragments of a message.
    ///
    /// The library was right; the harness was not: it required the same output bytes whether the
    /// caller took the output once or after each of two reads. Automatic pongs are skipped while the
    /// output holds more than `maxBufferedOutput` (RFC 6455 §5.5.3 allows answering only some pings),
    /// so a caller that writes more often answers more pings. The harness now compares the two outputs
    /// frame by frame, pongs aside. This test pins the library's side: pongs stop at the limit, resume
    /// once the output is taken, and every other frame is unaffected.
    @Test("Automatic pongs stop while the output is over maxBufferedOutput, and resume once it is taken")
    func automaticPongsStopAtTheOutputLimit() throws {
        var config = Connection.Configuration()
        config.limits.maxBufferedOutput = 1000
        let (client, _) = try openPair(client: config)
        let payload = [UInt8](repeating: 0x89, count: 9)
        let pings = (0..<200).flatMap { _ in frame(0x9, payload) }
        // One read, output never taken: pongs (2 + 4 + 9 = 15 bytes each, masked) are written while
        // the output holds at most 1000 bytes, so 67 of them (1,005 bytes), then none.
        var once = client
        once.receive(pings)
        #expect(drain(&once) == Array(repeating: .ping(payload), count: 200))
        let onceFrames = decodeFrames(once.takeOutput())
        #expect(onceFrames.count == 67)
        #expect(onceFrames.allSatisfy { $0.opcode == 0xA && $0.payload == payload })
        // Two reads with the output taken in between: the second read answers again.
        var twice = client
        twice.receive(Array(pings[..<(100 * 11)]))
        _ = drain(&twice)
        let first = decodeFrames(twice.takeOutput())
        twice.receive(Array(pings[(100 * 11)...]))
        _ = drain(&twice)
        let second = decodeFrames(twice.takeOutput())
        #expect(first.count == 67 && second.count == 67)
        // Other frames are written whatever the output holds: the close reply follows the pongs.
        once.receive(frame(0x8, [0x03, 0xE8]))
        #expect(drain(&once).first == .closeReceived(Connection.CloseFrame(code: .normalClosure)))
        let closeFrames = decodeFrames(once.takeOutput())
        #expect(closeFrames.map(\.opcode) == [0x8])
        #expect(closeFrames.first.flatMap(closeCode) == 1000)
    }
}
