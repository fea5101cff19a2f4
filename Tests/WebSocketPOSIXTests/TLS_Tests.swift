// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketTLS
import TLSTestSupport
import TransportTestSupport
@testable import WebSocketPOSIX

#if os(Linux)
/// Transport options that trust only the test CA (a client) or serve the test server certificate.
func tlsClientOptions(trusting roots: [TestIdentity] = [TestPKI.shared.ca],
                      configure: (inout TLSConfiguration) -> Void = { _ in }) throws -> TransportOptions {
    var configuration = TLSConfiguration.client()
    configuration.trustRoots = .only(roots.map(\.certificate))
    configure(&configuration)
    var options = testOptions()
    options.tls = try TLSContext(configuration)
    return options
}

func tlsServerOptions(_ identity: TestIdentity = TestPKI.shared.server) throws -> TransportOptions {
    var options = serverOptions()
    options.tls = try TLSContext(.server(certificateChain: identity.certificate, privateKey: identity.key))
    return options
}

/// A TLS WebSocket server run by hand over a raw socket, through a `ConnectionPipeline` (the
/// adapters' own machinery), so that a test decides exactly when TCP closes and whether a
/// close_notify goes first.
struct HandTLSServer {
    var pipeline: ConnectionPipeline
    let socket: Socket

    init(socket: Socket) throws {
        self.socket = socket
        pipeline = try ConnectionPipeline.server(configuration: testConfiguration(), transport: tlsServerOptions())
        pipeline.advanceTime(to: now())
    }

    /// Reads and answers until `isDone` holds for the events so far (the opening handshake is
    /// accepted), for at most 10 seconds.
    mutating func run(until isDone: ([Connection.Event]) -> Bool) throws -> [Connection.Event] {
        var events: [Connection.Event] = []
        let deadline = now() + .seconds(10)
        while !isDone(events), now() < deadline {
            flush()
            guard let bytes = try socket.readSome(timeout: .milliseconds(100)) else { continue }
            if bytes.isEmpty {
                pipeline.receiveEOF()
            } else {
                bytes.withUnsafeBytes { pipeline.receive($0) }
            }
            while let event = pipeline.connection.nextEvent() {
                if case .handshakeRequest = event { try pipeline.connection.accept() }
                events.append(event)
            }
            if bytes.isEmpty { break }
        }
        flush()
        return events
    }

    mutating func flush() {
        pipeline.update()
        while pipeline.socketOutputCount > 0 {
            try? socket.writeAll(pipeline.takeSocketOutput())
            pipeline.update()
        }
    }
}

/// wss:// over real sockets: the blocking client and server with the TLS layer under them.
@Suite("POSIX adapter over TLS (wss://)", .onTestThreads)
struct POSIXTLSTests {
    @Test("A wss echo: client and server verify, messages cross, the close is clean on both ends",
          arguments: ["localhost", "127.0.0.1"])
    func wssEcho(host: String) throws {
        let serverStatus = Mailbox<Connection.CloseStatus>()
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: tlsServerOptions())
        let running = try RunningServer(server, handler: { socket in
            echo(socket)
            if let status = socket.closeStatus { serverStatus.put(status) }
        })
        defer { #expect(running.stop()) }
        let client = try BlockingWebSocket.connect(to: "wss://\(host):\(running.port)/chat", configuration: testConfiguration(),
                                                   options: tlsClientOptions())
        try client.send(text: "over TLS")
        #expect(try client.receive() == .text("over TLS"))
        let big = pattern(300_000, seed: 4)
        try client.send(binary: big)
        #expect(try client.receive() == .binary(big))
        let status = try client.close()
        #expect(status.wasClean)
        #expect(client.transportFailure == nil)
        #expect(serverStatus.take()?.wasClean == true)
    }

    @Test("An untrusted server: the connect fails with the TLS error, never as a plain end of stream")
    func untrusted() throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: tlsServerOptions(TestPKI.shared.fromOtherCA))
        let running = try RunningServer(server)
        defer { #expect(running.stop()) }
        let failure = error {
            try BlockingWebSocket.connect(to: "wss://localhost:\(running.port)/", configuration: testConfiguration(),
                                          options: tlsClientOptions())
        }
        guard case .tls(let tlsError)? = failure else { throw TLSTestFailure("got \(String(describing: failure))") }
        #expect(tlsError.kind == .unknownIssuer)
        #expect(failure?.description.hasPrefix("TLS: certificate is not signed by a trusted authority") == true)
    }

    @Test("A certificate for another name: nameMismatch naming the host")
    func nameMismatch() throws {
        let server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: testConfiguration(),
                                                 options: tlsServerOptions(TestPKI.shared.addressAsName))
        let running = try RunningServer(server)
        defer { #expect(running.stop()) }
        let failure = error {
            try BlockingWebSocket.connect(to: "wss://127.0.0.1:\(running.port)/", configuration: testConfiguration(),
                                          options: tlsClientOptions())
        }
        guard case .tls(let tlsError)? = failure else { throw TLSTestFailure("got \(String(describing: failure))") }
        #expect(tlsError.kind == .nameMismatch(expected: "127.0.0.1"))
    }

    @Test("Plain HTTP and garbage to a TLS server are dropped; the server goes on serving wss")
    func notTLSIsDropped() throws {
        let faults = Faults()
        guard case .success(let addresses) = AddressResolution.resolve(host: "127.0.0.1", port: 0, passive: true) else {
            throw Errno.addressNotAvailable
        }
        do {
            let server = try BlockingWebSocketServer(addresses: addresses, unixSocketPath: nil, configuration: testConfiguration(),
                                                     options: tlsServerOptions(), backlog: 16, system: faults.system)
            let running = try RunningServer(server)
            defer { #expect(running.stop()) }
            // A plain ws:// client: its handshake fails, the server drops the connection.
            let plain = error { try BlockingWebSocket.connect(to: "ws://127.0.0.1:\(running.port)/", options: testOptions()) }
            #expect(plain != nil)
            // Garbage: dropped.
            let raw = try rawConnect(port: running.port)
            try raw.writeAll(Array(repeating: 0x17, count: 5000))
            #expect(try raw.readToEnd(timeout: .seconds(10)).sawEnd)
            // Others are unharmed.
            let client = try BlockingWebSocket.connect(to: "wss://localhost:\(running.port)/", configuration: testConfiguration(),
                                                       options: tlsClientOptions())
            try client.send(text: "still serving")
            #expect(try client.receive() == .text("still serving"))
            #expect(try client.close().wasClean)
        }
        #expect(faults.waitForDescriptorsClosed().isEmpty)
    }

    @Test("TCP closed without close_notify after the closing handshake: a clean close")
    func truncatedAfterClose() throws {
        let peer = try RawPeer { socket in
            guard var server = try? HandTLSServer(socket: socket) else { return }
            _ = try? server.run { $0.contains { if case .handshakeCompleted = $0 { true } else { false } } }
            try? server.pipeline.connection.close(code: .goingAway)
            _ = try? server.run { $0.contains { if case .closed = $0 { true } else { false } } }
            socket.close()  // no close_notify: the TLS stream is truncated
        }
        let client = try BlockingWebSocket.connect(to: "wss://localhost:\(peer.port)/", configuration: testConfiguration(),
                                                   options: tlsClientOptions())
        #expect(try client.receive() == nil)
        #expect(client.closeStatus == Connection.CloseStatus(code: .goingAway, reason: "", wasClean: true))
        #expect(peer.join())
    }

    @Test("TCP closed without close_notify before the closing handshake: 1006")
    func truncatedBeforeClose() throws {
        let peer = try RawPeer { socket in
            guard var server = try? HandTLSServer(socket: socket) else { return }
            _ = try? server.run { $0.contains { if case .handshakeCompleted = $0 { true } else { false } } }
            socket.close()
        }
        let client = try BlockingWebSocket.connect(to: "wss://localhost:\(peer.port)/", configuration: testConfiguration(),
                                                   options: tlsClientOptions())
        #expect(try client.receive() == nil)
        #expect(client.closeStatus?.code == .abnormalClosure)
        #expect(client.closeStatus?.failure == .unexpectedEndOfStream)
        #expect(peer.join())
    }

    @Test("wss:// without a TLS layer is refused, never downgraded; a TLS server checks its layer at once")
    func configurationErrors() throws {
        #expect(error { try BlockingWebSocket.connect(to: "wss://localhost:1/") } == .tlsUnavailable)
        var options = TransportOptions()
        options.tls = try TLSContext(.client())
        let failure = error { try BlockingWebSocketServer(host: "127.0.0.1", port: 0, options: options) }
        guard case .tls? = failure else { throw TLSTestFailure("a client context served: \(String(describing: failure))") }
    }
}

struct TLSTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
#endif
