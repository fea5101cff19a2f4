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

@Suite("websocket serve: --max-lifetime, --idle-timeout, and a second signal that aborts the drain", .onTestThreads)
struct ServeLimitsTests {
    @Test("serve --idle-timeout 1: a silent client is closed with 1001 \"idle timeout\", no sooner than the timeout")
    func idleTimeout() throws {
        let serve = try ServeProcess(["--echo", "--idle-timeout", "1"])
        let client = try serve.connect()
        // Timed from before the last message: the server receives it, and counts its idle time,
        // later (timed from the echo, a loaded machine's slow echo made the silence look short).
        let silent = elapsedClock()
        try client.send(text: "once")
        #expect(try client.receive() == .text("once"))
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .goingAway, "\(String(describing: client.closeStatus))")
        #expect(client.closeStatus?.reason == "idle timeout", "\(String(describing: client.closeStatus))")
        #expect(elapsedClock() - silent >= .seconds(1))
    }

    @Test("serve --max-lifetime 1: a client that keeps talking is still closed with 1001 \"connection lifetime reached\"")
    func maxLifetime() throws {
        let serve = try ServeProcess(["--echo", "--max-lifetime", "1"])
        let client = try serve.connect()
        var echoed = 0
        while true {
            try client.send(text: "\(echoed)")
            guard let message = try client.receive() else { break }
            if case .text = message { echoed += 1 }
        }
        #expect(echoed > 0)
        #expect(client.closeStatus?.code == .goingAway, "\(String(describing: client.closeStatus))")
        #expect(client.closeStatus?.reason == "connection lifetime reached", "\(String(describing: client.closeStatus))")
    }

    @Test("serve: a second SIGTERM during the drain aborts it at once; the report still prints")
    func secondSignalAborts() throws {
        let serve = try ServeProcess(["--echo", "--drain-timeout", "600"])
        // A client that opens, then never answers the Close: the drain would wait for it.
        let port = serve.port
        let silent = try RawSocket.connect(port: port)
        defer { silent.close() }
        var connection = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
        silent.write(connection.takeOutput())
        var opened = false
        while !opened, let bytes = silent.read(timeout: generousTimeout), !bytes.isEmpty {
            connection.receive(bytes)
            if case .handshakeCompleted? = connection.nextEvent() { opened = true }
        }
        #expect(opened)
        serve.tool.signal(SIGTERM)
        #expect(serve.tool.waitForStderr(containing: "stopping (signal"), "\(serve.tool.transcript)")
        serve.tool.signal(SIGTERM)
        #expect(serve.tool.waitForExit() == 0, "\(serve.tool.transcript)")
        #expect(serve.tool.stderr.text.contains("aborting the drain"), "\(serve.tool.transcript)")
        #expect(serve.tool.stderr.text.contains("stopped: 0 closed cleanly, 0 lost, 1 aborted at the deadline"), "\(serve.tool.transcript)")
    }

    @Test("serve prints a request's X-Forwarded-For and Forwarded fields as sent (behind an HTTP proxy)")
    func forwardedPrinted() throws {
        let serve = try ServeProcess(["--echo"])
        let client = try serve.connect("/behind", headers: ["X-Forwarded-For": "203.0.113.9, 10.0.0.2", "Forwarded": "for=203.0.113.9"])
        try client.send(text: "up")
        #expect(try client.receive() == .text("up"))
        #expect(serve.tool.waitForStderr(containing: "connected, resource /behind, Forwarded for=203.0.113.9, X-Forwarded-For 203.0.113.9, 10.0.0.2"),
                "\(serve.tool.transcript)")
        try client.close()
    }

    @Test("serve --max-lifetime and --idle-timeout take seconds, as the other timeouts")
    func badValues() throws {
        for flag in ["--max-lifetime", "--idle-timeout"] {
            let run = try runTool(["serve", flag, "soon"])
            #expect(run.status == 2, "\(run.transcript)")
            #expect(run.stderr.contains("\(flag): expected seconds"), "\(run.transcript)")
        }
    }
}
