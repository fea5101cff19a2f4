// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TransportTestSupport
import WebSocketCore

/// Signals and the closing handshake's timeout in `websocket connect`, against peers that stop
/// answering: a second signal exits at once, a signal while nothing is open exits at once, and a
/// Close that is never answered ends the run after --close-timeout.
@Suite("connect: signals and stalled peers", .onTestThreads)
struct ConnectSignalsTests {
    @Test("SIGINT while the opening handshake is unanswered: exits at once with 130 (128 + SIGINT)")
    func signalWhileConnecting() throws {
        let peer = try StallingPeer(stallingAt: .handshake)
        let tool = try ToolProcess(["connect", peer.url, "--handshake-timeout", "60"])
        try #require(peer.waitForBytes(), "no request came: \(tool.transcript)")
        let started = elapsedClock()
        tool.signal(SIGINT)
        #expect(tool.waitForExit() == 130, "\(tool.transcript)")
        #expect(elapsedClock() - started < .seconds(20))
    }

    @Test("A second SIGINT while the first one's Close waits for its reply: exits at once with 130")
    func secondSignal() throws {
        let peer = try StallingPeer(stallingAt: .close)
        let tool = try ToolProcess(["connect", peer.url, "--close-timeout", "60"])
        try #require(peer.waitForPoint() && tool.waitForStderr(containing: "connected"), "\(tool.transcript)")
        tool.signal(SIGINT)
        // A client's Close frame: 2 header bytes, a 4-byte mask, the 2-byte code.
        try #require(peer.waitForBytes(atLeast: 8), "no Close frame after the first SIGINT: \(tool.transcript)")
        #expect(peer.bytesAfter.first == 0x88, "not a Close frame: \(peer.bytesAfter)")
        let started = elapsedClock()
        tool.signal(SIGINT)
        #expect(tool.waitForExit() == 130, "\(tool.transcript)")
        #expect(elapsedClock() - started < .seconds(20))
    }

    @Test("--close-timeout 1: a Close the server never answers ends the run, abnormally (exit 6), soon")
    func closeTimeout() throws {
        let peer = try StallingPeer(stallingAt: .close)
        let tool = try ToolProcess(["connect", peer.url, "--linger", "0.1", "--close-timeout", "1"])
        try #require(peer.waitForPoint(), "\(tool.transcript)")
        tool.closeStdin()
        let started = elapsedClock()
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
        #expect(elapsedClock() - started < .seconds(9), "ended after \(elapsedClock() - started), not about 1 s")
        #expect(peer.waitForBytes(atLeast: 8) && peer.bytesAfter.first == 0x88, "no Close frame was sent: \(peer.bytesAfter)")
    }
}
