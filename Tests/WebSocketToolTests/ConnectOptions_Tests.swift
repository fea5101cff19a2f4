// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketDeflate

/// `websocket connect`'s other options against the test server: permessage-deflate, size limits,
/// redirects, and the proxy settings that must leave a loopback connection alone.
@Suite("connect: --deflate, limits, redirects, proxies", .onTestThreads)
struct ConnectOptionsTests {
    @Test("--deflate: permessage-deflate agreed (reported on stderr), messages round-trip")
    func deflate() throws {
        let server = try RecordingServer(extensions: [PerMessageDeflate()])
        let long = String(repeating: "compressible ", count: 200)
        let run = try runTool(["connect", server.url(), "--deflate"], input: long + "\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stderr.contains("permessage-deflate"), "\(run.transcript)")
        #expect(run.stdoutLines == [long])
        #expect(server.seen.requests.first?.extensions.map(\.name) == ["permessage-deflate"])
    }

    @Test("Without --deflate, no extension is offered")
    func noDeflate() throws {
        let server = try RecordingServer(extensions: [PerMessageDeflate()])
        let run = try runTool(["connect", server.url()], input: "x\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(server.seen.requests.first?.extensions.isEmpty == true)
    }

    @Test("--max-message-size 16: a longer message from the server fails the connection with 1009, exit 5")
    func maxMessageSize() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(text: "sixteen bytes ok")
            try? socket.send(text: "seventeen bytes !")
        })
        let tool = try ToolProcess(["connect", server.url(), "--max-message-size", "16"])
        #expect(tool.waitForExit() == 5, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["sixteen bytes ok"], "\(tool.transcript)")
        #expect(server.wait { !$0.closeStatuses.isEmpty })
        #expect(server.seen.closeCodes == [1009], "\(server.seen.closeStatuses)")
    }

    @Test("A redirect (301 to another server) is followed; --max-redirects 0 refuses it, exit 4")
    func redirects() throws {
        let target = try RecordingServer()
        let redirecting = try RecordingServer(decide: { _ in .reject(status: 301, headers: ["Location": target.url("/moved")]) })
        let run = try runTool(["connect", redirecting.url("/old")], input: "followed\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["followed"])
        #expect(target.seen.requests.map(\.resource) == ["/moved"])
        let refused = try runTool(["connect", redirecting.url("/old"), "--max-redirects", "0"], input: "not sent\n")
        #expect(refused.status == 4, "\(refused.transcript)")
        #expect(target.seen.requests.count == 1)
    }

    @Test("A proxy in the environment is not used for loopback; --no-proxy too connects directly")
    func loopbackNotProxied() throws {
        let server = try RecordingServer()
        let port = try unusedPort()
        let proxy = "http://127.0.0.1:\(port)"
        let run = try runTool(["connect", server.url()], input: "direct\n",
                              environment: ["all_proxy": proxy, "http_proxy": proxy, "ws_proxy": proxy, "no_proxy": nil])
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == ["direct"])
        let direct = try runTool(["connect", server.url(), "--no-proxy"], input: "direct\n")
        #expect(direct.status == 0, "\(direct.transcript)")
    }

    @Test("--proxy with --no-proxy: a usage error naming them, exit 2")
    func proxyConflict() throws {
        let run = try runTool(["connect", "ws://127.0.0.1:1/", "--proxy", "http://127.0.0.1:2", "--no-proxy"])
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.contains("--no-proxy") == true, "\(run.transcript)")
    }

    @Test("--proxy to a proxy that refuses connections: could not connect, exit 3")
    func proxyRefused() throws {
        let port = try unusedPort()
        let run = try runTool(["connect", "ws://127.0.0.1:1/", "--proxy", "http://127.0.0.1:\(port)"])
        #expect(run.status == 3, "\(run.transcript)")
    }
}
