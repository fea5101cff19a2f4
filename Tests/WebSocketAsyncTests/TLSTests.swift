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

/// TLS for the face tests: servers present a certificate of the test PKI; clients verify against
/// its CA only (verification on, the name checked).
enum FaceTLS {
    static func serverSetup(_ identity: TestIdentity = TestPKI.shared.server) throws -> ServerSetup {
        var setup = ServerSetup()
        setup.options.tls = try TLSContext(.server(certificateChain: identity.certificate, privateKey: identity.key))
        return setup
    }

    static func clientOptions() throws -> TransportOptions {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only([TestPKI.shared.ca.certificate])
        var options = Harness.options()
        options.tls = try TLSContext(configuration)
        return options
    }

    static func clientSetup() throws -> ClientSetup {
        var setup = ClientSetup()
        setup.options = try clientOptions()
        return setup
    }
}

/// wss:// on every face in both roles, with the test PKI: verified, and refused when the name or
/// the issuer is wrong.
@Suite("wss:// on every face", .timeLimit(.minutes(3)))
struct TLSTests {
    @Test("wss:// echoes and closes cleanly for every pair of faces, verifying the server's certificate", arguments: FacePair.all)
    func echo(_ pair: FacePair) async throws {
        try await withServer(pair.server, try FaceTLS.serverSetup()) { server in
            let client = try await FaceClient.connect(pair.client, to: server.url("/tls", scheme: "wss", host: "localhost"),
                                                      try FaceTLS.clientSetup())
            try client.expectOpen()
            let sent: [WebSocketMessage] = [.text("over TLS"), .binary(Harness.bytes(200_000, seed: 4))]
            for message in sent { try await client.send(message) }
            #expect(try await client.log.messages(2) == sent)
            #expect(try await client.close() == Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true))
            if let socket = client.webSocket { #expect(socket.transportFailure == nil) }
            let serverSide = try await server.log.connection()
            #expect(try await serverSide.closeStatus().wasClean)
            #expect(serverSide.messages == sent)
        }
    }

    @Test("A certificate for other names is refused (nameMismatch); no connection reaches the server", arguments: ClientFace.allCases)
    func wrongName(_ face: ClientFace) async throws {
        try await withServer(.loop, try FaceTLS.serverSetup(TestPKI.shared.wildcards)) { server in
            let client = try await FaceClient.connect(face, to: server.url("/", scheme: "wss", host: "localhost"), try FaceTLS.clientSetup())
            guard case .failed(.tls(let error))? = client.log.events.first else {
                throw FaceFailure("connected to a server of another name: \(client.log.events.map(Harness.brief))")
            }
            #expect(error.kind == .nameMismatch(expected: "localhost"))
            #expect(server.log.connections.isEmpty)
        }
    }

    @Test("A certificate from a CA the client does not trust is refused (unknownIssuer)", arguments: ClientFace.allCases)
    func untrusted(_ face: ClientFace) async throws {
        try await withServer(.loop, try FaceTLS.serverSetup(TestPKI.shared.fromOtherCA)) { server in
            let client = try await FaceClient.connect(face, to: server.url("/", scheme: "wss", host: "localhost"), try FaceTLS.clientSetup())
            guard case .failed(.tls(let error))? = client.log.events.first else {
                throw FaceFailure("connected to an untrusted server: \(client.log.events.map(Harness.brief))")
            }
            #expect(error.kind == .unknownIssuer)
        }
    }

    @Test("Plain HTTP and garbage to a TLS server are dropped; the server goes on serving wss", arguments: ServerFace.nonBlocking)
    func notTLSIsDropped(_ face: ServerFace) async throws {
        try await withServer(face, try FaceTLS.serverSetup()) { server in
            let plain = try RawSocket.connect(port: server.port)
            plain.write(Array("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n".utf8))
            #expect(try await Harness.offPool { plain.readUntilEOF(timeout: Harness.patience) })
            let garbage = try RawSocket.connect(port: server.port)
            garbage.write([UInt8](repeating: 0x16, count: 3000))
            #expect(try await Harness.offPool { garbage.readUntilEOF(timeout: Harness.patience) })
            let client = try await FaceClient.connect(.async, to: server.url("/", scheme: "wss", host: "localhost"), try FaceTLS.clientSetup())
            try client.expectOpen()
            try await client.send(.text("still serving"))
            #expect(try await client.log.messages(1) == [.text("still serving")])
            #expect(try await client.close().wasClean)
            _ = try await server.log.connection(0)
            #expect(server.log.connections.count == 1)
        }
    }

    @Test("wss through an HTTP CONNECT proxy: TLS to the server inside the tunnel", arguments: ClientFace.allCases)
    func throughAProxy(_ face: ClientFace) async throws {
        try await withServer(.loop, try FaceTLS.serverSetup()) { server in
            let proxy = try TestProxy(.httpConnect, connections: 1)
            var setup = try FaceTLS.clientSetup()
            setup.options.proxy = try .url("http://127.0.0.1:\(proxy.port)")
            let client = try await FaceClient.connect(face, to: server.url("/", scheme: "wss", host: "localhost"), setup)
            try client.expectOpen()
            try await client.send(.text("TLS in a tunnel"))
            #expect(try await client.log.messages(1) == [.text("TLS in a tunnel")])
            #expect(try await client.close().wasClean)
            #expect(proxy.requests == ["CONNECT localhost:\(server.port)"])
        }
    }
}
#endif
