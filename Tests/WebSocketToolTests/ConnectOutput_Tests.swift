// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore

/// The forms of `websocket connect`'s standard output besides the default (text as is, binary as
/// "binary: <hex>"): `--jsonl`, one JSON object per event, and `--raw-output`, the bytes themselves.
@Suite("connect: --jsonl and --raw-output", .onTestThreads)
struct ConnectOutputTests {
    /// The stdout lines parsed as JSON objects; a recorded issue for any line that is not one, or
    /// that lacks a string "type" and a number "time" (seconds since the tool started).
    private func events(_ tool: ToolProcess, sourceLocation: SourceLocation = #_sourceLocation) -> [JSON] {
        var events: [JSON] = []
        for line in tool.stdout.lines {
            guard let event = JSON(parsing: line), case .object = event else {
                Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
                continue
            }
            #expect(event["type"]?.string != nil, "no \"type\": \(line)", sourceLocation: sourceLocation)
            let time = event["time"]?.number
            #expect(time != nil && time! >= 0 && time! < 3600, "no plausible \"time\": \(line)", sourceLocation: sourceLocation)
            events.append(event)
        }
        let times = events.compactMap { $0["time"]?.number }
        #expect(times == times.sorted(), "times go backwards: \(times)", sourceLocation: sourceLocation)
        return events
    }

    @Test("--jsonl: open, text (escaped), binary (hex), ping (hex), close (code, reason, clean), in order")
    func jsonLines() throws {
        let text = "say \"hi\"\n\tthen \\ bye ✓"
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(text: text)
            try? socket.send(binary: [0x00, 0xFF, 0x10])
            try? socket.sendPing([0xAB])
        })
        let tool = try ToolProcess(["connect", server.url(), "--jsonl"])
        try #require(tool.waitForOutput(containing: "\"ping\""), "\(tool.transcript)")
        server.close(0, code: .normalClosure, reason: "bye")
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        let events = events(tool)
        #expect(events.compactMap { $0["type"]?.string } == ["open", "text", "binary", "ping", "close"], "\(tool.transcript)")
        guard events.count == 5 else { return }
        #expect(events[0]["url"]?.string == server.url())
        #expect(events[0]["subprotocol"] == .null)
        #expect(events[0]["extensions"] == .array([]))
        #expect(events[1]["data"]?.string == text)
        #expect(events[2]["hex"]?.string == "00ff10")
        #expect(events[3]["hex"]?.string == "ab")
        #expect(events[4]["code"]?.number == 1000)
        #expect(events[4]["reason"]?.string == "bye")
        #expect(events[4]["clean"]?.bool == true)
    }

    @Test("--jsonl with --ping-interval: the pongs to the tool's keepalive pings are events too")
    func jsonPongs() throws {
        let server = try RecordingServer()
        let tool = try ToolProcess(["connect", server.url(), "--jsonl", "--ping-interval", "0.2"])
        try #require(tool.waitForOutput(containing: "\"pong\""), "\(tool.transcript)")
        tool.closeStdin()
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        let pongs = events(tool).filter { $0["type"]?.string == "pong" }
        #expect(!pongs.isEmpty)
        #expect(pongs.allSatisfy { $0["hex"]?.string != nil }, "\(pongs)")
    }

    @Test("--jsonl: a close with another code is reported with it")
    func jsonOtherClose() throws {
        let server = try RecordingServer(onOpen: { _, socket in try? socket.sendClose(code: Connection.CloseCode(rawValue: 4001), reason: "later") })
        let tool = try ToolProcess(["connect", server.url(), "--jsonl"])
        #expect(tool.waitForExit() == 1, "\(tool.transcript)")
        let close = events(tool).last
        #expect(close?["type"]?.string == "close", "\(tool.transcript)")
        #expect(close?["code"]?.number == 4001)
        #expect(close?["reason"]?.string == "later")
    }

    @Test("--jsonl: a connection that does not open is an \"error\" event (exit 3)")
    func jsonError() throws {
        let port = try unusedPort()
        let tool = try ToolProcess(["connect", "ws://127.0.0.1:\(port)/", "--jsonl"])
        #expect(tool.waitForExit() == 3, "\(tool.transcript)")
        #expect(events(tool).map { $0["type"]?.string } == ["error"], "\(tool.transcript)")
    }

    @Test("--raw-output: each message's bytes as they are, then \"\\n\"; binary verbatim")
    func rawOutput() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(binary: [0x00, 0xFF, 0x0A, 0x41])
            try? socket.send(text: "héllo")
            try? socket.sendClose()
        })
        let tool = try ToolProcess(["connect", server.url(), "--raw-output"])
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(tool.stdout.bytes == [0x00, 0xFF, 0x0A, 0x41, 0x0A] + Array("héllo\n".utf8), "\(tool.stdout.bytes)")
    }

    @Test("--raw-output --no-line-split: no separator between messages")
    func rawOutputUnseparated() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(binary: [0x00, 0xFF])
            try? socket.send(text: "ab")
            try? socket.sendClose()
        })
        let tool = try ToolProcess(["connect", server.url(), "--raw-output", "--no-line-split"])
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
        #expect(tool.stdout.bytes == [0x00, 0xFF, 0x61, 0x62], "\(tool.stdout.bytes)")
    }
}
