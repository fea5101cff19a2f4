// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketDeflate
import WebSocketPOSIX

/// The frame and fragment limits and permessage-deflate, as both commands spell them: a peer over a
/// limit gets 1009 (and `connect` exits 5), `--deflate` is agreed when the peer offers it.
@Suite("Limits and --deflate in both commands", .onTestThreads)
struct LimitsTests {
    @Test("connect --max-frame-size 16: a 17-byte frame from the server fails the connection with 1009, exit 5")
    func connectMaxFrameSize() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.send(text: "sixteen bytes ok")
            try? socket.send(text: "seventeen bytes !")
        })
        let tool = try ToolProcess(["connect", server.url(), "--max-frame-size", "16"])
        #expect(tool.waitForExit() == 5, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["sixteen bytes ok"], "\(tool.transcript)")
        #expect(server.wait { $0.closeCodes == [1009] }, "\(server.seen.closeStatuses)")
    }

    @Test("connect --max-fragments 2: a message in three frames fails the connection with 1009, exit 5")
    func connectMaxFragments() throws {
        let server = try RecordingServer(onOpen: { _, socket in
            try? socket.sendFragment(Array("ab".utf8), kind: .text, isFinal: false)
            try? socket.sendFragment(Array("cd".utf8), kind: .text, isFinal: true)
            try? socket.sendFragment(Array("e".utf8), kind: .text, isFinal: false)
            try? socket.sendFragment(Array("f".utf8), kind: .text, isFinal: false)
            try? socket.sendFragment(Array("g".utf8), kind: .text, isFinal: true)
        })
        let tool = try ToolProcess(["connect", server.url(), "--max-fragments", "2"])
        #expect(tool.waitForExit() == 5, "\(tool.transcript)")
        #expect(tool.stdout.lines == ["abcd"], "\(tool.transcript)")
    }

    @Test("serve --max-frame-size 8 and --max-message-size 8: a 9-byte message in one frame is refused with 1009",
          arguments: ["--max-frame-size", "--max-message-size"])
    func serveMaxSize(option: String) throws {
        let serve = try ServeProcess(["--echo", option, "8"])
        let client = try serve.connect()
        try client.send(text: "12345678")
        #expect(try client.receive() == .text("12345678"))
        try client.send(text: "123456789")
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .messageTooBig, "\(String(describing: client.closeStatus))")
    }

    @Test("serve --max-fragments 2: a message in three frames is refused with 1009")
    func serveMaxFragments() throws {
        let serve = try ServeProcess(["--echo", "--max-fragments", "2"])
        let client = try serve.connect()
        try client.sendFragment(Array("a".utf8), kind: .text, isFinal: false)
        try client.sendFragment(Array("b".utf8), kind: .text, isFinal: true)
        #expect(try client.receive() == .text("ab"))
        for (index, piece) in ["c", "d", "e"].enumerated() {
            try? client.sendFragment(Array(piece.utf8), kind: .text, isFinal: index == 2)
        }
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .messageTooBig, "\(String(describing: client.closeStatus))")
    }

    @Test("serve --deflate: permessage-deflate agreed with a client that offers it; messages round-trip")
    func serveDeflate() throws {
        let serve = try ServeProcess(["--echo", "--deflate"])
        var configuration = Connection.Configuration()
        configuration.extensions = [PerMessageDeflate()]
        let client = try BlockingWebSocket.connect(to: serve.url(), configuration: configuration, options: clientOptions())
        #expect(client.handshake.extensions.map(\.name) == ["permessage-deflate"])
        let long = String(repeating: "squeeze me ", count: 300)
        try client.send(text: long)
        #expect(try client.receive() == .text(long))
        try client.close()
    }

    @Test("serve without --deflate: the offer is declined, messages still round-trip")
    func serveNoDeflate() throws {
        let serve = try ServeProcess(["--echo"])
        var configuration = Connection.Configuration()
        configuration.extensions = [PerMessageDeflate()]
        let client = try BlockingWebSocket.connect(to: serve.url(), configuration: configuration, options: clientOptions())
        #expect(client.handshake.extensions.isEmpty)
        try client.send(text: "plain")
        #expect(try client.receive() == .text("plain"))
        try client.close()
    }

    @Test("serve --deflate-window-bits 10 --deflate-no-context-takeover: the answer carries both, messages round-trip")
    func serveDeflateParameters() throws {
        let serve = try ServeProcess(["--echo", "--deflate-window-bits", "10", "--deflate-no-context-takeover"])
        var configuration = Connection.Configuration()
        configuration.extensions = [PerMessageDeflate()]
        let client = try BlockingWebSocket.connect(to: serve.url(), configuration: configuration, options: clientOptions())
        let agreed = try #require(client.handshake.extensions.first)
        let parameters = Dictionary(agreed.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(agreed.name == "permessage-deflate")
        #expect(parameters["server_max_window_bits"] == .some("10"), "\(agreed)")
        #expect(parameters["client_max_window_bits"] == .some("10"), "\(agreed)")
        #expect(parameters.keys.contains("server_no_context_takeover"), "\(agreed)")
        for _ in 0..<3 {
            let long = String(repeating: "squeeze me ", count: 300)
            try client.send(text: long)
            #expect(try client.receive() == .text(long))
        }
        try client.close()
    }

    @Test("connect --deflate-low-memory: the preset's offer (no context takeover, 9-bit windows); messages round-trip")
    func connectDeflateLowMemory() throws {
        let server = try RecordingServer(extensions: [PerMessageDeflate()])
        let long = String(repeating: "compressible ", count: 200)
        let run = try runTool(["connect", server.url(), "--deflate-low-memory"], input: long + "\n" + long + "\n")
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdoutLines == [long, long], "\(run.transcript)")
        let offer = try #require(server.seen.requests.first?.extensions.first)
        let names = Set(offer.parameters.map(\.name))
        #expect(names.isSuperset(of: ["server_no_context_takeover", "client_no_context_takeover", "server_max_window_bits"]), "\(offer)")
        #expect(offer.parameters.first { $0.name == "server_max_window_bits" }?.value == "9", "\(offer)")
    }

    @Test("--deflate-window-bits outside 9-15 and --deflate-level outside 0-9 are usage errors naming the option",
          arguments: [["--deflate-window-bits", "8"], ["--deflate-window-bits", "16"], ["--deflate-level", "10"]])
    func deflateBadValues(arguments: [String]) throws {
        let run = try runTool(["connect", "ws://127.0.0.1:9/"] + arguments, input: "")
        #expect(run.status == 2, "\(run.transcript)")
        #expect(run.stderr.split(separator: "\n").first?.contains(arguments[0]) == true, "\(run.transcript)")
    }
}
