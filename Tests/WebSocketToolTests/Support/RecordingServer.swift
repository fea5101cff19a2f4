// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX

/// A WebSocket server in the test process (the library's ``BlockingWebSocketServer``) for the tool's
/// `connect` to talk to. It records what the tests assert on: each handshake request (so its Origin,
/// Authorization, Sec-WebSocket-Protocol and custom headers), each message and control frame
/// received, and how each connection ended (the close code the tool sent). By default it echoes.
final class RecordingServer: Sendable {
    /// What the server has seen so far.
    struct Record: Sendable {
        var requests: [Connection.HandshakeRequest] = []
        /// Every message received, on every connection, in order (pings too when the server was
        /// made with `receivesControlFrames`).
        var messages: [WebSocketMessage] = []
        /// How each finished connection ended, as the server saw it: the code is the client's.
        var closeStatuses: [Connection.CloseStatus] = []
        /// Connections past the handshake, open or not.
        var connections = 0

        var texts: [String] { messages.compactMap { if case .text(let text) = $0 { text } else { nil } } }
        var binaries: [[UInt8]] { messages.compactMap { if case .binary(let bytes) = $0 { bytes } else { nil } } }
        var pings: [[UInt8]] { messages.compactMap { if case .ping(let bytes) = $0 { bytes } else { nil } } }
        /// The close codes the clients sent, in the order the connections ended.
        var closeCodes: [UInt16] { closeStatuses.map(\.code.rawValue) }
    }

    private let server: BlockingWebSocketServer
    private let record = Locked(Record())
    private let sockets = Locked<[BlockingWebSocket]>([])
    private let finished = Locked(false)

    /// Starts a server on 127.0.0.1 and a free port.
    ///
    /// - Parameters:
    ///   - echoes: sends every text and binary message back.
    ///   - receivesControlFrames: records pings (the library still answers them).
    ///   - answersPings: answers pings with pongs (off: a peer whose keepalive must time out).
    ///   - extensions: the extensions it agrees to (permessage-deflate, for `--deflate`).
    ///   - subprotocols: the ones it speaks: it accepts the first the client offers among them.
    ///   - decide: overrides the handshake decision (to reject with a status, say).
    ///   - onOpen: runs on each connection's thread once it is open, with its index (0 for the
    ///     first), before the server starts reading it: to send first, or close at once.
    init(echoes: Bool = true, receivesControlFrames: Bool = false, answersPings: Bool = true,
         extensions: [any WebSocketExtension] = [], subprotocols: [String] = [],
         decide: (@Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision)? = nil,
         onOpen: @escaping @Sendable (Int, BlockingWebSocket) -> Void = { _, _ in }) throws {
        var configuration = Connection.Configuration()
        configuration.timeouts.handshake = .seconds(30)
        configuration.timeouts.close = .seconds(10)
        configuration.respondsToPingsAutomatically = answersPings
        configuration.extensions = extensions
        var options = TransportOptions()
        options.receivesControlFrames = receivesControlFrames
        options.writeTimeout = .seconds(30)
        server = try BlockingWebSocketServer(host: "127.0.0.1", port: 0, configuration: configuration, options: options)
        let record = self.record, sockets = self.sockets, finished = self.finished, server = self.server
        let handshake: @Sendable (Connection.HandshakeRequest) -> Connection.HandshakeDecision = { request in
            record.withLock { $0.requests.append(request) }
            record.broadcast()
            if let decide { return decide(request) }
            return .accept(subprotocol: request.subprotocols.first { subprotocols.contains($0) })
        }
        let handler: @Sendable (BlockingWebSocket) -> Void = { socket in
            let index = record.withLock { record in
                defer { record.connections += 1 }
                return record.connections
            }
            sockets.withLock { $0.append(socket) }
            sockets.broadcast()
            record.broadcast()
            onOpen(index, socket)
            while let message = try? socket.receive() {
                record.withLock { $0.messages.append(message) }
                record.broadcast()
                guard echoes else { continue }
                switch message {
                case .text(let text): try? socket.send(text: text)
                case .binary(let bytes): try? socket.send(binary: bytes)
                case .fragment, .ping, .pong, .close: break
                }
            }
            if let status = socket.closeStatus { record.withLock { $0.closeStatuses.append(status) } }
            record.broadcast()
        }
        try spawnDetachedThread {
            try? server.serve(handshake: handshake, handler: handler)
            finished.withLock { $0 = true }
            finished.broadcast()
        }
    }

    deinit {
        server.stop(closing: .goingAway)
        _ = finished.wait(until: { $0 }, deadline: elapsedClock() + .seconds(15), now: elapsedClock)
    }

    var port: UInt16 { server.port }

    /// `ws://127.0.0.1:PORT/resource`.
    func url(_ resource: String = "/") -> String { "ws://127.0.0.1:\(port)\(resource)" }

    /// A copy of what the server has seen so far.
    var seen: Record { record.withLock { $0 } }

    /// Waits until `condition` holds for what the server has seen; whether it did within `timeout`.
    func wait(timeout: Duration = generousTimeout, until condition: (Record) -> Bool) -> Bool {
        record.wait(until: condition, deadline: elapsedClock() + timeout, now: elapsedClock)
    }

    /// The server side of connection `index` (0 for the first), once it is open.
    func connection(_ index: Int, timeout: Duration = generousTimeout) -> BlockingWebSocket? {
        guard sockets.wait(until: { $0.count > index }, deadline: elapsedClock() + timeout, now: elapsedClock) else { return nil }
        return sockets.withLock { $0[index] }
    }

    /// Starts the closing handshake on connection `index` (its thread finishes it).
    func close(_ index: Int, code: Connection.CloseCode = .normalClosure, reason: String = "") {
        try? connection(index)?.sendClose(code: code, reason: reason)
    }
}
