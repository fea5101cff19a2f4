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
        var config = Configuration()
        config.timeouts.close = nil
        var (client, server) = try openPair(server: config)
        try server.sendFragment([0xCE, 0xBA], kind: .text, isFinal: false)
        try client.close(code: .normalClosure)
        let after: [UInt8] = [0x15, 0x02, 0xCE, 0xBA, 0x02, 0x06, 0x00, 0x00, 0x09, 0x00, 0x09, 0x00, 0x09, 0x00, 0x09, 0x0C]
        // In the same read as the Close frame, and in later reads.
        server.receive(client.takeOutput() + after)
        #expect(drain(&server) == [.closeReceived(CloseFrame(code: .normalClosure))])
        #expect(server.state == .closing(initiatedBy: .remote))
        #expect(server.bufferedInputCount == 0)
        for _ in 0..<64 { server.receive([UInt8](repeating: 0x41, count: 1 << 14)) }
        #expect(drain(&server).isEmpty)
        #expect(server.bufferedInputCount == 0)
        #expect(server.retainedPayloadCapacity <= 1024)
        // The message still ends, and the close reply follows it.
        try server.sendFragment([], kind: .text, isFinal: true)
        #expect(drain(&server) == [.closed(CloseStatus(code: .normalClosure, reason: "", wasClean: true))])
        let frames = decodeFrames(server.takeOutput())
        #expect(frames.map(\.opcode) == [0x1, 0x0, 0x8])
        #expect(frames.last.flatMap(closeCode) == 1000)
    }
}
