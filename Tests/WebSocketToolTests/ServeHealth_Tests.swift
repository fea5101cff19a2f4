// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport

@Suite("serve --health, --metrics and the per-connection line", .onTestThreads)
struct ServeHealth_Tests {
    /// Sends `request` on a raw connection and reads the answer to the end of the stream.
    static func ask(port: UInt16, _ request: String) throws -> String {
        let socket = try RawSocket.connect(port: port)
        defer { socket.close() }
        socket.write(Array(request.utf8))
        var text = ""
        while let bytes = socket.read(timeout: .seconds(60)), !bytes.isEmpty { text += String(decoding: bytes, as: UTF8.self) }
        return text
    }

    @Test("--health answers GET and HEAD with 200; another path keeps 426; the WebSocket port still upgrades")
    func health() throws {
        let serve = try ServeProcess(["--echo", "--health", "/healthz"])
        let get = try Self.ask(port: serve.port, "GET /healthz HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(get.hasPrefix("HTTP/1.1 200 OK\r\n") && get.hasSuffix("\r\n\r\nok\n"), "\(get)")
        let head = try Self.ask(port: serve.port, "HEAD /healthz?full HTTP/1.0\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("\r\n\r\n"), "\(head)")
        let other = try Self.ask(port: serve.port, "GET /metrics HTTP/1.1\r\nHost: lb\r\n\r\n")
        #expect(other.hasPrefix("HTTP/1.1 426 "), "\(other)")
        let client = try serve.connect("/healthz")
        try client.send(text: "still a WebSocket")
        #expect(try client.receive() == .text("still a WebSocket"))
        try client.close()
    }

    @Test("--metrics: a raw GET scrapes the Prometheus text; after one echo the counters say so; each closed connection gets one line")
    func metricsAndLogLine() throws {
        let serve = try ServeProcess(["--echo", "--metrics", "/metrics"])
        let client = try serve.connect("/chat")
        try client.send(text: "hello")
        #expect(try client.receive() == .text("hello"))
        try client.close(code: .normalClosure, reason: "bye")
        // The line comes after the connection's counters are final.
        #expect(serve.tool.waitForStderr(containing: "closed 1000"), "\(serve.tool.transcript)")
        let line = serve.tool.stderr.lines.first { $0.contains("closed 1000") } ?? ""
        #expect(line.hasPrefix("127.0.0.1:"), "\(line)")
        #expect(line.contains("\"bye\""), "\(line)")
        #expect(line.contains(", resource /chat, "), "\(line)")
        #expect(line.contains(" s, ") && line.contains(" bytes in, ") && line.hasSuffix(" bytes out"), "\(line)")

        let scrape = try Self.ask(port: serve.port, "GET /metrics HTTP/1.1\r\nHost: prometheus\r\n\r\n")
        #expect(scrape.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(scrape)")
        #expect(scrape.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), "\(scrape)")
        for expected in ["# TYPE websocket_messages_received_total counter", "websocket_messages_received_total 1\n",
                         "websocket_messages_sent_total 1\n", "websocket_connections_opened_total 1\n",
                         "# TYPE websocket_connections_open gauge", "websocket_connections_open 0\n",
                         "websocket_closes_received_total{code=\"1000\"} 1\n", "websocket_closes_sent_total{code=\"1000\"} 1\n",
                         "# TYPE websocket_ping_round_trip_seconds histogram", "websocket_ping_round_trip_seconds_bucket{le=\"+Inf\"} 0\n",
                         "websocket_connections_refused_total{reason=\"draining\"} 0\n"] {
            #expect(scrape.contains(expected), "\(expected) in \(scrape)")
        }
    }

    @Test("--health without a path, and one path for both: usage errors, exit 2",
          arguments: [["--health", "healthz"], ["--health", "/x", "--metrics", "/x"], ["--metrics", "/m?x"]])
    func usage(_ arguments: [String]) throws {
        let run = try runTool(["serve", "--port", "0"] + arguments)
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.contains("--") == true, "\(run.transcript)")
    }
}
