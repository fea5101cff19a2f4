// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

// Driving a `SocketSession` without sockets: its socket's bytes go to and come from a peer
// `ConnectionPipeline` through byte buffers, the time is a number the test steps, and its actions
// are pulled as an adapter pulls them.

/// The instant `milliseconds` after the tests' origin.
func at(_ milliseconds: Int) -> Connection.Instant {
    Connection.Instant(sinceOrigin: .milliseconds(milliseconds))
}

/// One action a session handed out, comparable; a resumption is run when it is pulled (its
/// completion records what it got), as an adapter runs it.
enum Pulled: Equatable, CustomStringConvertible {
    case event(WebSocketEvent)
    case decide(Connection.HandshakeRequest)
    case resumed

    var description: String {
        switch self {
        case .event(let event): return "event(\(event))"
        case .decide(let request): return "decide(\(request.resource))"
        case .resumed: return "resumed"
        }
    }
}

/// What completions were resumed with, in the order they ran.
final class Outcomes<Value: Sendable>: Sendable {
    struct Outcome: Sendable {
        var label: String
        var result: Result<Value, WebSocketError>
    }

    private let list = Locked<[Outcome]>([])

    /// A completion that records its result under `label`.
    func completion(_ label: String) -> SessionCompletion<Value> {
        { [list] result in list.withLock { $0.append(Outcome(label: label, result: result)) } }
    }

    var all: [Outcome] { list.withLock { $0 } }
    var labels: [String] { all.map(\.label) }

    /// The result recorded under `label`, if it ran (once).
    func result(_ label: String) -> Result<Value, WebSocketError>? {
        let matching = all.filter { $0.label == label }
        #expect(matching.count <= 1, "\(label) resumed \(matching.count) times")
        return matching.first?.result
    }

    /// The error `label` was resumed with, if it failed.
    func error(_ label: String) -> WebSocketError? {
        guard case .failure(let error)? = result(label) else { return nil }
        return error
    }
}

extension SocketSession {
    /// Pulls every action until `nil`, running resumptions.
    mutating func pullAll() -> [Pulled] {
        var pulled: [Pulled] = []
        while let action = nextAction() {
            switch action {
            case .deliver(let event): pulled.append(.event(event))
            case .decide(let request): pulled.append(.decide(request))
            case .resume(let resumption):
                resumption.run()
                pulled.append(.resumed)
            }
        }
        return pulled
    }

    /// The events among the actions pulled until `nil` (resumptions run).
    mutating func pullEvents() -> [WebSocketEvent] {
        pullAll().compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// Writes everything the socket would take into `peer` (a socket that takes it all), then
    /// reports the round; returns the bytes written.
    @discardableResult
    mutating func write(to peer: inout ConnectionPipeline, at now: Connection.Instant) -> Int {
        var moved: [UInt8] = []
        pipeline.update()
        while pipeline.socketOutputCount > 0 {
            moved += pipeline.takeSocketOutput()
            pipeline.update()
        }
        wroteRound(moved.count, at: now)
        moved.withUnsafeBytes { peer.receive($0) }
        return moved.count
    }

    /// Writes `count` bytes of what the socket would take (a socket that takes no more), then
    /// reports the round; returns the bytes written.
    @discardableResult
    mutating func writeSome(_ count: Int, at now: Connection.Instant) -> [UInt8] {
        var written: [UInt8] = []
        pipeline.update()
        while written.count < count, pipeline.socketOutputCount > 0 {
            pipeline.withSocketOutput { (bytes: UnsafeRawBufferPointer) -> Int in
                let taken = min(count - written.count, bytes.count)
                written += bytes[..<taken]
                return taken
            }
            pipeline.update()
        }
        wroteRound(written.count, at: now)
        return written
    }

    /// Reads everything `peer` has for its socket, at `now`.
    mutating func read(from peer: inout ConnectionPipeline, at now: Connection.Instant) {
        peer.update()
        var moved: [UInt8] = []
        while peer.socketOutputCount > 0 {
            moved += peer.takeSocketOutput()
            peer.update()
        }
        moved.withUnsafeBytes { received($0) }
        advanceTime(to: now)
    }
}

extension ConnectionPipeline {
    /// The connection's events until `nil`.
    mutating func pullEvents() -> [Connection.Event] {
        var all: [Connection.Event] = []
        while let event = connection.nextEvent() { all.append(event) }
        update()
        return all
    }
}

/// A session and the peer at the other end of its socket.
struct SessionRig {
    static let url = WebSocketURL(host: "example.com", resource: "/chat")

    static func address(_ name: String) throws -> SocketAddress {
        try SocketAddress.unix(path: "/tmp/\(name).sock")
    }

    static func settings(_ transport: TransportOptions = TransportOptions(),
                         configuration: Connection.Configuration = Connection.Configuration(),
                         consumerHolds: Bool = false) -> SocketSession.Settings {
        SocketSession.Settings(options: transport, configuration: configuration, consumerHolds: consumerHolds)
    }

    /// A client session for `url`, resolving.
    static func client(_ url: WebSocketURL = url, transport: TransportOptions = TransportOptions(),
                       configuration: Connection.Configuration = Connection.Configuration(),
                       consumerHolds: Bool = false) throws -> SocketSession {
        try SocketSession(client: Connection.ClientOptions(url: url), via: WebSocketEndpoint(url: url),
                          configuration: configuration, transport: transport,
                          settings: settings(transport, configuration: configuration, consumerHolds: consumerHolds))
    }

    /// A peer server's pipeline, its time reported.
    static func server(transport: TransportOptions = TransportOptions(),
                       configuration: Connection.Configuration = Connection.Configuration()) throws -> ConnectionPipeline {
        var server = try ConnectionPipeline.server(configuration: configuration, transport: transport)
        server.advanceTime(to: .zero)
        return server
    }

    /// A client session connected at `.zero` (its socket is connected, the handshake runs).
    static func connected(_ url: WebSocketURL = url, transport: TransportOptions = TransportOptions(),
                          configuration: Connection.Configuration = Connection.Configuration(),
                          consumerHolds: Bool = false) throws -> SocketSession {
        var session = try client(url, transport: transport, configuration: configuration, consumerHolds: consumerHolds)
        session.resolved([try address("a")], at: .zero)
        session.connected(at: .zero)
        return session
    }

    /// Runs a client session's opening handshake against `server` (through its layers, a few rounds),
    /// which answers with `decision`; returns what the session handed out meanwhile.
    static func handshake(_ session: inout SocketSession, with server: inout ConnectionPipeline,
                          answer decision: Connection.HandshakeDecision = .accept(),
                          at now: Connection.Instant = .zero) throws -> [Pulled] {
        try handshake(&session, with: &server, at: now) { _ in decision }
    }

    /// As above, the answer chosen for the request.
    static func handshake(_ session: inout SocketSession, with server: inout ConnectionPipeline,
                          at now: Connection.Instant = .zero,
                          decide: (Connection.HandshakeRequest) -> Connection.HandshakeDecision) throws -> [Pulled] {
        var pulled: [Pulled] = []
        var answered = false
        for _ in 0..<4 {
            session.write(to: &server, at: now)
            for event in server.pullEvents() {
                guard case .handshakeRequest(let request) = event else { continue }
                try server.connection.respond(to: decide(request))
                answered = true
            }
            session.read(from: &server, at: now)
            pulled += session.pullAll()
        }
        guard answered else { throw PipelineTestFailure("no request") }
        return pulled
    }

    /// An open client session and its peer server.
    static func open(transport: TransportOptions = TransportOptions(),
                     configuration: Connection.Configuration = Connection.Configuration(),
                     peerConfiguration: Connection.Configuration = Connection.Configuration(),
                     consumerHolds: Bool = false) throws -> (session: SocketSession, peer: ConnectionPipeline) {
        var session = try connected(transport: transport, configuration: configuration, consumerHolds: consumerHolds)
        var server = try server(configuration: peerConfiguration)
        let pulled = try handshake(&session, with: &server)
        guard pulled.count == 1, case .event(.open)? = pulled.first, session.stage == .open else {
            throw PipelineTestFailure("not open: \(pulled)")
        }
        return (session, server)
    }

    /// A server session (its socket accepted at `.zero`) and a peer client's pipeline.
    static func accepted(transport: TransportOptions = TransportOptions(),
                         configuration: Connection.Configuration = Connection.Configuration(),
                         consumerHolds: Bool = false) throws -> (session: SocketSession, peer: ConnectionPipeline) {
        let pipeline = try ConnectionPipeline.server(configuration: configuration, transport: transport)
        var session = SocketSession(accepted: pipeline,
                                    settings: settings(transport, configuration: configuration, consumerHolds: consumerHolds))
        session.advanceTime(to: .zero)
        var client = try ConnectionPipeline.client(Connection.ClientOptions(url: url), configuration: Connection.Configuration(),
                                                   transport: TransportOptions())
        client.advanceTime(to: .zero)
        return (session, client)
    }
}

/// A peer's bytes to `session` after the peer sent `body`'s frames.
func peerSends(_ peer: inout ConnectionPipeline, to session: inout SocketSession, at now: Connection.Instant = .zero,
               _ body: (inout Connection) throws(Connection.UsageError) -> Void) throws {
    try body(&peer.connection)
    session.read(from: &peer, at: now)
}
