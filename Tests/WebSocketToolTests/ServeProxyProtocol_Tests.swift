// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport

@Suite("serve --proxy-protocol: behind a load balancer", .onTestThreads)
struct ServeProxyProtocol_Tests {
    /// Sends `prefix` and an opening handshake over a raw connection; whether 101 came back.
    static func opens(port: UInt16, prefix: [UInt8]) throws -> Bool {
        let socket = try RawSocket.connect(port: port)
        defer { socket.close() }
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "127.0.0.1", port: port))))
        socket.write(prefix + client.takeOutput())
        while let bytes = socket.read(timeout: .seconds(60)), !bytes.isEmpty {
            client.receive(bytes)
            while let event = client.nextEvent() {
                if case .handshakeCompleted = event { return true }
            }
        }
        return false
    }

    @Test("A trusted proxy's header: the client's address is the one printed; no header, or an untrusted one, is refused")
    func trustedAndNot() throws {
        let server = try ServeProcess(["--echo", "--proxy-protocol", "--trust-proxy", "127.0.0.0/8"])
        #expect(try Self.opens(port: server.port, prefix: Array("PROXY TCP4 203.0.113.7 127.0.0.1 51000 80\r\n".utf8)))
        #expect(server.tool.waitForStderr(containing: "203.0.113.7:51000: connected"), "\(server.tool.transcript)")
        #expect(try Self.opens(port: server.port, prefix: []) == false)

        let strict = try ServeProcess(["--echo", "--proxy-protocol", "--trust-proxy", "10.0.0.0/8", "--trust-proxy", "::1"])
        #expect(try Self.opens(port: strict.port, prefix: Array("PROXY TCP4 203.0.113.7 127.0.0.1 51000 80\r\n".utf8)) == false)
        #expect(try Self.opens(port: strict.port, prefix: []))
        // The connection's own line (the listening line names 127.0.0.1 too).
        #expect(strict.tool.waitForStderr(containing: ": connected"), "\(strict.tool.transcript)")
        #expect(strict.tool.transcript.contains("\n127.0.0.1:"), "\(strict.tool.transcript)")
    }

    @Test("--proxy-protocol without --trust-proxy, --trust-proxy alone, and a bad range: usage errors, exit 2",
          arguments: [["--proxy-protocol"], ["--trust-proxy", "10.0.0.0/8"], ["--proxy-protocol", "--trust-proxy", "10.0.0.0/33"]])
    func usage(_ arguments: [String]) throws {
        let run = try runTool(["serve", "--port", "0"] + arguments)
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderrLines.first?.contains("proxy") == true, "\(run.transcript)")
    }
}
