// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport

/// How `websocket connect` ends, and the exit status that tells it: the peer's close code, a
/// message limit, `--no-close`, a signal, a protocol violation, a lost connection.
@Suite("connect: ending and exit statuses", .onTestThreads)
struct ConnectEndingTests {
    @Test("The server closes first: 1000 → exit 0; 4000, 1001 → exit 1", arguments: [(UInt16(1000), Int32(0)), (4000, 1), (1001, 1)])
    func serverCloses(code: UInt16, status: Int32) throws {
        let server = try RecordingServer(onOpen: { _, socket in try? socket.sendClose(code: Connection.CloseCode(rawValue: code)) })
        let tool = try ToolProcess(["connect", server.url()])   // stdin stays open: the server ends it
        #expect(tool.waitForExit() == status, "\(tool.transcript)")
        #expect(tool.stderr.text.contains("closed: \(code)"), "\(tool.transcript)")
    }

    @Test("-1 / --one-message: exits after the first message received (with 1000, exit 0), while stdin is still open", arguments: ["-1", "--one-message"])
    func oneMessage(flag: String) throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(text: "first")
            try? socket.send(text: "second")
        })
        let tool = try ToolProcess(["connect", server.url(), flag])
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["first"], "\(tool.transcript)")
        #expect(server.wait { $0.closeCodes == [1000] }, "\(server.seen.closeStatuses)")
    }

    @Test("--max-messages 2: exits after the second message received")
    func maxMessages() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            for text in ["one", "two", "three"] { try? socket.send(text: text) }
        })
        let tool = try ToolProcess(["connect", server.url(), "--max-messages", "2"])
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["one", "two"], "\(tool.transcript)")
    }

    @Test("--echo: every message received is printed and sent back")
    func echo() throws {
        let server = try RecordingServer(echoes: false, onOpen: { _, socket in
            try? socket.send(text: "echo me")
            try? socket.send(binary: [0x01, 0xFE])
        })
        let tool = try ToolProcess(["connect", server.url(), "--echo"])
        #expect(server.wait { $0.messages.count == 2 }, "\(tool.transcript)")
        #expect(server.seen.messages == [.text("echo me"), .binary([0x01, 0xFE])])
        #expect(tool.waitForOutput(containing: "binary: 01fe"), "\(tool.transcript)")
        #expect(tool.stdout.lines == ["echo me", "binary: 01fe"], "\(tool.transcript)")
        server.close(0)
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
    }

    @Test("-n / --no-close: after stdin ends it keeps reading (well past --linger) until the server closes", arguments: ["-n", "--no-close"])
    func noClose(flag: String) throws {
        let server = try RecordingServer()
        let tool = try ToolProcess(["connect", server.url(), flag, "--linger", "0.3"])
        tool.write("before\n")
        try #require(tool.waitForOutput(containing: "before"), "\(tool.transcript)")
        tool.closeStdin()
        // The one timed wait: nothing may happen in it. Ten lingers without a Close from the tool.
        #expect(!server.wait(timeout: .seconds(3)) { !$0.closeStatuses.isEmpty }, "the tool closed: \(tool.transcript)")
        #expect(tool.exitStatus == nil, "\(tool.transcript)")
        try #require(server.connection(0)).send(text: "late news")
        #expect(tool.waitForOutput(containing: "late news"), "\(tool.transcript)")
        server.close(0, code: .normalClosure)
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["before", "late news"], "\(tool.transcript)")
    }

    @Test("SIGINT / SIGTERM: the tool sends Close 1001 (the server sees it) and exits 1", arguments: [SIGINT, SIGTERM])
    func signalled(number: Int32) throws {
        let server = try RecordingServer()
        let tool = try ToolProcess(["connect", server.url()])
        tool.write("hello\n")
        try #require(tool.waitForOutput(containing: "hello"), "\(tool.transcript)")
        tool.signal(number)
        #expect(tool.waitForExit() == 1, "\(tool.transcript)")
        #expect(server.wait { !$0.closeStatuses.isEmpty }, "\(tool.transcript)")
        #expect(server.seen.closeCodes == [1001], "\(server.seen.closeStatuses)")
    }

    @Test("A text message that is not UTF-8 from the server: a protocol error, exit 5")
    func protocolError() throws {
        let peer = try RawServer { _, socket in
            guard acceptHandshakeGenerously(on: socket) != nil else { return }
            try? socket.writeAll(serverFrame(0x81, [0x61, 0xFF]))
            _ = try? socket.readToEnd(timeout: generousTimeout)
        }
        let tool = try ToolProcess(["connect", peer.url])
        #expect(tool.waitForExit() == 5, "\(tool.transcript)")
    }

    @Test("The server drops the TCP connection without a Close: abnormal closure, exit 6")
    func abnormalClosure() throws {
        let peer = try RawServer { _, socket in
            _ = acceptHandshakeGenerously(on: socket)
            socket.close()
        }
        let tool = try ToolProcess(["connect", peer.url])
        #expect(tool.waitForExit() == 6, "\(tool.transcript)")
    }
}
