// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// A client and a server `Connection` wired together through plain byte arrays: the sans-I/O design
/// made visible. Seeded randomness makes the masks, and so every byte printed, the same on every run.
enum InMemoryDemo {
    static func run() {
        print("WebSocket in memory: a client and a server Connection, no sockets, no threads.")
        print("Every byte that crosses the 'wire' is printed, then the events each side pulled.\n")
        do {
            try conversation()
        } catch {
            printError("demo failed: \(error)")
            exitProcess(1)
        }
    }

    private static func conversation() throws {
        let url = try WebSocketURL(parsing: "ws://localhost:9001/chat")
        var client = try Connection(role: .client(Connection.ClientOptions(url: url, subprotocols: ["chat.v2", "chat.v1"])),
                                    random: Connection.SeededGenerator(seed: 2024))
        var server = try Connection(role: .server, random: Connection.SeededGenerator(seed: 6455))

        step("opening handshake")
        transfer(from: &client, "client", to: &server, "server") { event, server in
            if case .handshakeRequest(let request) = event {
                print("  server accepts, choosing subprotocol \(request.subprotocols.last ?? "none")")
                try server.accept(subprotocol: request.subprotocols.last)
            }
        }
        transfer(from: &server, "server", to: &client, "client")

        step("a text message from the client (masked, RFC 6455 §5.3)")
        try client.send(text: "Hello, WebSocket! κόσμε 🎉")
        transfer(from: &client, "client", to: &server, "server")

        step("a binary message from the server (unmasked)")
        try server.send(binary: [0xDE, 0xAD, 0xBE, 0xEF])
        transfer(from: &server, "server", to: &client, "client")

        step("a fragmented message: three frames, a ping between them")
        try client.sendFragment(Array("frag".utf8), kind: .text, isFinal: false)
        try client.ping(Array("are you there?".utf8))
        try client.sendFragment(Array("men".utf8), kind: .text, isFinal: false)
        try client.sendFragment(Array("ted".utf8), kind: .text, isFinal: true)
        transfer(from: &client, "client", to: &server, "server")
        step("the server's automatic pong")
        transfer(from: &server, "server", to: &client, "client")

        step("closing handshake, started by the client")
        try client.close(code: .normalClosure, reason: "done")
        transfer(from: &client, "client", to: &server, "server")
        transfer(from: &server, "server", to: &client, "client")
        print("  server: close the transport now? \(server.shouldCloseTransport)")
        print("  client: close the transport now? \(client.shouldCloseTransport) (it waits for the server, RFC 6455 §7.1.1)")
        client.receiveEOF()
        print("  client saw the server close the TCP connection: close the transport now? \(client.shouldCloseTransport)")
        print("\nfinal states: client \(client.state), server \(server.state)")
    }

    private static func step(_ title: String) {
        print("── \(title) " + String(repeating: "─", count: max(0, 70 - title.count)))
    }

    /// Moves `from`'s pending output into `to`, printing the bytes and the events `to` pulls.
    private static func transfer(from: inout Connection, _ fromName: String, to: inout Connection, _ toName: String,
                                 react: (Connection.Event, inout Connection) throws -> Void = { _, _ in }) {
        let bytes = from.takeOutput()
        guard !bytes.isEmpty else { return }
        print("  \(fromName) → \(toName): \(bytes.count) bytes")
        print(hexDump(bytes))
        to.receive(bytes)
        while let event = to.nextEvent() {
            print("  \(toName) event: \(describe(event))")
            do { try react(event, &to) } catch { print("  \(toName) error: \(error)") }
        }
    }

    private static func describe(_ event: Connection.Event) -> String {
        switch event {
        case .handshakeRequest(let r): return "handshake request for \(r.resource), subprotocols \(r.subprotocols)"
        case .handshakeCompleted(let r): return "handshake completed, subprotocol \(r.subprotocol ?? "none")"
        case .handshakeFailed(let f): return "handshake failed: \(f)"
        case .text(let t): return "text \"\(t)\""
        case .binary(let b): return "binary \(b.count) bytes: \(hexDump(b, indent: ""))"
        case .fragment(let f): return "fragment of \(f.bytes.count) bytes, final: \(f.isFinal)"
        case .ping(let p): return "ping \"\(String(decoding: p, as: UTF8.self))\""
        case .pong(let p): return "pong \"\(String(decoding: p, as: UTF8.self))\""
        case .closeReceived(let c): return "close received: code \(c.code), reason \"\(c.reason)\""
        case .protocolViolation(let v): return "protocol violation: \(v)"
        case .closed(let s): return "closed: code \(s.code), clean \(s.wasClean)"
        }
    }
}
