// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import TransportTestSupport
@testable import WebSocketCore
@testable import WebSocketTransport

/// `SocketSession.read(from:into:at:)` reads the opening handshake's head where it lies in the read
/// buffer when nothing stands between the socket and the connection, and copies only what follows
/// it; with a PROXY header awaited, or a layer, everything goes the usual way.
@Suite("SocketSession: the opening handshake's head read where it lies")
struct SocketSessionHeadReadTests {
    /// Writes `bytes` into `writer`, then has `session` read `reader` into a buffer of `size`
    /// bytes, the buffer overwritten once read (as a loop's is by its next read).
    static func read(_ bytes: [UInt8], into session: inout SocketSession, writer: Socket, reader: Socket, size: Int = 4096)
        throws -> SocketSession.SocketRead
    {
        var written = 0
        while written < bytes.count {
            written += try bytes[written...].withUnsafeBytes { try writer.writeSome($0) }
        }
        var buffer = [UInt8](repeating: 0, count: size)
        return buffer.withUnsafeMutableBytes { raw in
            let read = session.read(from: reader, into: raw, at: .zero)
            raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
            return read
        }
    }

    /// A masked binary frame with `payload`, as a client writes it.
    static func clientBinary(_ payload: [UInt8]) -> [UInt8] {
        let key: [UInt8] = [9, 8, 7, 6]
        return [0x82, 0x80 | UInt8(payload.count)] + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    @Test("A server's request and a frame after it: the request read where it lies, no inbox for it, the frame kept for after the decision")
    func serverRequest() throws {
        var (session, client) = try SessionRig.accepted()
        #expect(session.readsHeadWhereItLies)
        let request = client.takeSocketOutput()
        let (writer, reader) = try socketPair(system: .live)
        defer { writer.close(); reader.close() }

        // The first half: the parser keeps the rest of its line, the connection no inbox.
        let half = request.count / 2
        guard case .taken(half) = try Self.read(Array(request[..<half]), into: &session, writer: writer, reader: reader) else {
            throw PipelineTestFailure("not taken")
        }
        #expect(session.pipeline.connection.inbox.capacity == 0)
        #expect(session.pullAll().isEmpty)

        // The rest, and a frame: the request to decide on, the frame copied for after it.
        let frame = Self.clientBinary([1, 2, 3])
        let rest = Array(request[half...]) + frame
        guard case .taken(rest.count) = try Self.read(rest, into: &session, writer: writer, reader: reader) else {
            throw PipelineTestFailure("not taken")
        }
        let connection = session.pipeline.connection
        #expect(connection.inbox.count - connection.inboxStart == frame.count)
        let pulled = session.pullAll()
        guard pulled.count == 1, case .decide(let request) = pulled[0] else { throw PipelineTestFailure("\(pulled)") }
        #expect(request.resource == "/chat")
        session.respond(to: .accept())
        #expect(session.pullAll() == [.event(.open(try #require(session.handshake))), .event(.message(.binary([1, 2, 3])))])
        #expect(session.stage == .open)
    }

    @Test("A whole request in one read leaves the server no inbox; copied in, it took one")
    func wholeRequest() throws {
        var (session, client) = try SessionRig.accepted()
        let request = client.takeSocketOutput()
        let (writer, reader) = try socketPair(system: .live)
        defer { writer.close(); reader.close() }
        _ = try Self.read(request, into: &session, writer: writer, reader: reader)
        #expect(session.pipeline.connection.inbox.capacity == 0)
        guard case .decide? = session.pullAll().first else { throw PipelineTestFailure("no decision") }

        // The same request given the usual way.
        var (copied, _) = try SessionRig.accepted()
        request.withUnsafeBytes { copied.received($0) }
        #expect(copied.pipeline.connection.inbox.capacity >= request.count)
        guard case .decide? = copied.pullAll().first else { throw PipelineTestFailure("no decision") }
    }

    @Test("A client's response and the server's first frame: the response read where it lies, the frame read after it")
    func clientResponse() throws {
        var session = try SessionRig.connected()
        #expect(session.readsHeadWhereItLies)
        var server = try SessionRig.server()
        session.write(to: &server, at: .zero)
        _ = server.pullEvents()
        try server.connection.respond(to: .accept())
        try server.connection.send(text: "hello")
        let wire = server.takeSocketOutput()
        let (writer, reader) = try socketPair(system: .live)
        defer { writer.close(); reader.close() }
        _ = try Self.read(wire, into: &session, writer: writer, reader: reader)
        let events = session.pullEvents()
        guard events.count == 2, case .open = events[0] else { throw PipelineTestFailure("\(events)") }
        #expect(events[1] == .message(.text("hello")))
    }

    @Test("With a PROXY header awaited, the head is not read where it lies: the header first, then the request, as before")
    func proxyHeaderFirst() throws {
        var transport = TransportOptions()
        transport.proxyProtocol = try TrustedProxies(["10.0.0.0/8"])
        var (session, client) = try SessionRig.accepted(transport: transport)
        session.expectProxyHeader(from: PP.address("10.0.0.1", 40_000), options: transport)
        #expect(session.awaitsProxyHeader)
        #expect(!session.readsHeadWhereItLies)
        let header = Array("PROXY TCP4 192.0.2.1 10.0.0.2 5000 80\r\n".utf8)
        let (writer, reader) = try socketPair(system: .live)
        defer { writer.close(); reader.close() }
        _ = try Self.read(header + client.takeSocketOutput(), into: &session, writer: writer, reader: reader)
        #expect(session.proxied != nil)
        guard case .decide(let request)? = session.pullAll().first else { throw PipelineTestFailure("no decision") }
        #expect(request.resource == "/chat")
    }
}
