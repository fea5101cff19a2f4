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
import WebSocketTransport
import WebSocketPOSIX

/// `websocket serve` as a process, and the library's client against it: status lines on stderr,
/// messages on stdout, `--echo`, subprotocols, origins, limits, and the end on a signal.
@Suite("serve: the tool as a server", .onTestThreads)
struct ServeTests {
    @Test("serve: the listening line (ws://127.0.0.1:PORT/) on stderr, not stdout, which is for messages")
    func listeningLine() throws {
        let serve = try ServeProcess(["--echo"])
        #expect(serve.tool.stderr.text.contains("listening on ws://127.0.0.1:\(serve.port)/"), "\(serve.tool.transcript)")
        #expect(!serve.tool.stdout.text.contains("listening on"), "\(serve.tool.transcript)")
    }

    @Test("serve --echo: text and binary come back as they were sent; a clean close")
    func echo() throws {
        let serve = try ServeProcess(["--echo"])
        let client = try serve.connect("/echo")
        try client.send(text: "hello")
        #expect(try client.receive() == .text("hello"))
        try client.send(binary: [0x00, 0xFF, 0x7F])
        #expect(try client.receive() == .binary([0x00, 0xFF, 0x7F]))
        let status = try client.close()
        #expect(status.code == .normalClosure && status.wasClean, "\(status)")
        #expect(serve.messageLines.isEmpty, "--echo prints no messages: \(serve.tool.transcript)")
    }

    @Test("serve: every client's message printed on stdout (binary as hex); per-connection lines on stderr")
    func printsMessages() throws {
        let serve = try ServeProcess([])
        let client = try serve.connect("/chat")
        try client.send(text: "to stdout")
        try client.send(binary: [0xCA, 0xFE])
        #expect(serve.tool.waitForOutput(containing: "binary: cafe"), "\(serve.tool.transcript)")
        #expect(serve.messageLines == ["to stdout", "binary: cafe"], "\(serve.tool.transcript)")
        #expect(serve.tool.waitForStderr(containing: "/chat"), "the connection's line names its resource: \(serve.tool.transcript)")
        try client.close()
        #expect(serve.tool.waitForStderr(containing: "closed"), "\(serve.tool.transcript)")
    }

    @Test("serve --protocol / --subprotocol: the first one the client offers among those given", arguments: ["--protocol", "--subprotocol"])
    func subprotocol(option: String) throws {
        let serve = try ServeProcess(["--echo", option, "b.v1", option, "c.v1"])
        let client = try serve.connect(subprotocols: ["a.v1", "c.v1", "b.v1"])
        #expect(client.subprotocol == "c.v1")
        try client.close()
    }

    @Test("serve --origin, repeatable: a listed Origin connects, another gets 403, as does none")
    func origins() throws {
        let serve = try ServeProcess(["--echo", "--origin", "https://good.example", "--origin", "https://also.example"])
        for allowed in ["https://good.example", "https://also.example"] {
            let client = try serve.connect(headers: ["Origin": allowed])
            try client.send(text: "hi")
            #expect(try client.receive() == .text("hi"))
            try client.close()
        }
        let response = rejection { try serve.connect(headers: ["Origin": "https://evil.example"]) }
        #expect(response?.head.status == 403)
        let withoutOrigin = rejection { try serve.connect() }
        #expect(withoutOrigin?.head.status == 403)
    }

    @Test("serve --max-connections 1: a second handshake is refused with 503; after the first closes, a new one connects")
    func maxConnections() throws {
        let serve = try ServeProcess(["--echo", "--max-connections", "1"])
        let first = try serve.connect()
        try first.send(text: "one")
        #expect(try first.receive() == .text("one"))
        let response = rejection { try serve.connect() }
        #expect(response?.head.status == 503)
        #expect(response?.head.headers["Retry-After"] == "1")
        try first.close()
        // The server has let the first go once it says so.
        #expect(serve.tool.waitForStderr(containing: "closed"), "\(serve.tool.transcript)")
        let third = try serve.connect()
        try third.send(text: "three")
        #expect(try third.receive() == .text("three"))
        try third.close()
    }

    @Test("serve --ping-interval 0.2: the client sees pings")
    func pings() throws {
        let serve = try ServeProcess(["--echo", "--ping-interval", "0.2"])
        var options = clientOptions()
        options.receivesControlFrames = true
        let client = try BlockingWebSocket.connect(to: serve.url(), options: options)
        var pings = 0
        while pings < 2, let message = try client.receive() {
            if case .ping = message { pings += 1 }
        }
        #expect(pings == 2)
        try client.close()
    }

    @Test("serve --handshake-timeout 1: a connection that never sends its request is closed, sooner than the default")
    func handshakeTimeout() throws {
        let serve = try ServeProcess(["--echo", "--handshake-timeout", "1"])
        let started = elapsedClock()
        let raw = try RawConnection(port: serve.port)
        #expect(raw.waitForEnd(timeout: .seconds(20)), "the server kept the silent connection open")
        #expect(elapsedClock() - started < .seconds(9), "closed after \(elapsedClock() - started)")
    }

    @Test("serve: SIGINT / SIGTERM send 1001 to the open clients, and the tool exits 0", arguments: [SIGINT, SIGTERM])
    func signalled(number: Int32) throws {
        let serve = try ServeProcess(["--echo"])
        let clients = try (0..<2).map { _ in try serve.connect() }
        for client in clients {
            try client.send(text: "up")
            #expect(try client.receive() == .text("up"))
        }
        serve.tool.signal(number)
        for client in clients {
            while try client.receive() != nil {}
            #expect(client.closeStatus?.code == .goingAway, "\(String(describing: client.closeStatus))")
        }
        #expect(serve.tool.waitForExit() == 0, "\(serve.tool.transcript)")
    }

    @Test("serve --restart-code --drain-timeout: SIGTERM closes with 1012 and reports how the connections ended")
    func drainReport() throws {
        let serve = try ServeProcess(["--echo", "--restart-code", "--drain-timeout", "30"])
        let clients = try (0..<3).map { _ in try serve.connect() }
        for client in clients {
            try client.send(text: "up")
            #expect(try client.receive() == .text("up"))
        }
        serve.tool.signal(SIGTERM)
        for client in clients {
            while try client.receive() != nil {}
            #expect(client.closeStatus?.code == .serviceRestart, "\(String(describing: client.closeStatus))")
        }
        #expect(serve.tool.waitForExit() == 0, "\(serve.tool.transcript)")
        #expect(serve.tool.stderr.text.contains("stopped: 3 closed cleanly, 0 lost, 0 aborted at the deadline"), "\(serve.tool.transcript)")
    }

    @Test("serve --raw-output: messages printed as their bytes, each followed by a newline")
    func rawOutput() throws {
        let serve = try ServeProcess(["--raw-output"])
        let client = try serve.connect()
        try client.send(binary: [0x00, 0xFF, 0x41])
        try client.send(text: "é")
        #expect(serve.tool.stdout.wait { $0.hasSuffix("é\n") }, "\(serve.tool.transcript)")
        #expect(serve.tool.stdout.bytes.suffix(7) == [0x00, 0xFF, 0x41, 0x0A, 0xC3, 0xA9, 0x0A], "\(serve.tool.stdout.bytes)")
        try client.close()
    }

    @Test("serve --unix PATH: a Unix socket, reached as ws+unix://PATH:/")
    func unixSocket() throws {
        let path = "/tmp/websocket-tool-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let tool = try ToolProcess(["serve", "--unix", path, "--echo"])
        #expect(tool.waitForOutputOrStderr { $0.contains("ws+unix://") || $1.contains("ws+unix://") }, "\(tool.transcript)")
        let client = try BlockingWebSocket.connect(to: "ws+unix://\(path):/", options: clientOptions())
        try client.send(text: "over unix")
        #expect(try client.receive() == .text("over unix"))
        try client.close()
        // The tool's own client reaches it the same way.
        let run = try runTool(["connect", "ws+unix://\(path):/"], input: "tool to tool\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["tool to tool"])
        tool.signal(SIGTERM)
        #expect(tool.waitForExit() == 0, "\(tool.transcript)")
    }

    @Test("serve --jsonl: open (resource, subprotocol), text, binary, ping, close, each with its peer")
    func jsonLines() throws {
        let serve = try ServeProcess(["--jsonl", "--protocol", "chat"])
        let client = try serve.connect("/room", subprotocols: ["chat"])
        try client.send(text: "say \"hi\"")
        try client.send(binary: [0x00, 0xFF])
        try client.sendPing([0x07])
        #expect(serve.tool.waitForOutput(containing: "\"ping\""), "\(serve.tool.transcript)")
        _ = try client.close()
        #expect(serve.tool.waitForOutput(containing: "\"close\""), "\(serve.tool.transcript)")
        let events = serve.messageLines.compactMap { JSON(parsing: $0) }
        #expect(events.count == serve.messageLines.count, "lines that are not JSON: \(serve.messageLines)")
        #expect(events.compactMap { $0["type"]?.string } == ["open", "text", "binary", "ping", "close"], "\(serve.messageLines)")
        let peers = Set(events.compactMap { $0["peer"]?.string })
        #expect(peers.count == 1 && peers.first?.hasPrefix("127.0.0.1:") == true, "\(peers)")
        #expect(events.first?["resource"]?.string == "/room")
        #expect(events.first?["subprotocol"]?.string == "chat")
        #expect(events.dropFirst().first?["data"]?.string == "say \"hi\"")
        #expect(events.dropFirst(2).first?["hex"]?.string == "00ff")
        #expect(events.dropFirst(3).first?["hex"]?.string == "07")
        #expect(events.last?["code"]?.number == 1000 && events.last?["clean"]?.bool == true, "\(serve.messageLines)")
    }
}
