// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: sends, backpressure, waiting sends, the write stall")
struct SocketSessionSendTests {
    /// Output refused at 100 buffered bytes, drains reported at 10.
    static func marks() -> (TransportOptions, Connection.Configuration) {
        var transport = TransportOptions()
        transport.lowWaterMark = 10
        var configuration = Connection.Configuration()
        configuration.limits.maxBufferedOutput = 100
        return (transport, configuration)
    }

    @Test("Sends are refused before the connection opens, once its Close is sent, and after the end")
    func refusals() throws {
        var resolving = try SessionRig.client()
        #expect(throws: WebSocketError.connection(.notOpen)) { try resolving.send(.text("early")) }
        var handshaking = try SessionRig.connected()
        #expect(throws: WebSocketError.connection(.notOpen)) { try handshaking.send(.binary([1])) }
        #expect(throws: WebSocketError.connection(.notOpen)) {
            try handshaking.perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.ping([])
            }
        }

        var (session, _) = try SessionRig.open()
        try session.send(.text("fine"))
        try session.close(code: .normalClosure, reason: "", completion: nil)
        #expect(throws: WebSocketError.connection(.closeAlreadySent)) { try session.send(.text("late")) }
        #expect(throws: WebSocketError.connection(.closeAlreadySent)) {
            try session.perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.send(text: "late")
            }
        }
        session.cancel()
        _ = session.finish()
        // Aborted after its Close was sent: the connection is no longer usable (as its state says).
        #expect(throws: WebSocketError.connection(.notOpen)) { try session.send(.text("after")) }
    }

    @Test("A transport failure is the refusal, before the connection's own")
    func failureFirst() throws {
        var (session, _) = try SessionRig.open()
        session.writeFailed(.brokenPipe)
        #expect(throws: WebSocketError.transport(.brokenPipe)) { try session.send(.text("x")) }
        #expect(throws: WebSocketError.transport(.brokenPipe)) {
            try session.perform(isData: false) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.ping([])
            }
        }
        let outcomes = Outcomes<Void>()
        session.sendOrWait(.text("x"), completion: outcomes.completion("wait"))
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.error("wait") == .transport(.brokenPipe))
        // The first failure stays.
        session.readFailed(.connectionReset)
        #expect(throws: WebSocketError.transport(.brokenPipe)) { try session.send(.text("x")) }
    }

    @Test("At the high-water mark sends are refused with .bufferFull; at the low-water mark a drain is reported once")
    func highAndLowWater() throws {
        let (transport, configuration) = Self.marks()
        var (session, peer) = try SessionRig.open(transport: transport, configuration: configuration)
        // Below the mark: accepted, and no drain owed.
        try session.send(.binary([UInt8](repeating: 1, count: 50)))
        session.write(to: &peer, at: .zero)
        session.outputDrained()
        #expect(session.pullAll().isEmpty)

        try session.send(.binary([UInt8](repeating: 2, count: 60)))
        try session.send(.binary([UInt8](repeating: 3, count: 60)))  // accepted below the mark, reaches it
        let buffered = session.bufferedAmount
        #expect(buffered >= 100)
        #expect(throws: WebSocketError.bufferFull(bufferedAmount: buffered)) { try session.send(.binary([4])) }
        #expect(throws: WebSocketError.bufferFull(bufferedAmount: buffered)) {
            try session.perform(isData: true) { (connection: inout Connection) throws(Connection.UsageError) in
                try connection.send(text: "x")
            }
        }
        #expect(session.bufferedAmount == buffered)  // nothing was queued
        // Above the low-water mark: no drain yet.
        session.writeSome(buffered - 11, at: .zero)
        session.outputDrained()
        #expect(session.pullAll().isEmpty)
        session.writeSome(1, at: .zero)
        #expect(session.bufferedAmount == 10)
        session.outputDrained()
        #expect(session.pullAll() == [.event(.drained(bufferedAmount: 10))])
        session.outputDrained()
        #expect(session.pullAll().isEmpty)

        // Reaching the mark without a refusal owes a drain too.
        try session.send(.binary([UInt8](repeating: 5, count: 120)))
        session.write(to: &peer, at: .zero)
        session.outputDrained()
        #expect(session.pullAll() == [.event(.drained(bufferedAmount: 0))])
    }

    @Test("The bytes of the messages waiting for room are counted, for checks made away from the session")
    func bufferedAmountCountsWaitingSends() throws {
        let (transport, configuration) = Self.marks()
        var (session, _) = try SessionRig.open(transport: transport, configuration: configuration)
        try session.send(.binary([UInt8](repeating: 1, count: 120)))  // over the mark (100)
        let queued = session.bufferedAmount
        let outcomes = Outcomes<Void>()
        let first = session.sendOrWait(.binary([UInt8](repeating: 2, count: 30)), completion: outcomes.completion("first"))
        session.sendOrWait(.text("forty bytes of text waiting for its turn"), completion: outcomes.completion("second"))
        #expect(session.hasPendingSends)
        #expect(session.bufferedAmount == queued)
        #expect(session.waitingBytes == 30 + 40)
        session.cancelPendingSend(try #require(first))
        #expect(session.waitingBytes == 40)
    }

    @Test("A drain expected from elsewhere (a send refused off the adapter's thread) is reported")
    func expectedDrain() throws {
        let (transport, configuration) = Self.marks()
        var (session, _) = try SessionRig.open(transport: transport, configuration: configuration)
        session.outputDrained()
        #expect(session.pullAll().isEmpty)
        session.expectDrain()
        session.outputDrained()
        #expect(session.pullAll() == [.event(.drained(bufferedAmount: 0))])
    }

    @Test("Prepared messages: a server's go out, a client's are refused; they wait behind waiting sends as messages do")
    func prepared() throws {
        let (transport, configuration) = Self.marks()
        var (server, client) = try SessionRig.accepted(transport: transport, configuration: configuration)
        server.read(from: &client, at: .zero)
        _ = server.pullAll()
        server.respond(to: .accept())
        _ = server.pullAll()
        server.write(to: &client, at: .zero)  // the 101 response
        try server.send(Connection.PreparedMessage(text: "to many"))
        server.write(to: &client, at: .zero)
        #expect(client.pullEvents().last == .text("to many"))
        let outcomes = Outcomes<Void>()
        server.sendOrWait(.binary([UInt8](repeating: 0, count: 120)), completion: outcomes.completion("big"))
        server.sendOrWait(.binary([1]), completion: outcomes.completion("waits"))
        #expect(throws: WebSocketError.self) { try server.send(Connection.PreparedMessage(text: "overtakes")) }

        var (session, _) = try SessionRig.open()
        #expect(throws: WebSocketError.connection(.preparedMessageFromClient)) {
            try session.send(Connection.PreparedMessage(text: "from a client"))
        }
    }

    @Test("sendOrWait: waiting messages go out in order once there is room, resumed as actions; nothing overtakes them but control frames")
    func sendOrWaitOrder() throws {
        let (transport, configuration) = Self.marks()
        var (session, peer) = try SessionRig.open(transport: transport, configuration: configuration)
        let outcomes = Outcomes<Void>()
        session.sendOrWait(.binary([UInt8](repeating: 0, count: 120)), completion: outcomes.completion("big"))
        session.sendOrWait(.binary([1]), completion: outcomes.completion("one"))
        session.sendOrWait(.binary([2]), completion: outcomes.completion("two"))
        #expect(session.hasPendingSends)
        // Part written: below the high-water mark, above the low one. A message would overtake the
        // waiting ones: refused; a control frame may go.
        session.writeSome(60, at: .zero).withUnsafeBytes { peer.receive($0) }
        let buffered = session.bufferedAmount
        #expect(buffered > 10 && buffered < 100)
        #expect(throws: WebSocketError.bufferFull(bufferedAmount: buffered)) { try session.send(.binary([3])) }
        try session.send(.ping([7]))
        session.sendOrWait(.pong([8]), completion: outcomes.completion("pong"))
        session.outputDrained()
        #expect(session.pullAll() == [.resumed, .resumed])
        #expect(outcomes.labels == ["big", "pong"])
        session.write(to: &peer, at: .zero)
        #expect(peer.pullEvents() == [.binary([UInt8](repeating: 0, count: 120)), .ping([7]), .pong([8])])
        session.outputDrained()
        #expect(!session.hasPendingSends)
        let pulled = session.pullAll()
        #expect(pulled.count == 3)
        #expect(pulled.prefix(2) == [.resumed, .resumed])
        #expect(pulled.last == .event(.drained(bufferedAmount: session.bufferedAmount)))
        #expect(outcomes.labels == ["big", "pong", "one", "two"])
        #expect(outcomes.all.allSatisfy { if case .success = $0.result { true } else { false } })
        session.write(to: &peer, at: .zero)
        #expect(peer.pullEvents().filter { if case .binary = $0 { true } else { false } } == [.binary([1]), .binary([2])])
    }

    @Test("A drain that fills the buffer again resumes only what fit; the rest waits for the next, and the drain is owed")
    func partialDrain() throws {
        let (transport, configuration) = Self.marks()
        var (session, peer) = try SessionRig.open(transport: transport, configuration: configuration)
        let outcomes = Outcomes<Void>()
        session.sendOrWait(.binary([UInt8](repeating: 0, count: 120)), completion: outcomes.completion("first"))
        session.sendOrWait(.binary([UInt8](repeating: 1, count: 120)), completion: outcomes.completion("second"))
        session.sendOrWait(.text("third"), completion: outcomes.completion("third"))
        _ = session.pullAll()
        session.write(to: &peer, at: .zero)
        session.outputDrained()
        #expect(session.pullAll() == [.resumed])
        #expect(outcomes.labels == ["first", "second"])
        #expect(session.hasPendingSends)
        session.write(to: &peer, at: .zero)
        session.outputDrained()
        #expect(session.pullAll() == [.resumed, .event(.drained(bufferedAmount: session.bufferedAmount))])
        #expect(outcomes.labels == ["first", "second", "third"])
        session.write(to: &peer, at: .zero)
        let messages = peer.pullEvents()
        #expect(messages == [.binary([UInt8](repeating: 0, count: 120)), .binary([UInt8](repeating: 1, count: 120)), .text("third")])
    }

    @Test("finish() fails the waiting sends with the ending's error, after the last event")
    func finishFailsWaitingSends() throws {
        let (transport, configuration) = Self.marks()
        var (session, _) = try SessionRig.open(transport: transport, configuration: configuration)
        let outcomes = Outcomes<Void>()
        session.sendOrWait(.binary([UInt8](repeating: 0, count: 120)), completion: outcomes.completion("sent"))
        session.sendOrWait(.text("a"), completion: outcomes.completion("a"))
        session.sendOrWait(.text("b"), completion: outcomes.completion("b"))
        #expect(session.pullAll() == [.resumed])
        session.cancel()
        guard case .closed(let status)? = session.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(session.pullAll() == [.event(.closed(status)), .resumed, .resumed])
        #expect(outcomes.error("a") == .closed(status))
        #expect(outcomes.error("b") == .closed(status))
        #expect(!session.hasPendingSends)

        // Before the connection opens a send cannot wait: it is refused at once.
        var early = try SessionRig.connected()
        early.sendOrWait(.text("x"), completion: outcomes.completion("early"))
        #expect(early.pullAll() == [.resumed])
        #expect(outcomes.error("early") == .connection(.notOpen))
    }

    @Test("A transport that failed drained nothing: no drain is reported, and waiting sends fail with the ending",
          arguments: ["write failed", "write timeout"])
    func noDrainAfterFailure(cause: String) throws {
        var (transport, configuration) = Self.marks()
        transport.writeTimeout = .seconds(5)
        var (session, _) = try SessionRig.open(transport: transport, configuration: configuration)
        let outcomes = Outcomes<Void>()
        session.sendOrWait(.binary([UInt8](repeating: 0, count: 120)), completion: outcomes.completion("sent"))
        session.sendOrWait(.text("waits"), completion: outcomes.completion("waits"))
        #expect(session.pullAll() == [.resumed])
        // The peer reads nothing.
        session.writeSome(0, at: .zero)
        if cause == "write failed" {
            session.writeFailed(.brokenPipe)
        } else {
            session.timerFired(at: at(5000))
            #expect(session.pipeline.failure == .timedOut(.write))
        }
        #expect(session.pullAll().isEmpty)
        // The adapter's turn goes on: it writes (nothing), reports the drain, obeys the directive.
        session.writeSome(Int.max, at: at(5000))
        session.outputDrained()
        #expect(session.pullAll().isEmpty)
        #expect(session.socketDirective == .close)
        guard case .closed(let status)? = session.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(session.pullAll() == [.event(.closed(status)), .resumed])
        #expect(outcomes.error("waits") == .closed(status))
    }

    // MARK: The write stall

    static func stallOptions() -> TransportOptions {
        var transport = TransportOptions()
        transport.writeTimeout = .seconds(5)
        return transport
    }

    @Test("A write round that leaves output and made no progress starts the write timeout; progress restarts it")
    func writeStallDeadline() throws {
        var (session, peer) = try SessionRig.open(transport: Self.stallOptions())
        try session.send(.binary([UInt8](repeating: 1, count: 1000)))
        #expect(session.nextDeadline == nil)
        session.writeSome(0, at: at(1000))
        #expect(session.nextDeadline == at(6000))
        session.writeSome(0, at: at(3000))
        #expect(session.nextDeadline == at(6000))  // no progress: the stall still counts from 1 s
        session.writeSome(10, at: at(4000))
        #expect(session.nextDeadline == at(9000))  // progress: counted again
        session.timerFired(at: at(8999))
        #expect(session.pipeline.failure == nil)
        #expect(session.socketDirective == .open)
        // Everything written: no stall.
        session.write(to: &peer, at: at(8999))
        #expect(session.nextDeadline == nil)
        session.timerFired(at: at(9000))
        #expect(session.pipeline.failure == nil)

        // Without a write timeout, no deadline.
        var transport = TransportOptions()
        transport.writeTimeout = nil
        var patient = try SessionRig.open(transport: transport).session
        try patient.send(.binary([1]))
        patient.writeSome(0, at: at(1000))
        #expect(patient.nextDeadline == nil)
    }

    @Test("A stall past the write timeout fails the pipeline with .timedOut(.write); the directive closes")
    func writeStallFails() throws {
        var (session, _) = try SessionRig.open(transport: Self.stallOptions())
        try session.send(.binary([UInt8](repeating: 1, count: 1000)))
        session.writeSome(0, at: at(1000))
        session.timerFired(at: at(6000))
        #expect(session.pipeline.failure == .timedOut(.write))
        #expect(session.socketDirective == .close)
        #expect(session.wantsInput == false)
        #expect(session.bufferedAmount == 0)
        #expect(throws: WebSocketError.timedOut(.write)) { try session.send(.text("x")) }
        guard case .closed(let status)? = session.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .aborted)

        // During the handshake, the stall is the session's failure.
        var handshaking = try SessionRig.connected(transport: Self.stallOptions())
        handshaking.writeSome(0, at: .zero)
        #expect(handshaking.nextDeadline == at(5000))  // before the handshake's 10 s
        handshaking.timerFired(at: at(5000))
        #expect(handshaking.socketDirective == .close)
        #expect(handshaking.finish().ended == .failed(.timedOut(.write)))
    }
}
