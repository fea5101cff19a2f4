// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketDeflate
import WebSocketPOSIX

/// `websocket serve --broadcast` (stdin lines to every client) and `--exec CMD` (a shell command per
/// connection, its stdin fed by the client's messages and its stdout lines sent back).
@Suite("serve: --broadcast and --exec", .onTestThreads)
struct ServeModesTests {
    /// Connects `count` clients and waits until the tool has reported each connection on stderr, so
    /// that a broadcast written next reaches them all.
    private func connectClients(_ count: Int, to serve: ServeProcess) throws -> [BlockingWebSocket] {
        let clients = try (0..<count).map { index in try serve.connect("/client\(index)") }
        for index in 0..<count {
            #expect(serve.tool.waitForStderr(containing: "/client\(index)"), "\(serve.tool.transcript)")
        }
        return clients
    }

    @Test("--broadcast: each stdin line reaches every one of three clients; each client's message goes to stdout")
    func broadcast() throws {
        let serve = try ServeProcess(["--broadcast"])
        let clients = try connectClients(3, to: serve)
        serve.tool.write("news for all\n")
        for client in clients { #expect(try client.receive() == .text("news for all")) }
        serve.tool.write("more\n")
        for client in clients { #expect(try client.receive() == .text("more")) }
        try clients[1].send(text: "from client 1")
        #expect(serve.tool.waitForOutput(containing: "from client 1"), "\(serve.tool.transcript)")
        for client in clients { try client.close() }
    }

    @Test("--broadcast: rooms by resource path: a client's message reaches the others in its room (the query aside), not itself nor other rooms")
    func broadcastRooms() throws {
        let serve = try ServeProcess(["--broadcast"])
        let a1 = try serve.connect("/a")
        let a2 = try serve.connect("/a?second")
        let b = try serve.connect("/b")
        for resource in ["/a", "/a?second", "/b"] {
            #expect(serve.tool.waitForStderr(containing: "resource \(resource)"), "\(serve.tool.transcript)")
        }
        try a1.send(text: "hello room a")
        #expect(try a2.receive() == .text("hello room a"))
        try b.send(binary: [1, 2, 3])
        // Standard input reaches every room, behind what each client was sent before: the sender and
        // the other room see it next, with nothing before it.
        serve.tool.write("to everyone\n")
        #expect(try a1.receive() == .text("to everyone"))
        #expect(try a2.receive() == .text("to everyone"))
        #expect(try b.receive() == .text("to everyone"))
        // Still printed, as without rooms.
        #expect(serve.tool.waitForOutput(containing: "hello room a"), "\(serve.tool.transcript)")
        for client in [a1, a2, b] { try client.close() }
    }

    @Test("--broadcast --deflate: clients that agreed on permessage-deflate get the published messages, uncompressed")
    func broadcastDeflate() throws {
        let serve = try ServeProcess(["--broadcast", "--deflate"])
        var configuration = Connection.Configuration()
        configuration.extensions = [PerMessageDeflate()]
        let clients = try (0..<2).map { _ in
            try BlockingWebSocket.connect(to: serve.url("/room"), configuration: configuration, options: clientOptions())
        }
        for client in clients { #expect(client.handshake.extensions.map(\.name) == ["permessage-deflate"]) }
        // Both in the room before anything is published.
        #expect(serve.tool.stderr.wait(timeout: generousTimeout) { $0.ranges(of: "resource /room").count >= 2 },
                "\(serve.tool.transcript)")
        let long = String(repeating: "compressible ", count: 200)
        serve.tool.write(long + "\n")
        for client in clients { #expect(try client.receive() == .text(long)) }
        try clients[0].send(text: long)
        #expect(try clients[1].receive() == .text(long))
        for client in clients { try client.close() }
    }

    @Test("--broadcast -b: each stdin line goes out as a binary message")
    func broadcastBinary() throws {
        let serve = try ServeProcess(["--broadcast", "-b"])
        let clients = try connectClients(2, to: serve)
        serve.tool.write("AB\n")
        for client in clients { #expect(try client.receive() == .binary([0x41, 0x42])) }
        for client in clients { try client.close() }
    }

    @Test("--broadcast: a stdin line that is not UTF-8 is reported and skipped; the server goes on")
    func broadcastInvalidUTF8() throws {
        let serve = try ServeProcess(["--broadcast"])
        let clients = try connectClients(1, to: serve)
        serve.tool.write([0x62, 0xFF, 0x0A] + Array("fine\n".utf8))
        #expect(try clients[0].receive() == .text("fine"))
        #expect(serve.tool.waitForStderr(containing: "UTF-8"), "\(serve.tool.transcript)")
        #expect(serve.tool.exitStatus == nil, "\(serve.tool.transcript)")
        try clients[0].close()
    }

    @Test("--exec -b: each line of the command's output comes back as a binary message")
    func execBinary() throws {
        let serve = try ServeProcess(["--exec", "while IFS= read -r line; do echo \"<$line>\"; done", "-b"])
        let client = try serve.connect()
        try client.send(text: "x")
        #expect(try client.receive() == .binary(Array("<x>".utf8)))
        try client.close()
    }

    @Test("--exec: each message is a line on the command's stdin; each line of its stdout comes back as text")
    func execUppercase() throws {
        // Plain `tr a-z A-Z` writes through stdio, fully buffered on a pipe: it answers only when its
        // input ends, so HELLO would never come while the connection is open (docs/cli.md says so).
        // stdbuf -oL makes it write each line as it is done, as a filter must for a conversation.
        let serve = try ServeProcess(["--exec", "stdbuf -oL tr a-z A-Z"])
        let client = try serve.connect()
        try client.send(text: "hello")
        #expect(try client.receive() == .text("HELLO"))
        try client.send(text: "again, twice")
        #expect(try client.receive() == .text("AGAIN, TWICE"))
        try client.close()
    }

    @Test("--exec: one command per connection, each with its own stdin")
    func execPerConnection() throws {
        let serve = try ServeProcess(["--exec", "while IFS= read -r line; do echo \"$$:$line\"; done"])
        let first = try serve.connect()
        let second = try serve.connect()
        try first.send(text: "a")
        try second.send(text: "b")
        guard case .text(let one)? = try first.receive(), case .text(let two)? = try second.receive() else {
            Issue.record("no replies")
            return
        }
        #expect(one.hasSuffix(":a") && two.hasSuffix(":b"), "\(one) \(two)")
        #expect(one.split(separator: ":").first != two.split(separator: ":").first, "the same shell for both: \(one) \(two)")
        try first.close()
        try second.close()
    }

    @Test("--exec: the command sees the connection in WEBSOCKET_RESOURCE, WEBSOCKET_SUBPROTOCOL and WEBSOCKET_PEER")
    func execEnvironment() throws {
        let serve = try ServeProcess(["--exec", "echo \"$WEBSOCKET_RESOURCE|$WEBSOCKET_SUBPROTOCOL|$WEBSOCKET_PEER\"", "--protocol", "chat"])
        let client = try serve.connect("/room?id=7", subprotocols: ["chat"])
        guard case .text(let line)? = try client.receive() else { Issue.record("no line from the command"); return }
        let fields = line.split(separator: "|", omittingEmptySubsequences: false)
        #expect(fields.count == 3, "\(line)")
        #expect(fields.first == "/room?id=7", "\(line)")
        #expect(fields.dropFirst().first == "chat", "\(line)")
        #expect(fields.last?.hasPrefix("127.0.0.1:") == true, "\(line)")
        // `echo` exits after its line: the end of its output closes the connection with 1000.
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .normalClosure, "\(String(describing: client.closeStatus))")
    }

    @Test("--exec with a command that never reads: past 4 MiB waiting, the connection ends with 1011, the server goes on")
    func execNotReading() throws {
        let serve = try ServeProcess(["--exec", "sleep 600"])
        let client = try serve.connect()
        let chunk = [UInt8](repeating: 0x61, count: 256 << 10)
        // 8 MiB in all: the pipe holds 64 KiB, the bridge at most 4 MiB more.
        for _ in 0..<32 { try? client.send(binary: chunk) }
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .internalError, "\(String(describing: client.closeStatus))")
        #expect(serve.tool.waitForStderr(containing: "not reading its input"), "\(serve.tool.transcript)")
        let next = try serve.connect()
        try next.send(text: "still serving")
        _ = try next.close()
    }

    @Test("--exec 'head -n 1': one reply, then the command's stdout ends and the connection closes with 1000")
    func execEnds() throws {
        let serve = try ServeProcess(["--exec", "head -n 1"])
        let client = try serve.connect()
        try client.send(text: "only this")
        #expect(try client.receive() == .text("only this"))
        try? client.send(text: "ignored")
        while try client.receive() != nil {}
        #expect(client.closeStatus?.code == .normalClosure, "\(String(describing: client.closeStatus))")
        #expect(client.closeStatus?.wasClean == true)
    }
}
