// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Testing
import TransportTestSupport
@testable import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// A WebSocket client and server `Connection` over a pair of TLS sessions, each in a
/// `ConnectionPipeline` as the adapters run it, the sockets replaced by byte arrays.
struct PipelinePair {
    var client: ConnectionPipeline
    var server: ConnectionPipeline
    var clientEvents: [Connection.Event] = []
    var serverEvents: [Connection.Event] = []
    var split: Split
    var generator: Connection.SeededGenerator
    /// Whether each side's socket was shut down for writing or closed, and so ended the other's input.
    var clientSocketEnded = false
    var serverSocketEnded = false

    init(split: Split, clientContext: TLSContext, serverContext: TLSContext, url: String = "wss://localhost/chat") throws {
        var transport = TransportOptions()
        transport.tls = clientContext
        client = try ConnectionPipeline.client(Connection.ClientOptions(url: try WebSocketURL(parsing: url)), configuration: Connection.Configuration(),
                                               transport: transport)
        transport.tls = serverContext
        server = try ConnectionPipeline.server(configuration: Connection.Configuration(), transport: transport)
        self.split = split
        generator = Connection.SeededGenerator(seed: 99)
    }

    /// Runs both sides until neither has anything to write; the server accepts the handshake.
    mutating func run() throws {
        var rounds = 0
        while true {
            rounds += 1
            precondition(rounds < 1_000_000)
            client.update()
            server.update()
            let fromClient = client.takeSocketOutput()
            let fromServer = server.takeSocketOutput()
            deliver(fromClient, toServer: true)
            deliver(fromServer, toServer: false)
            while let event = server.connection.nextEvent() {
                if case .handshakeRequest = event { try server.connection.accept() }
                serverEvents.append(event)
            }
            while let event = client.connection.nextEvent() { clientEvents.append(event) }
            client.update()
            server.update()
            let ended = obeyDirectives()
            if fromClient.isEmpty, fromServer.isEmpty, !ended, client.socketOutputCount == 0, server.socketOutputCount == 0 { return }
        }
    }

    private mutating func deliver(_ bytes: [UInt8], toServer: Bool) {
        var start = 0
        while start < bytes.count {
            let size: Int
            switch split {
            case .whole: size = bytes.count - start
            case .bytewise: size = 1
            case .random: size = Int.random(in: 1...700, using: &generator)
            }
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { piece in
                if toServer { server.receive(piece) } else { client.receive(piece) }
            }
            start = end
        }
    }

    /// Shuts down or closes the sockets as the pipelines say, ending the peer's input. Returns
    /// whether anything changed.
    private mutating func obeyDirectives() -> Bool {
        var changed = false
        if !clientSocketEnded, client.socketOutputCount == 0 {
            switch client.socketDirective {
            case .shutDownWrite: client.didShutDownWrite(); fallthrough
            case .close: clientSocketEnded = true; server.receiveEOF(); changed = true
            case .open, .drain: break
            }
        }
        if !serverSocketEnded, server.socketOutputCount == 0 {
            switch server.socketDirective {
            case .shutDownWrite: server.didShutDownWrite(); fallthrough
            case .close: serverSocketEnded = true; client.receiveEOF(); changed = true
            case .open, .drain: break
            }
        }
        return changed
    }
}

@Suite(.onTestThreads) struct WebSocketOverTLSTests {
    static let clientContext = try! TLSContext(Configurations.client())
    static let serverContext = try! TLSContext(Configurations.server())

    @Test(arguments: [Split.whole, .bytewise, .random(seed: 5), .random(seed: 6)])
    func openingHandshakeMessagesAndClosingHandshake(split: Split) throws {
        var pair = try PipelinePair(split: split, clientContext: Self.clientContext, serverContext: Self.serverContext)
        try pair.run()
        guard case .handshakeRequest(let request)? = pair.serverEvents.first else {
            Issue.record("server events: \(pair.serverEvents), failure: \(String(describing: pair.server.failure))")
            return
        }
        #expect(request.resource == "/chat")
        guard case .handshakeCompleted? = pair.clientEvents.first else {
            Issue.record("client events: \(pair.clientEvents), failure: \(String(describing: pair.client.failure))")
            return
        }

        let big = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try pair.client.connection.send(text: "hello over TLS")
        try pair.client.connection.send(binary: big)
        try pair.run()
        #expect(Self.messages(pair.serverEvents) == ["text hello over TLS", Self.summary(big)])
        try pair.server.connection.send(binary: big)
        try pair.run()
        #expect(Self.messages(pair.clientEvents) == [Self.summary(big)])

        try pair.client.connection.close(code: .normalClosure, reason: "done")
        try pair.run()
        guard case .closed(let clientStatus)? = pair.clientEvents.last, case .closed(let serverStatus)? = pair.serverEvents.last else {
            Issue.record("client \(pair.clientEvents.last as Any), server \(pair.serverEvents.last as Any)")
            return
        }
        #expect(clientStatus.wasClean && clientStatus.code == .normalClosure)
        #expect(serverStatus.wasClean && serverStatus.code == .normalClosure)
        #expect(pair.client.failure == nil && pair.server.failure == nil)
        #expect(pair.server.socketDirective != .open && pair.client.socketDirective != .open)
    }

    /// The data messages among `events`, each as a short line (a 70 KB array would flood a failure
    /// message).
    static func messages(_ events: [Connection.Event]) -> [String] {
        events.compactMap { event in
            switch event {
            case .text(let text): return "text " + text
            case .binary(let bytes): return summary(bytes)
            default: return nil
            }
        }
    }

    static func summary(_ bytes: [UInt8]) -> String {
        "binary \(bytes.count) bytes, sum \(bytes.reduce(0) { $0 &+ Int($1) &* 31 })"
    }

    @Test func anUntrustedServerFailsTheClientsPipeline() throws {
        let untrusted = try TLSContext(Configurations.server(TestPKI.shared.fromOtherCA))
        var pair = try PipelinePair(split: .whole, clientContext: Self.clientContext, serverContext: untrusted)
        try pair.run()
        #expect(pair.client.failure == .tls(TLSError(.unknownIssuer, reason: "unable to get local issuer certificate")))
        #expect(pair.client.socketDirective == .close)
        #expect(!pair.serverEvents.contains { if case .handshakeRequest = $0 { return true } else { return false } })
    }

    @Test func anIPAddressURLIsVerifiedAsAnAddress() throws {
        var pair = try PipelinePair(split: .whole, clientContext: Self.clientContext, serverContext: Self.serverContext,
                                    url: "wss://[::1]:9443/")
        try pair.run()
        guard case .handshakeCompleted? = pair.clientEvents.first else {
            Issue.record("client events: \(pair.clientEvents), failure: \(String(describing: pair.client.failure))")
            return
        }
    }
}
#endif
