// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: phases, from resolving to the end, driven without sockets")
struct SocketSessionTests {
    @Test("A client starts resolving its target; nothing to do, read or time until it resolves")
    func resolving() throws {
        var session = try SessionRig.client()
        #expect(session.stage == .resolving)
        #expect(session.target == .endpoint(WebSocketEndpoint(url: SessionRig.url)))
        #expect(!session.isUnixSocket)
        #expect(session.nextAction() == nil)
        #expect(session.wantsInput == false)
        #expect(session.nextDeadline == nil)
        #expect(session.socketDirective == .open)
        #expect(session.connectAddress == nil)
        #expect(!session.isFinished)
        #expect(session.ending == nil)
        let unix = try WebSocketEndpoint(parsing: "ws+unix:///tmp/app.sock:/chat")
        let local = try SocketSession(client: Connection.ClientOptions(url: unix.url), via: unix,
                                      configuration: Connection.Configuration(), transport: TransportOptions(),
                                      settings: SessionRig.settings())
        #expect(local.isUnixSocket)
    }

    @Test("Connect attempts go through the addresses in order; the last error ends the session")
    func connectAttempts() throws {
        var transport = TransportOptions()
        transport.connectTimeout = .seconds(3)
        var session = try SessionRig.client(transport: transport)
        let (a, b) = (try SessionRig.address("a"), try SessionRig.address("b"))
        session.resolved([a, b], at: at(1000))
        #expect(session.stage == .connecting)
        #expect(session.connectAddress == a)
        #expect(session.nextDeadline == at(4000))
        #expect(session.socketDirective == .open)
        #expect(session.wantsInput == false)
        session.connectAttemptFailed(.connectionRefused)
        #expect(session.connectAddress == b)
        #expect(session.socketDirective == .open)
        session.connectAttemptFailed(.hostUnreachable)
        #expect(session.connectAddress == nil)
        #expect(session.socketDirective == .close)
        #expect(session.nextAction() == nil)
        let outcomes = Outcomes<Void>()
        session.waitForOpening(outcomes.completion("open"))
        guard case .ended(let ending) = session.finish() else { throw PipelineTestFailure("redirected") }
        #expect(ending == .failed(.connectFailed(b, .hostUnreachable)))
        #expect(session.stage == .finished)
        #expect(session.ending == ending)
        #expect(session.pullAll() == [.event(.failed(.connectFailed(b, .hostUnreachable))), .resumed])
        #expect(outcomes.error("open") == .connectFailed(b, .hostUnreachable))
        // Finished: once.
        guard case .ended(let again) = session.finish() else { throw PipelineTestFailure("redirected") }
        #expect(again == ending)
        #expect(session.nextAction() == nil)
        #expect(session.socketDirective == .close)
        // A wait for the opening now is resumed at once with why it never came.
        session.waitForOpening(outcomes.completion("late"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("late") == .connectFailed(b, .hostUnreachable))
    }

    @Test("A name that resolves to no address, or does not resolve, ends the session")
    func resolutionFails() throws {
        var empty = try SessionRig.client()
        empty.resolved([], at: .zero)
        #expect(empty.connectAddress == nil)
        #expect(empty.socketDirective == .close)
        #expect(empty.finish().ended == .failed(.addressResolutionFailed(host: "example.com", reason: "no address")))
        var failed = try SessionRig.client()
        failed.resolutionFailed(.addressResolutionFailed(host: "example.com", reason: "nope"))
        #expect(failed.socketDirective == .close)
        #expect(failed.finish().ended == .failed(.addressResolutionFailed(host: "example.com", reason: "nope")))
        #expect(failed.pullEvents() == [.failed(.addressResolutionFailed(host: "example.com", reason: "nope"))])
    }

    @Test("The connect timeout runs over every attempt: .timedOut(.connect) at its deadline, not before")
    func connectTimeout() throws {
        var transport = TransportOptions()
        transport.connectTimeout = .seconds(3)
        var session = try SessionRig.client(transport: transport)
        let address = try SessionRig.address("a")
        session.resolved([address, try SessionRig.address("b")], at: .zero)
        session.connectAttemptFailed(.connectionRefused)
        #expect(session.nextDeadline == at(3000))
        session.timerFired(at: at(2999))
        #expect(session.socketDirective == .open)
        #expect(session.connectAddress != nil)
        session.timerFired(at: at(3000))
        #expect(session.socketDirective == .close)
        #expect(session.connectAddress == nil)
        #expect(session.finish().ended == .failed(.timedOut(.connect)))
        #expect(session.pullEvents() == [.failed(.timedOut(.connect))])

        // Without a connect timeout, no deadline.
        transport.connectTimeout = nil
        var patient = try SessionRig.client(transport: transport)
        patient.resolved([address], at: .zero)
        #expect(patient.nextDeadline == nil)
        patient.timerFired(at: at(3_600_000))
        #expect(patient.connectAddress == address)
    }

    @Test("Connected: the handshake runs, its timer from the connect; input wanted, output the request")
    func connected() throws {
        var session = try SessionRig.client()
        session.resolved([try SessionRig.address("a")], at: .zero)
        session.connected(at: at(500))
        #expect(session.stage == .handshaking)
        #expect(session.connectAddress == nil)
        #expect(session.wantsInput == true)
        #expect(session.socketDirective == .open)
        // The opening handshake's default timeout, 10 s, from the connect.
        #expect(session.nextDeadline == at(10_500))
        #expect(session.bufferedAmount > 0)
        #expect(session.nextAction() == nil)
        var server = try SessionRig.server()
        session.write(to: &server, at: at(500))
        #expect(session.bufferedAmount == 0)
        guard case .handshakeRequest(let request)? = server.pullEvents().first else { throw PipelineTestFailure("no request") }
        #expect(request.resource == "/chat")
        #expect(request.host == "example.com")
    }

    @Test("The opening handshake: .open is delivered once, who waits for it is resumed, the phase is open")
    func opening() throws {
        var session = try SessionRig.connected()
        var server = try SessionRig.server()
        let outcomes = Outcomes<Void>()
        session.waitForOpening(outcomes.completion("before"))
        let pulled = try SessionRig.handshake(&session, with: &server, answer: .accept(headers: ["X-Peer": "1"]))
        // The event first, then the waiter.
        guard pulled.count == 2, case .event(.open(let result)) = pulled[0], pulled[1] == .resumed else {
            throw PipelineTestFailure("\(pulled)")
        }
        #expect(result.headers["X-Peer"] == "1")
        #expect(session.handshake == result)
        #expect(session.stage == .open)
        #expect(session.nextDeadline == nil)  // no keepalive, nothing to write
        #expect(session.wantsInput == true)
        #expect(session.socketDirective == .open)
        guard case .success? = outcomes.result("before") else { throw PipelineTestFailure("not resumed") }
        // Once open, a wait for the opening is resumed at once.
        session.waitForOpening(outcomes.completion("after"))
        #expect(session.pullAll() == [.resumed])
        guard case .success? = outcomes.result("after") else { throw PipelineTestFailure("not resumed") }
    }

    @Test("The opening handshake through a transport layer (TLS's shape), fed a byte at a time")
    func openingThroughLayer() throws {
        var transport = TransportOptions()
        transport.tls = ToyFactory()
        var session = try SessionRig.connected(secureURL, transport: transport)
        var server = try SessionRig.server(transport: transport)
        var pulled: [Pulled] = []
        for _ in 0..<4 {
            session.write(to: &server, at: .zero)
            for event in server.pullEvents() {
                if case .handshakeRequest = event { try server.connection.accept() }
            }
            server.update()
            let bytes = server.takeSocketOutput()
            for byte in bytes { [byte].withUnsafeBytes { session.received($0) } }
            pulled += session.pullAll()
        }
        guard pulled.count == 1, case .event(.open) = pulled[0] else { throw PipelineTestFailure("\(pulled)") }
        #expect(session.stage == .open)
        try session.send(.text("sealed"))
        session.write(to: &server, at: .zero)
        #expect(server.pullEvents() == [.text("sealed")])
    }

    @Test("A server session: .decide(request), nothing read meanwhile, then respond(to:) opens it")
    func server() throws {
        var (session, client) = try SessionRig.accepted()
        #expect(session.stage == .handshaking)
        #expect(session.target == nil)
        #expect(session.wantsInput == true)
        #expect(session.nextDeadline == at(10_000))
        session.read(from: &client, at: .zero)
        let pulled = session.pullAll()
        guard pulled.count == 1, case .decide(let request) = pulled[0] else { throw PipelineTestFailure("\(pulled)") }
        #expect(request.resource == "/chat")
        // The decision is pending: nothing more is read (the connection would only buffer it).
        #expect(session.wantsInput == false)
        #expect(session.nextAction() == nil)
        session.respond(to: .accept(headers: ["X-Server": "yes"]))
        #expect(session.wantsInput == true)
        let opened = session.pullAll()
        guard opened.count == 1, case .event(.open(let result)) = opened[0] else { throw PipelineTestFailure("\(opened)") }
        #expect(result.resource == "/chat")
        #expect(session.stage == .open)
        session.write(to: &client, at: .zero)
        guard case .handshakeCompleted(let answer)? = client.pullEvents().first else { throw PipelineTestFailure("no 101") }
        #expect(answer.headers["X-Server"] == "yes")
        // A second answer is no answer.
        session.respond(to: .reject(status: 403))
        #expect(session.stage == .open)
        #expect(session.pullAll().isEmpty)
    }

    @Test("A server's decision the connection refuses (a subprotocol not offered) is answered with 500")
    func refusedDecision() throws {
        var (session, client) = try SessionRig.accepted()
        session.read(from: &client, at: .zero)
        guard case .decide? = session.pullAll().first else { throw PipelineTestFailure("no decision") }
        session.respond(to: .accept(subprotocol: "never-offered"))
        #expect(session.pullAll().isEmpty)
        #expect(session.stage == .handshaking)
        session.write(to: &client, at: .zero)
        let events = client.pullEvents()
        guard case .handshakeFailed(let failure)? = events.first else { throw PipelineTestFailure("\(events)") }
        #expect(failure.rejected?.head.status == 500)
        // Written: the server shuts down its sending side and drains.
        #expect(session.socketDirective == .shutDownWrite)
        session.didShutDownWrite()
        guard case .drain = session.socketDirective else { throw PipelineTestFailure("\(session.socketDirective)") }
        #expect(session.wantsInput == true)
        session.receivedEndOfStream()
        #expect(session.wantsInput == false)
        #expect(session.socketDirective == .close)
        guard case .ended(.failed) = session.finish() else { throw PipelineTestFailure("not failed") }
    }

    @Test("A server whose client never sends a request: the handshake times out")
    func serverHandshakeTimeout() throws {
        var (session, _) = try SessionRig.accepted()
        session.timerFired(at: at(9999))
        #expect(session.socketDirective == .open)
        session.timerFired(at: at(10_000))
        #expect(session.pullAll().isEmpty)
        #expect(session.socketDirective != .open)
        #expect(session.finish().ended == .failed(.handshakeFailed(.timedOut)))
    }

    // MARK: Cancelling

    @Test("cancel() while resolving: the directive closes, a late resolution is ignored, it ends cancelled",
          arguments: [true, false])
    func cancelResolving(resolves: Bool) throws {
        var session = try SessionRig.client()
        session.cancel()
        #expect(session.socketDirective == .close)
        if resolves {
            session.resolved([try SessionRig.address("a")], at: .zero)
        } else {
            session.resolutionFailed(.addressResolutionFailed(host: "example.com", reason: "late"))
        }
        #expect(session.stage == .resolving)
        #expect(session.connectAddress == nil)
        #expect(session.socketDirective == .close)
        #expect(session.finish().ended == .failed(.cancelled))
        #expect(session.pullEvents() == [.failed(.cancelled)])
    }

    @Test("cancel() while connecting: no address to try, it ends cancelled")
    func cancelConnecting() throws {
        var session = try SessionRig.client()
        session.resolved([try SessionRig.address("a"), try SessionRig.address("b")], at: .zero)
        let outcomes = Outcomes<Void>()
        session.waitForOpening(outcomes.completion("open"))
        session.cancel()
        #expect(session.connectAddress == nil)
        #expect(session.socketDirective == .close)
        #expect(session.finish().ended == .failed(.cancelled))
        #expect(session.pullAll() == [.event(.failed(.cancelled)), .resumed])
        #expect(outcomes.error("open") == .cancelled)
    }

    @Test("cancel() while connecting stays a cancel whatever the attempt in flight reports next",
          arguments: ["failed", "connected", "timer"])
    func cancelConnectingThenReport(report: String) throws {
        var transport = TransportOptions()
        transport.connectTimeout = .seconds(3)
        var session = try SessionRig.client(transport: transport)
        session.resolved([try SessionRig.address("a")], at: .zero)
        session.cancel()
        switch report {
        case "failed": session.connectAttemptFailed(.connectionRefused)
        case "connected": session.connected(at: at(10))
        default: session.timerFired(at: at(3000))
        }
        #expect(session.socketDirective == .close)
        #expect(session.finish().ended == .failed(.cancelled))
    }

    @Test("cancel() while handshaking: the connection is aborted, it ends cancelled")
    func cancelHandshaking() throws {
        var session = try SessionRig.connected()
        var server = try SessionRig.server()
        session.write(to: &server, at: .zero)
        session.cancel()
        #expect(session.socketDirective == .close)
        #expect(session.bufferedAmount == 0)
        #expect(session.pullAll().isEmpty)
        #expect(session.finish().ended == .failed(.cancelled))
        #expect(session.pullEvents() == [.failed(.cancelled)])
    }

    @Test("cancel() once open: the connection is aborted (1006) and ends closed, not cleanly")
    func cancelOpen() throws {
        var (session, _) = try SessionRig.open()
        session.cancel()
        #expect(session.socketDirective == .close)
        guard case .ended(let ending) = session.finish(), case .closed(let status) = ending else {
            throw PipelineTestFailure("\(String(describing: session.ending))")
        }
        #expect(status.code == .abnormalClosure)
        #expect(!status.wasClean)
        #expect(status.failure == .aborted)
        #expect(session.pullEvents() == [.closed(status)])
        #expect(ending.messagesError == .closed(status))
        // Finished: nothing more.
        session.cancel()
        #expect(session.ending == ending)
        #expect(session.nextAction() == nil)
    }
}

extension SocketSession.Finish {
    /// The ending, or `nil` for a redirect.
    var ended: Ending? {
        if case .ended(let ending) = self { return ending }
        return nil
    }

    var isRedirected: Bool { ended == nil }
}
