// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

/// A layer for tests, with the shape of a TLS session: a one-byte handshake each way (`H`), each data
/// byte sent as a zero byte then the byte XORed with 0x5A (so that the wire differs from the data),
/// `F` to end the stream cleanly (close_notify), and anything else from the peer, `X` say, fails it
/// (answered with an alert, `A`).
struct ToyLayer: TransportLayer {
    private(set) var status = TransportLayerStatus.establishing
    private var inbound: [UInt8] = []
    private var output: [UInt8] = Array("H".utf8)
    private var escaped = false

    mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            switch status {
            case .establishing:
                if byte == UInt8(ascii: "H") { status = .established } else { fail() }
            case .established:
                if escaped {
                    inbound.append(byte ^ 0x5A)
                    escaped = false
                } else if byte == 0 {
                    escaped = true
                } else if byte == UInt8(ascii: "F") {
                    status = .ended(clean: true)
                } else {
                    fail()
                }
            case .ended, .failed:
                return
            }
        }
    }

    private mutating func fail() {
        status = .failed(.tls(TLSError(.protocolError, reason: "toy")))
        output.append(UInt8(ascii: "A"))
    }

    mutating func receiveEOF() {
        switch status {
        case .establishing: status = .failed(.tls(TLSError(.handshakeFailed, reason: "closed")))
        case .established: status = .ended(clean: false)
        case .ended, .failed: break
        }
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, inbound.count)
        buffer.copyBytes(from: inbound[..<count])
        inbound.removeFirst(count)
        return count
    }

    mutating func send(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { output += [0, byte ^ 0x5A] }
    }

    mutating func finishSending() {
        output.append(UInt8(ascii: "F"))
    }

    var pendingOutputCount: Int { output.count }

    mutating func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        let written = output.withUnsafeBytes { write($0) }
        output.removeFirst(min(max(written, 0), output.count))
    }
}

struct ToyFactory: TLSLayerFactory {
    let names = Names()
    final class Names: @unchecked Sendable { var list: [String] = [] }

    func makeClientLayer(serverName: String) throws(WebSocketError) -> any TransportLayer {
        names.list.append(serverName)
        return ToyLayer()
    }
    func makeServerLayer() throws(WebSocketError) -> any TransportLayer { ToyLayer() }
}

/// Moves everything `from` has for its socket into `to`, `chunk` bytes at a time; returns the bytes.
@discardableResult
func transfer(_ from: inout ConnectionPipeline, _ to: inout ConnectionPipeline, chunk: Int = .max) -> [UInt8] {
    from.update()
    var moved: [UInt8] = []
    while from.socketOutputCount > 0 {
        from.withSocketOutput { (bytes: UnsafeRawBufferPointer) -> Int in
            let count = min(chunk, bytes.count)
            moved += bytes[..<count]
            return count
        }
        from.update()
    }
    var offset = 0
    while offset < moved.count {
        let end = min(moved.count, offset + chunk)
        moved[offset..<end].withUnsafeBytes { to.receive($0) }
        offset = end
    }
    return moved
}

func events(_ pipeline: inout ConnectionPipeline) -> [Connection.Event] {
    var all: [Connection.Event] = []
    while let event = pipeline.connection.nextEvent() { all.append(event) }
    pipeline.update()
    return all
}

let secureURL = WebSocketURL(isSecure: true, host: "example.com", resource: "/chat")

func securePair(chunk: Int = .max) throws -> (client: ConnectionPipeline, server: ConnectionPipeline) {
    var transport = TransportOptions()
    transport.tls = ToyFactory()
    var client = try ConnectionPipeline.client(Connection.ClientOptions(url: secureURL), configuration: Connection.Configuration(),
                                               transport: transport)
    var server = try ConnectionPipeline.server(configuration: Connection.Configuration(), transport: transport)
    client.advanceTime(to: .zero)
    server.advanceTime(to: .zero)
    transfer(&client, &server, chunk: chunk)
    transfer(&server, &client, chunk: chunk)
    transfer(&client, &server, chunk: chunk)
    guard case .handshakeRequest? = events(&server).first else { throw PipelineTestFailure("no request") }
    try server.connection.accept()
    _ = events(&server)
    transfer(&server, &client, chunk: chunk)
    guard case .handshakeCompleted? = events(&client).first else { throw PipelineTestFailure("no 101") }
    return (client, server)
}

struct PipelineTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("The connection pipeline: layers under a Connection, and the socket's directive")
struct ConnectionPipelineTests {
    @Test("Without layers, bytes go straight between the socket and the connection")
    func plain() throws {
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: WebSocketURL(host: "example.com")),
                                                   configuration: Connection.Configuration(), transport: TransportOptions())
        #expect(!client.hasLayers)
        #expect(client.socketOutputCount == client.connection.pendingOutputCount)
        let request = client.takeSocketOutput()
        #expect(String(decoding: request, as: UTF8.self).hasPrefix("GET / HTTP/1.1\r\n"))
        #expect(client.pendingOutputCount == 0)
    }

    @Test("A wss URL gets a TLS layer for its host; without a factory it is refused, never downgraded")
    func secureURLs() throws {
        #expect(throws: WebSocketError.tlsUnavailable) {
            _ = try ConnectionPipeline.client(Connection.ClientOptions(url: secureURL), configuration: Connection.Configuration(),
                                              transport: TransportOptions())
        }
        let factory = ToyFactory()
        var transport = TransportOptions()
        transport.tls = factory
        let zoned = try WebSocketURL(parsing: "wss://[fe80::1%25eth0]:9443/")
        let pipeline = try ConnectionPipeline.client(Connection.ClientOptions(url: zoned), configuration: Connection.Configuration(),
                                                     transport: transport)
        #expect(pipeline.hasLayers)
        // The name a certificate is checked against: the address, without its zone.
        #expect(factory.names.list == ["fe80::1"])
    }

    @Test("The connection's output waits until the layer is established; the layer's handshake goes first",
          arguments: [1, 3, Int.max])
    func handshakeFirst(chunk: Int) throws {
        var transport = TransportOptions()
        transport.tls = ToyFactory()
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: secureURL), configuration: Connection.Configuration(),
                                                   transport: transport)
        client.update()
        #expect(client.socketOutputCount == 1)  // "H" only
        #expect(client.connection.pendingOutputCount > 0)  // the HTTP request waits above the layer
        var (opened, server) = try securePair(chunk: chunk)
        try opened.connection.send(text: "through the layer")
        transfer(&opened, &server, chunk: chunk)
        #expect(events(&server) == [.text("through the layer")])
        try server.connection.send(binary: [1, 2, 3])
        transfer(&server, &opened, chunk: chunk)
        #expect(events(&opened) == [.binary([1, 2, 3])])
    }

    @Test("A clean close: the layers end their streams (close_notify) before the server half-closes, then drain")
    func cleanClose() throws {
        var (client, server) = try securePair()
        try client.connection.close()
        transfer(&client, &server)
        _ = events(&server)
        // The server's Close reply and its layer's "F" must be written before it shuts down writing.
        #expect(server.socketDirective == .open)
        let written = transfer(&server, &client)
        #expect(written.last == UInt8(ascii: "F"))
        #expect(server.socketDirective == .shutDownWrite)
        server.didShutDownWrite()
        guard case .drain = server.socketDirective else { throw PipelineTestFailure("\(server.socketDirective)") }
        // The client read the server's Close and its "F": its layer ended cleanly after the closing
        // handshake, which closes the transport cleanly.
        let clientEvents = events(&client)
        #expect(clientEvents.contains { if case .closed(let status) = $0 { status.wasClean } else { false } })
        #expect(client.socketDirective == .close)
        server.receiveEOF()
        _ = events(&server)
        #expect(server.socketDirective == .close)
        guard case .closed(let status) = server.connection.state else { throw PipelineTestFailure("open") }
        #expect(status.wasClean)
    }

    @Test("A layer's clean end before the closing handshake is a lost connection (1006)")
    func endBeforeClose() throws {
        var (client, _) = try securePair()
        Array("F".utf8).withUnsafeBytes { client.receive($0) }
        let all = events(&client)
        #expect(all.last == .closed(Connection.CloseStatus(code: .abnormalClosure, reason: "connection closed without a close frame",
                                                wasClean: false, failure: .unexpectedEndOfStream)))
        #expect(client.failure == nil)
        #expect(client.socketDirective == .close)
    }

    @Test("A layer that fails aborts the connection; its alert is still written, nothing from the connection")
    func layerFailure() throws {
        var (client, _) = try securePair()
        try client.connection.send(text: "never sent")
        Array("X".utf8).withUnsafeBytes { client.receive($0) }
        #expect(client.failure == .tls(TLSError(.protocolError, reason: "toy")))
        #expect(client.connection.pendingOutputCount == 0)
        #expect(client.socketDirective == .close)
        #expect(client.takeSocketOutput() == Array("A".utf8))
        guard case .closed(let status) = client.connection.state else { throw PipelineTestFailure("open") }
        #expect(status.failure == .aborted)
    }

    @Test("A socket that fails: the connection is aborted and nothing more is written")
    func socketFailure() throws {
        var (client, _) = try securePair()
        try client.connection.send(text: "queued")
        client.fail(.transport(.connectionReset))
        #expect(client.failure == .transport(.connectionReset))
        #expect(client.pendingOutputCount == 0)
        #expect(client.socketOutputCount == 0)
        #expect(client.takeSocketOutput().isEmpty)
        #expect(client.socketDirective == .close)
        // Later input is ignored.
        Array("zz".utf8).withUnsafeBytes { client.receive($0) }
        #expect(client.connection.bufferedInputCount == 0)
    }

    @Test("The layer takes at most its mark from the connection; the rest stays as backpressure")
    func layerBackpressure() throws {
        var (client, _) = try securePair()
        let mark = ConnectionPipeline.layerOutputMark
        try client.connection.send(binary: [UInt8](repeating: 7, count: 3 * mark))
        let queued = client.connection.pendingOutputCount
        client.update()
        // The toy layer writes two bytes per byte it takes.
        #expect(queued - client.connection.pendingOutputCount == mark)
        #expect(client.socketOutputCount == 2 * mark)
        #expect(client.pendingOutputCount == client.connection.pendingOutputCount + client.socketOutputCount)
        client.update()
        #expect(queued - client.connection.pendingOutputCount == mark)  // the layer is over its mark
        #expect(client.takeSocketOutput().count == 2 * mark)
        client.update()
        #expect(queued - client.connection.pendingOutputCount == 2 * mark)
    }

    @Test("End of stream during the layer's handshake is the layer's failure")
    func eofDuringLayerHandshake() throws {
        var transport = TransportOptions()
        transport.tls = ToyFactory()
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: secureURL), configuration: Connection.Configuration(),
                                                   transport: transport)
        client.receiveEOF()
        #expect(client.failure == .tls(TLSError(.handshakeFailed, reason: "closed")))
        #expect(client.socketDirective == .close)
    }

    @Test("Without layers the directive follows the connection: drain for a server, close at EOF")
    func plainDirective() throws {
        var server = try ConnectionPipeline.server(configuration: Connection.Configuration(), transport: TransportOptions())
        server.advanceTime(to: .zero)
        Array("GET / HTTP/1.0\r\n\r\n".utf8).withUnsafeBytes { server.receive($0) }
        _ = events(&server)
        #expect(server.socketDirective == .open)  // the 505 response is not written yet
        _ = server.takeSocketOutput()
        #expect(server.socketDirective == .shutDownWrite)
        server.didShutDownWrite()
        // The linger counts from the next time report, which the connection asks for at once.
        #expect(server.socketDirective == .drain(deadline: nil))
        #expect(server.nextDeadline == .zero)
        server.advanceTime(to: .zero)
        #expect(server.socketDirective == .drain(deadline: Connection.Instant(sinceOrigin: .seconds(2))))
        server.advanceTime(to: Connection.Instant(sinceOrigin: .seconds(2)))
        #expect(server.socketDirective == .close)
    }
}
