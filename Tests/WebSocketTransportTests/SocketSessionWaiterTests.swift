// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: awaited pings and close waiters, resumed as actions")
struct SocketSessionWaiterTests {
    // MARK: Awaited pings (RFC 6455 §5.5.2, §5.5.3)

    @Test("A ping is resumed with the round trip when the peer's automatic pong arrives", arguments: [false, true])
    func pingAnswered(receivesControlFrames: Bool) throws {
        var transport = TransportOptions()
        transport.receivesControlFrames = receivesControlFrames
        var (session, peer) = try SessionRig.open(transport: transport)
        let outcomes = Outcomes<Duration>()
        session.advanceTime(to: at(100))
        session.ping(nil, timeout: .seconds(10), completion: outcomes.completion("ping"))
        // Its clock starts at the next time report, asked for at once.
        #expect(session.nextDeadline == at(100))
        session.timerFired(at: at(100))
        #expect(session.nextDeadline == at(10_100))
        #expect(session.pullAll().isEmpty)
        session.write(to: &peer, at: at(100))
        guard case .ping(let payload)? = peer.pullEvents().first else { throw PipelineTestFailure("no ping") }
        session.advanceTime(to: at(350))
        session.read(from: &peer, at: at(350))
        let pulled = session.pullAll()
        if receivesControlFrames {
            #expect(pulled == [.event(.message(.pong(payload))), .resumed])
        } else {
            #expect(pulled == [.resumed])
        }
        #expect(outcomes.result("ping") == .success(.milliseconds(250)))
        #expect(session.nextDeadline == nil)
    }

    @Test("A ping's answer comes in the order of the stream: after the messages read before its pong, before those after it")
    func pingAnsweredInStreamOrder() throws {
        var (session, peer) = try SessionRig.open()
        let outcomes = Outcomes<Duration>()
        session.advanceTime(to: at(100))
        session.ping(nil, timeout: .seconds(10), completion: outcomes.completion("ping"))
        session.timerFired(at: at(100))
        session.write(to: &peer, at: at(100))
        #expect(peer.pullEvents().count == 1)
        // The peer's automatic pong went out when it read the ping; a message goes before it and
        // one after, and one read brings all three.
        func output(of peer: inout ConnectionPipeline) -> [UInt8] {
            var bytes: [UInt8] = []
            peer.update()
            while peer.socketOutputCount > 0 {
                bytes += peer.takeSocketOutput()
                peer.update()
            }
            return bytes
        }
        let pong = output(of: &peer)
        #expect(pong.first == 0x8a)
        try peer.connection.send(text: "before")
        let before = output(of: &peer)
        try peer.connection.send(text: "after")
        let after = output(of: &peer)
        (before + pong + after).withUnsafeBytes { session.received($0) }
        session.advanceTime(to: at(300))
        let pulled = session.pullAll()
        #expect(pulled == [.event(.message(.text("before"))), .resumed, .event(.message(.text("after")))])
        #expect(outcomes.result("ping") == .success(.milliseconds(200)))
    }

    @Test("A ping at the output limit is refused as every send is: .bufferFull, then a drain once written")
    func pingAtTheLimit() throws {
        var transport = TransportOptions()
        transport.lowWaterMark = 10
        var configuration = Connection.Configuration()
        configuration.limits.maxBufferedOutput = 100
        var (session, peer) = try SessionRig.open(transport: transport, configuration: configuration)
        try session.send(.binary([UInt8](repeating: 1, count: 120)))
        let outcomes = Outcomes<Duration>()
        session.ping(nil, timeout: .seconds(10), completion: outcomes.completion("ping"))
        _ = session.pullAll()
        guard case .bufferFull? = outcomes.error("ping") else {
            throw PipelineTestFailure("the ping got \(String(describing: outcomes.result("ping")))")
        }
        session.write(to: &peer, at: .zero)
        session.outputDrained()
        #expect(session.pullAll() == [.event(.drained(bufferedAmount: 0))])
    }

    @Test("A ping whose pong does not come in time is resumed with .timedOut(.ping); the connection goes on")
    func pingTimesOut() throws {
        var (session, peer) = try SessionRig.open()
        let outcomes = Outcomes<Duration>()
        session.ping([1, 2, 3], timeout: .seconds(1), completion: outcomes.completion("ping"))
        // No time reported yet: the ping asks for one at once, and its timeout counts from it.
        #expect(session.nextDeadline == .zero)
        session.timerFired(at: .zero)
        #expect(session.nextDeadline == at(1000))
        session.timerFired(at: at(999))
        #expect(session.pullAll().isEmpty)
        session.timerFired(at: at(1000))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("ping") == .timedOut(.ping))
        #expect(session.stage == .open)
        #expect(session.socketDirective == .open)
        // Its pong, late, answers nothing.
        session.write(to: &peer, at: at(1000))
        _ = peer.pullEvents()
        session.read(from: &peer, at: at(1200))
        #expect(session.pullAll().isEmpty)
        #expect(outcomes.all.count == 1)
    }

    @Test("A ping is resumed with .closed when the connection ends first: the peer's Close, or the end")
    func pingClosed() throws {
        var (session, peer) = try SessionRig.open()
        let outcomes = Outcomes<Duration>()
        session.ping(nil, timeout: nil, completion: outcomes.completion("closed by peer"))
        // Without a timeout, the round trip's clock still asks for a time report, once.
        #expect(session.nextDeadline == .zero)
        session.timerFired(at: .zero)
        #expect(session.nextDeadline == nil)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.close(code: .goingAway, reason: "")
        }
        #expect(session.pullAll() == [.resumed])
        guard case .closed(let status) = session.pipeline.connection.state else { throw PipelineTestFailure("open") }
        #expect(outcomes.error("closed by peer") == .closed(status))
        #expect(status.code == .goingAway)

        var (cancelled, _) = try SessionRig.open()
        cancelled.ping(nil, timeout: .seconds(30), completion: outcomes.completion("cancelled"))
        cancelled.cancel()
        guard case .closed(let lost)? = cancelled.finish().ended else { throw PipelineTestFailure("not closed") }
        let pulled = cancelled.pullAll()
        #expect(pulled.count == 2)
        #expect(pulled.contains(.event(.closed(lost))))
        #expect(pulled.contains(.resumed))
        #expect(outcomes.error("cancelled") == .closed(lost))
    }

    @Test("A ping the connection refuses is resumed with .connection(...), a transport failure's or the ending's error")
    func pingRefused() throws {
        let outcomes = Outcomes<Duration>()
        var handshaking = try SessionRig.connected()
        handshaking.ping(nil, timeout: nil, completion: outcomes.completion("not open"))
        #expect(handshaking.pullAll() == [.resumed])
        #expect(outcomes.error("not open") == .connection(.notOpen))

        var (session, _) = try SessionRig.open()
        session.ping([UInt8](repeating: 0, count: 126), timeout: nil, completion: outcomes.completion("too large"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("too large") == .connection(.controlPayloadTooLarge))
        #expect(session.bufferedAmount == 0)  // nothing sent

        session.writeFailed(.brokenPipe)
        session.ping(nil, timeout: nil, completion: outcomes.completion("failed"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("failed") == .transport(.brokenPipe))

        guard let ending = session.finish().ended else { throw PipelineTestFailure("redirected") }
        _ = session.pullAll()
        session.ping(nil, timeout: nil, completion: outcomes.completion("finished"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("finished") == ending.error)
    }

    // MARK: Close

    @Test("close(code:reason:completion:) starts the closing handshake; the completion gets the status once finished")
    func closeWaiter() throws {
        var (session, peer) = try SessionRig.open()
        let outcomes = Outcomes<Connection.CloseStatus>()
        try session.close(code: .normalClosure, reason: "bye", completion: outcomes.completion("close"))
        #expect(session.pipeline.connection.state == .closing(initiatedBy: .local))
        // A second close while it is under way waits for the same end.
        try session.close(code: .goingAway, reason: "", completion: outcomes.completion("again"))
        session.write(to: &peer, at: .zero)
        #expect(peer.pullEvents().first == .closeReceived(Connection.CloseFrame(code: .normalClosure, reason: "bye")))
        session.read(from: &peer, at: .zero)
        #expect(session.pullAll().isEmpty)
        #expect(outcomes.all.isEmpty)  // closed, but the socket is not
        // Closed: a close now waits too, and may not throw.
        try session.close(code: .normalClosure, reason: "", completion: outcomes.completion("closed"))
        session.receivedEndOfStream()
        #expect(session.socketDirective == .close)
        guard case .closed(let status)? = session.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(status.wasClean)
        #expect(status.code == .normalClosure)
        #expect(session.pullAll() == [.event(.closed(status)), .resumed, .resumed, .resumed])
        #expect(outcomes.labels == ["close", "again", "closed"])
        #expect(outcomes.all.allSatisfy { $0.result == .success(status) })
        // After the end it resumes at once.
        try session.close(code: .normalClosure, reason: "", completion: outcomes.completion("after"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.result("after") == .success(status))
    }

    @Test("An invalid code or reason, or a close before the connection opens, throws and queues nothing")
    func closeRefused() throws {
        var (session, _) = try SessionRig.open()
        let outcomes = Outcomes<Connection.CloseStatus>()
        #expect(throws: WebSocketError.connection(.invalidCloseCode(.noStatusReceived))) {
            try session.close(code: .noStatusReceived, reason: "", completion: outcomes.completion("1005"))
        }
        #expect(throws: WebSocketError.connection(.invalidCloseCode(.abnormalClosure))) {
            try session.close(code: .abnormalClosure, reason: "", completion: outcomes.completion("1006"))
        }
        #expect(throws: WebSocketError.connection(.closeReasonTooLong)) {
            try session.close(code: .normalClosure, reason: String(repeating: "x", count: 124),
                              completion: outcomes.completion("long"))
        }
        #expect(session.pipeline.connection.state == .open)
        #expect(session.bufferedAmount == 0)
        session.cancel()
        _ = session.finish()
        _ = session.pullAll()
        #expect(outcomes.all.isEmpty)  // the refused closes wait for nothing

        var handshaking = try SessionRig.connected()
        #expect(throws: WebSocketError.connection(.notOpen)) {
            try handshaking.close(code: .normalClosure, reason: "", completion: outcomes.completion("early"))
        }
        handshaking.cancel()
        _ = handshaking.finish()
        _ = handshaking.pullAll()
        #expect(outcomes.all.isEmpty)
        // A session that never opened resumes a close with why.
        try handshaking.close(code: .normalClosure, reason: "", completion: outcomes.completion("never opened"))
        #expect(handshaking.pullAll() == [.resumed])
        #expect(outcomes.error("never opened") == .cancelled)
    }
}
