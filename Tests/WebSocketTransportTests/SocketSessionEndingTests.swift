// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: redirects, how a session ends, and refusals read from the state")
struct SocketSessionEndingTests {
    static func redirect(to location: String, status: Int = 302) -> Connection.HandshakeDecision {
        .reject(status: status, headers: ["Location": location])
    }

    // MARK: The last event

    @Test("The last event alone is owed without a queue's storage, and keeps its place among actions")
    func lastEventInOrder() throws {
        // Nothing queued when the session ends: the last event, once, with no array allocated.
        var (server, _) = try SessionRig.accepted()
        server.timerFired(at: at(10_000))
        #expect(server.pullAll().isEmpty)
        #expect(server.finish().ended == .failed(.handshakeFailed(.timedOut)))
        #expect(server.actions.capacity == 0)
        guard case .deliver(.failed(.handshakeFailed(.timedOut)))? = server.nextAction() else {
            throw PipelineTestFailure("not the last event")
        }
        #expect(server.nextAction() == nil)
        #expect(server.nextAction() == nil)

        // Queued after it (a close asked of the ended session): after it.
        var (open, _) = try SessionRig.open()
        open.receivedEndOfStream()
        _ = open.pullAll()
        guard case .ended(let ending) = open.finish() else { throw PipelineTestFailure("redirected") }
        let outcomes = Outcomes<Connection.CloseStatus>()
        try open.close(code: .normalClosure, reason: "", completion: outcomes.completion("close"))
        #expect(open.pullAll() == [.event(ending.event), .resumed])
        #expect(outcomes.result("close") != nil)
        #expect(open.pullAll().isEmpty)

        // Queued before it (a wait for an opening already made, unread): before it.
        var (waited, _) = try SessionRig.open()
        let opening = Outcomes<Void>()
        waited.waitForOpening(opening.completion("open"))
        waited.receivedEndOfStream()
        guard case .ended(let end) = waited.finish() else { throw PipelineTestFailure("redirected") }
        #expect(waited.pullAll() == [.resumed, .event(end.event)])
        guard case .success? = opening.result("open") else { throw PipelineTestFailure("not resumed") }

        // Pulled through a read in place after the end (a handler closed the socket mid-read).
        var (inPlace, _) = try SessionRig.open()
        inPlace.receivedEndOfStream()
        _ = inPlace.pullAll()
        guard case .ended(let last) = inPlace.finish() else { throw PipelineTestFailure("redirected") }
        var bytes: [UInt8] = [0x82, 0x80, 1, 2, 3, 4]
        var offset = 0
        let action = bytes.withUnsafeMutableBytes { inPlace.nextAction(readingInPlace: $0, from: &offset) }
        guard case .action(.deliver(let event))? = action else { throw PipelineTestFailure("\(String(describing: action))") }
        #expect(event == last.event)
        #expect(offset == bytes.count)
        #expect(inPlace.nextAction() == nil)
    }

    // MARK: Redirects

    @Test("A redirect starts the session over: resolving the next hop's target, its waiters kept")
    func redirected() throws {
        var session = try SessionRig.connected()
        let outcomes = Outcomes<Void>()
        session.waitForOpening(outcomes.completion("open"))
        var first = try SessionRig.server()
        let pulled = try SessionRig.handshake(&session, with: &first, answer: Self.redirect(to: "ws://other.example:8080/next"),
                                              at: at(20))
        #expect(pulled.isEmpty)
        #expect(session.socketDirective != .open)  // the client half-closes, then closes
        #expect(session.finish().isRedirected)
        #expect(session.stage == .resolving)
        let next = try WebSocketURL(parsing: "ws://other.example:8080/next")
        #expect(session.target == .endpoint(WebSocketEndpoint(url: next)))
        #expect(session.nextAction() == nil)
        #expect(session.wantsInput == false)
        #expect(session.nextDeadline == nil)
        #expect(session.socketDirective == .open)
        #expect(session.handshake == nil)
        #expect(outcomes.all.isEmpty)

        // The next hop, in the same turn of the adapter's loop (the same instant).
        session.resolved([try SessionRig.address("next")], at: at(20))
        session.connected(at: at(20))
        #expect(session.stage == .handshaking)
        #expect(session.nextDeadline == at(10_020))  // the new connection's handshake timer
        var second = try SessionRig.server()
        var host = ""
        let opened = try SessionRig.handshake(&session, with: &second, at: at(20)) { request in
            host = request.host
            return .accept()
        }
        #expect(host == "other.example:8080")
        guard opened.count == 2, case .event(.open(let result)) = opened[0], opened[1] == .resumed else {
            throw PipelineTestFailure("\(opened)")
        }
        #expect(result.resource == "/next")
        #expect(session.stage == .open)
        guard case .success? = outcomes.result("open") else { throw PipelineTestFailure("not resumed") }
    }

    @Test("A redirect from wss to ws is refused, never followed")
    func downgradeRefused() throws {
        var transport = TransportOptions()
        transport.tls = ToyFactory()
        var session = try SessionRig.connected(secureURL, transport: transport)
        let outcomes = Outcomes<Void>()
        session.waitForOpening(outcomes.completion("open"))
        var server = try SessionRig.server(transport: transport)
        _ = try SessionRig.handshake(&session, with: &server, answer: Self.redirect(to: "ws://example.com/chat"))
        guard case .failed(let error)? = session.finish().ended, case .redirectRefused(let redirect, _) = error else {
            throw PipelineTestFailure("\(String(describing: session.ending))")
        }
        #expect(redirect.isDowngrade)
        #expect(redirect.status == 302)
        #expect(session.stage == .finished)
        #expect(session.pullAll() == [.event(.failed(error)), .resumed])
        #expect(outcomes.error("open") == error)
    }

    @Test("More redirects than maxRedirects: .tooManyRedirects with every URL asked for")
    func tooManyRedirects() throws {
        var transport = TransportOptions()
        transport.maxRedirects = 1
        var session = try SessionRig.connected(transport: transport)
        var first = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &first, answer: Self.redirect(to: "/b"))
        #expect(session.finish().isRedirected)
        session.resolved([try SessionRig.address("a")], at: .zero)
        session.connected(at: .zero)
        var second = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &second, answer: Self.redirect(to: "/c", status: 307))
        let hops = try ["ws://example.com/chat", "ws://example.com/b", "ws://example.com/c"].map { try WebSocketURL(parsing: $0) }
        #expect(session.finish().ended == .failed(.tooManyRedirects(hops)))
    }

    @Test("With maxRedirects = 0 the redirect is the handshake's failure")
    func redirectsOff() throws {
        var transport = TransportOptions()
        transport.maxRedirects = 0
        var session = try SessionRig.connected(transport: transport)
        var server = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &server, answer: Self.redirect(to: "/b", status: 301))
        guard case .failed(.handshakeFailed(let failure))? = session.finish().ended else {
            throw PipelineTestFailure("\(String(describing: session.ending))")
        }
        #expect(failure.redirected?.target == (try WebSocketURL(parsing: "ws://example.com/b")))
        #expect(failure.redirected?.status == 301)
    }

    // MARK: Endings

    @Test("Ending: the last event, a waiter's error, a close's result, and how messages end")
    func endingValues() {
        let clean = Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)
        let lost = Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: .unexpectedEndOfStream)
        #expect(Ending.closed(clean).event == .closed(clean))
        #expect(Ending.closed(clean).error == .closed(clean))
        #expect(Ending.closed(clean).closeResult == .success(clean))
        #expect(Ending.closed(clean).messagesError == nil)
        #expect(Ending.closed(lost).messagesError == .closed(lost))
        #expect(Ending.closed(lost).closeResult == .success(lost))
        #expect(Ending.failed(.cancelled).event == .failed(.cancelled))
        #expect(Ending.failed(.cancelled).error == .cancelled)
        #expect(Ending.failed(.cancelled).closeResult == .failure(.cancelled))
        #expect(Ending.failed(.cancelled).messagesError == .cancelled)
    }

    @Test("A connection that opened and closed cleanly ends .closed, and its messages end without an error")
    func cleanEnding() throws {
        var (session, peer) = try SessionRig.open()
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.close(code: .normalClosure, reason: "done")
        }
        #expect(session.pullAll().isEmpty)
        session.write(to: &peer, at: .zero)
        _ = peer.pullEvents()
        session.receivedEndOfStream()
        guard let ending = session.finish().ended, case .closed(let status) = ending else { throw PipelineTestFailure("not closed") }
        #expect(status == Connection.CloseStatus(code: .normalClosure, reason: "done", wasClean: true))
        #expect(ending.messagesError == nil)
        #expect(session.pullEvents() == [.closed(status)])
    }

    @Test("A refused handshake ends .failed(.handshakeFailed) with the response")
    func rejected() throws {
        var session = try SessionRig.connected()
        var server = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &server, answer: .reject(status: 403, body: Array("no".utf8)))
        guard case .failed(.handshakeFailed(let failure))? = session.finish().ended else {
            throw PipelineTestFailure("\(String(describing: session.ending))")
        }
        #expect(failure.rejected?.head.status == 403)
        #expect(failure.rejected?.body == Array("no".utf8))
        #expect(session.ending?.messagesError == .handshakeFailed(failure))
    }

    @Test("A transport failure says more than the handshake failure it caused")
    func transportFailureFirst() throws {
        var reset = try SessionRig.connected()
        reset.readFailed(.connectionReset)
        #expect(reset.finish().ended == .failed(.transport(.connectionReset)))

        // The handshake failed, then the socket did: the socket's failure is the ending.
        var session = try SessionRig.connected()
        var server = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &server, answer: .reject(status: 403))
        session.writeFailed(.brokenPipe)
        #expect(session.finish().ended == .failed(.transport(.brokenPipe)))

        // A layer's failure (TLS's shape) during the handshake.
        var transport = TransportOptions()
        transport.tls = ToyFactory()
        var secure = try SessionRig.connected(secureURL, transport: transport)
        Array("X".utf8).withUnsafeBytes { secure.received($0) }
        #expect(secure.pullAll().isEmpty)
        #expect(secure.socketDirective == .close)
        #expect(secure.finish().ended == .failed(.tls(TLSError(.protocolError, reason: "toy"))))
    }

    @Test("The end of the stream, or the handshake's timeout, before the handshake finished")
    func handshakeCut() throws {
        var ended = try SessionRig.connected()
        ended.receivedEndOfStream()
        #expect(ended.pullAll().isEmpty)
        #expect(ended.socketDirective == .close)
        #expect(ended.finish().ended == .failed(.handshakeFailed(.endOfStream)))

        var slow = try SessionRig.connected()
        slow.timerFired(at: at(9999))
        #expect(slow.pullAll().isEmpty)
        #expect(slow.socketDirective == .open)
        slow.timerFired(at: at(10_000))
        #expect(slow.pullAll().isEmpty)
        #expect(slow.socketDirective == .close)
        #expect(slow.finish().ended == .failed(.handshakeFailed(.timedOut)))
    }

    // MARK: Refusals read from the state

    @Test("Connection.State.refusal(of:) for every state and kind of message")
    func refusalTable() {
        let clean = Connection.CloseStatus(code: .normalClosure, reason: "", wasClean: true)
        let lost = Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: .aborted)
        let timedOut = Connection.CloseStatus(code: .abnormalClosure, reason: "", wasClean: false, failure: .closeTimeout)
        let message = WebSocketMessage.text("x"), ping = WebSocketMessage.ping([1])
        let close = WebSocketMessage.close(Connection.CloseFrame(code: .normalClosure))
        #expect(Connection.State.connecting.refusal(of: message) == .notOpen)
        #expect(Connection.State.connecting.refusal(of: ping) == .notOpen)
        #expect(Connection.State.connecting.refusal(of: close) == .notOpen)
        #expect(Connection.State.open.refusal(of: message) == nil)
        #expect(Connection.State.open.refusal(of: ping) == nil)
        #expect(Connection.State.open.refusal(of: close) == nil)
        #expect(Connection.State.closing(initiatedBy: .local).refusal(of: message) == .closeAlreadySent)
        #expect(Connection.State.closing(initiatedBy: .local).refusal(of: ping) == .closeAlreadySent)
        #expect(Connection.State.closing(initiatedBy: .local).refusal(of: close) == .closeAlreadySent)
        // After the peer's Close (our message unfinished): control frames and our Close go out.
        #expect(Connection.State.closing(initiatedBy: .remote).refusal(of: message) == .closeAlreadySent)
        #expect(Connection.State.closing(initiatedBy: .remote).refusal(of: ping) == nil)
        #expect(Connection.State.closing(initiatedBy: .remote).refusal(of: close) == nil)
        // ...and the rest of that message: only then is the peer's Close waiting.
        let rest = WebSocketMessage.fragment(Connection.Fragment(kind: .text, bytes: Array("rest".utf8), isFirst: false, isFinal: true))
        let first = WebSocketMessage.fragment(Connection.Fragment(kind: .text, bytes: Array("new".utf8), isFirst: true, isFinal: false))
        #expect(Connection.State.closing(initiatedBy: .remote).refusal(of: rest) == nil)
        #expect(Connection.State.closing(initiatedBy: .remote).refusal(of: first) == .closeAlreadySent)
        #expect(Connection.State.closing(initiatedBy: .local).refusal(of: rest) == .closeAlreadySent)
        for kind in [message, ping, close] {
            #expect(Connection.State.closed(clean).refusal(of: kind) == .closeAlreadySent)
            #expect(Connection.State.closed(lost).refusal(of: kind) == .notOpen)
            #expect(Connection.State.closed(timedOut).refusal(of: kind) == .notOpen)
        }
        // What the message itself breaks, whatever the state allows.
        #expect(Connection.State.open.refusal(of: .ping([UInt8](repeating: 0, count: 126))) == .controlPayloadTooLarge)
        #expect(Connection.State.open.refusal(of: .pong([UInt8](repeating: 0, count: 126))) == .controlPayloadTooLarge)
        #expect(Connection.State.open.refusal(of: .close(Connection.CloseFrame(code: .noStatusReceived)))
                == .invalidCloseCode(.noStatusReceived))
        #expect(Connection.State.open.refusal(of: .close(Connection.CloseFrame(code: .normalClosure,
                                                                               reason: String(repeating: "a", count: 124))))
                == .closeReasonTooLong)
        #expect(Connection.State.open.refusal(of: OutgoingMessage.prepared(Connection.PreparedMessage(text: "x"))) == nil)
        #expect(Connection.State.connecting.refusal(of: OutgoingMessage.prepared(Connection.PreparedMessage(text: "x")))
                == .notOpen)
    }

    @Test("refusal(of:) is what the connection itself answers, for every kind of message, in every state a session reaches")
    func refusalMatchesConnection() throws {
        func check(_ session: inout SocketSession, _ comment: Comment) {
            let state = session.pipeline.connection.state
            let probes: [WebSocketMessage] = [.ping([7]), .ping([UInt8](repeating: 0, count: 126)),
                                              .close(Connection.CloseFrame(code: .noStatusReceived)), .text("probe")]
            for probe in probes {
                // Each probe on a copy: one the connection takes changes its state.
                var copy = session
                let expected = state.refusal(of: probe)
                do throws(WebSocketError) {
                    try copy.send(probe)
                    #expect(expected == nil, "\(comment): \(probe)")
                } catch {
                    #expect(error == expected.map { .connection($0) }, "\(comment): \(probe)")
                }
            }
        }
        var connecting = try SessionRig.connected()
        check(&connecting, "connecting")
        var (open, peer) = try SessionRig.open()
        check(&open, "open")
        // Closing remotely: the peer's Close came during our fragmented message.
        try open.perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.sendFragment([1], kind: .binary, isFinal: false)
        }
        try peerSends(&peer, to: &open) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.close()
        }
        _ = open.pullAll()
        #expect(open.pipeline.connection.state == .closing(initiatedBy: .remote))
        check(&open, "closing remotely")
        var (closing, other) = try SessionRig.open()
        try closing.close(code: .normalClosure, reason: "", completion: nil)
        check(&closing, "closing locally")
        closing.write(to: &other, at: .zero)
        _ = other.pullEvents()
        closing.read(from: &other, at: .zero)
        _ = closing.pullAll()
        check(&closing, "closed cleanly")
        var (aborted, _) = try SessionRig.open()
        aborted.cancel()
        check(&aborted, "aborted")
    }
}
