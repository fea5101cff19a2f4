// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport

/// `websocket connect --ping-interval` / `--ping-timeout`: keepalive pings, and the end of a
/// connection whose peer stops answering them.
@Suite("connect: keepalive pings", .onTestThreads)
struct ConnectKeepaliveTests {
    @Test("--ping-interval 0.2: the server sees pings while the connection is idle")
    func pings() throws {
        let server = try RecordingServer(receivesControlFrames: true)
        let tool = try ToolProcess(["connect", server.url(), "--ping-interval", "0.2"])
        #expect(server.wait { $0.pings.count >= 2 }, "\(server.seen.messages) \(tool.transcript)")
        tool.closeStdin()
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
    }

    @Test("--ping-timeout: a server that never answers pings ends the connection abnormally, exit 6")
    func pingTimeout() throws {
        let server = try RecordingServer(receivesControlFrames: true, answersPings: false)
        let tool = try ToolProcess(["connect", server.url(), "--ping-interval", "0.2", "--ping-timeout", "0.5"])
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
        #expect(server.wait { !$0.pings.isEmpty }, "no ping reached the server: \(server.seen.messages)")
    }
}
