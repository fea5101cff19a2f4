// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if os(Linux)
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketTLS
import TLSTestSupport
import TransportTestSupport
@testable import WebSocketAsync

@Suite("A server's certificate reloaded while connections stay open", .timeLimit(.minutes(5)))
struct TLSReloadTests {
    static func clientOptions(trusting roots: [TestIdentity]) throws -> TransportOptions {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only(roots.map { PEMSource.bytes($0.certificatePEM) })
        var options = Harness.options()
        options.tls = try TLSContext(configuration)
        return options
    }

    /// One echo on `socket`, answered within the harness's patience.
    static func echo(_ socket: WebSocket, _ text: String) async throws {
        try await socket.send(.text(text))
        let answer = try await socket.receive(timeout: Harness.patience)
        #expect(answer == .text(text))
    }

    @Test("100 open connections keep echoing across reloads; new ones get the new certificate; a bad reload keeps it")
    func reloadUnderOpenConnections() async throws {
        let pki = TestPKI.shared
        let context = try TLSContext(.server(certificateChain: .bytes(pki.server.certificatePEM), privateKey: .bytes(pki.server.keyPEM)))
        var options = Harness.options()
        options.tls = context
        let server = try WebSocketServer(host: "127.0.0.1", port: 0, configuration: Harness.configuration(), options: options) { socket, event in
            if case .message(let message) = event { try? socket.send(message) }
        }
        defer { server.stop() }
        let url = "wss://localhost:\(server.port)/"
        let both = try Self.clientOptions(trusting: [pki.ca, pki.otherCA])
        var open: [WebSocket] = []
        for _ in 0..<100 { open.append(try await WebSocket.connect(to: url, options: both)) }
        for (index, socket) in open.enumerated() { try await Self.echo(socket, "before \(index)") }

        try context.reload(.server(certificateChain: .bytes(pki.fromOtherCA.certificatePEM), privateKey: .bytes(pki.fromOtherCA.keyPEM)))
        for (index, socket) in open.enumerated() { try await Self.echo(socket, "after \(index)") }
        // New connections: the other CA's certificate, refused by a client trusting only the first CA.
        do {
            let refused = try await WebSocket.connect(to: url, options: try Self.clientOptions(trusting: [pki.ca]))
            Issue.record("a client trusting only the first CA connected after the reload: \(refused)")
        } catch let error as WebSocketError {
            guard case .tls(let failure) = error else { throw error }
            #expect(failure.kind == .unknownIssuer)
        }
        let fresh = try await WebSocket.connect(to: url, options: try Self.clientOptions(trusting: [pki.otherCA]))
        try await Self.echo(fresh, "new certificate")

        // A reload with a key that does not match the certificate fails and changes nothing.
        #expect(throws: WebSocketError.self) {
            try context.reload(.server(certificateChain: .bytes(pki.server.certificatePEM), privateKey: .bytes(pki.fromOtherCA.keyPEM)))
        }
        let still = try await WebSocket.connect(to: url, options: try Self.clientOptions(trusting: [pki.otherCA]))
        try await Self.echo(still, "certificate kept")
        for (index, socket) in open.enumerated() { try await Self.echo(socket, "at the end \(index)") }
        for socket in open + [fresh, still] { try await socket.close() }
    }
}
#endif
