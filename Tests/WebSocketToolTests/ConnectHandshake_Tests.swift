// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore

/// What `websocket connect` puts in its opening handshake (headers, subprotocols, Origin, Basic
/// credentials) as the server sees it, and the exit statuses of a connection that never opens:
/// 3 (no connection) and 4 (the handshake failed, refused or timed out).
@Suite("connect: the opening handshake", .onTestThreads)
struct ConnectHandshakeTests {
    /// The one request the server saw, after the tool ran with `arguments` and empty input.
    private func request(_ arguments: [String], server: RecordingServer,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> (ToolRun, Connection.HandshakeRequest?) {
        let run = try runTool(["connect", server.url()] + arguments)
        #expect(server.seen.requests.count == 1, "\(run.transcript)", sourceLocation: sourceLocation)
        return (run, server.seen.requests.first)
    }

    @Test("-H / --header 'Name: value', repeatable: the server sees each header")
    func headers() throws {
        let server = try RecordingServer()
        let (run, request) = try request(["-H", "X-Custom: one", "--header", "X-Other:two", "-H", "X-Custom: again"], server: server)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(request?.head.headers.values(for: "X-Custom") == ["one", "again"])
        #expect(request?.head.headers["X-Other"] == "two")
    }

    @Test("--protocol P, repeatable, in order; --subprotocol is an alias; the chosen one is reported", arguments: ["--protocol", "--subprotocol"])
    func subprotocols(option: String) throws {
        let server = try RecordingServer(subprotocols: ["second.v1"])
        let (run, request) = try request([option, "first.v1", option, "second.v1"], server: server)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(request?.subprotocols == ["first.v1", "second.v1"])
        #expect(run.stderr.contains("second.v1"), "the chosen subprotocol on stderr: \(run.transcript)")
    }

    @Test("--origin ORIGIN: the Origin header")
    func origin() throws {
        let server = try RecordingServer()
        let (run, request) = try request(["--origin", "https://app.example"], server: server)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(request?.origin == "https://app.example")
    }

    @Test("--basic-auth user:pass: Authorization: Basic base64(user:pass)")
    func basicAuth() throws {
        let server = try RecordingServer()
        let (run, request) = try request(["--basic-auth", "aladdin:open sesame"], server: server)
        #expect(run.status == 0, "\(run.transcript)")
        #expect(request?.head.headers["Authorization"] == "Basic YWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test("ws://user:pass@host/: the same Authorization: Basic header, and no credentials in the request target")
    func credentialsInURL() throws {
        let server = try RecordingServer()
        let run = try runTool(["connect", "ws://aladdin:open%20sesame@127.0.0.1:\(server.port)/private"])
        #expect(run.status == 0, "\(run.transcript)")
        let request = server.seen.requests.first
        #expect(request?.head.headers["Authorization"] == "Basic YWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(request?.resource == "/private")
    }

    @Test("Connection refused: exit 3")
    func refused() throws {
        let port = try unusedPort()
        let run = try runTool(["connect", "ws://127.0.0.1:\(port)/"])
        #expect(run.status == 3, "\(run.transcript)")
        #expect(run.stderr.hasPrefix("websocket: "), "\(run.transcript)")
    }

    @Test("A refused handshake (403): exit 4, the status on stderr")
    func rejected() throws {
        let server = try RecordingServer(decide: { _ in .reject(status: 403) })
        let run = try runTool(["connect", server.url()])
        #expect(run.status == 4, "\(run.transcript)")
        #expect(run.stderr.contains("403"), "\(run.transcript)")
    }

    @Test("--handshake-timeout 1 against a server that accepts TCP and never answers: exit 4, sooner than the 10 s default")
    func handshakeTimeout() throws {
        let listener = try SilentListener()
        let started = elapsedClock()
        let tool = try ToolProcess(["connect", listener.url, "--handshake-timeout", "1"])
        let status = tool.waitForExit(timeout: .seconds(20))
        let elapsed = elapsedClock() - started
        #expect(status == 4, "\(tool.transcript)")
        #expect(elapsed < .seconds(9), "exited after \(elapsed), not within about the 1 s asked for")
        withExtendedLifetime(listener) {}
    }

    @Test("--connect-timeout 1 against a listener whose backlog is full (SYNs dropped): exit 3, sooner than the 10 s default")
    func connectTimeout() throws {
        let listener = try SilentListener(backlog: 0)
        // A backlog of 0 holds one connection on Linux; more fill it, and then the kernel drops SYNs.
        let fillers = try (0..<3).map { _ in try listener.connectNonBlocking() }
        let started = elapsedClock()
        let tool = try ToolProcess(["connect", listener.url, "--connect-timeout", "1"])
        let status = tool.waitForExit(timeout: .seconds(20))
        let elapsed = elapsedClock() - started
        #expect(status == 3, "\(tool.transcript)")
        #expect(elapsed < .seconds(9), "exited after \(elapsed), not within about the 1 s asked for")
        withExtendedLifetime((listener, fillers)) {}
    }
}
