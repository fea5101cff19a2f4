// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable import WebSocketTransport

@Suite("SocketSession: what the consumer is handed, what it holds, and when the socket is read")
struct SocketSessionEventTests {
    @Test("Text and binary messages are delivered whole; a consumer that holds nothing holds nothing")
    func messages() throws {
        var (session, peer) = try SessionRig.open()
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(text: "héllo")
            try connection.send(binary: [1, 2, 3])
            try connection.send(text: "")
        }
        #expect(session.pullEvents() == [.message(.text("héllo")), .message(.binary([1, 2, 3])), .message(.text(""))])
        #expect(session.heldBytes == 0)
        #expect(session.wantsInput == true)
    }

    @Test("With Delivery.fragments, payload is delivered as it arrives, as fragments, and counted as held")
    func fragments() throws {
        var configuration = Connection.Configuration()
        configuration.delivery = .fragments
        var (session, peer) = try SessionRig.open(configuration: configuration, consumerHolds: true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.sendFragment(Array("hel".utf8), kind: .text, isFinal: false)
            try connection.sendFragment(Array("lo".utf8), kind: .text, isFinal: true)
            try connection.send(binary: [9, 8])
        }
        #expect(session.pullEvents() == [
            .message(.fragment(Connection.Fragment(kind: .text, bytes: Array("hel".utf8), isFirst: true, isFinal: false))),
            .message(.fragment(Connection.Fragment(kind: .text, bytes: Array("lo".utf8), isFirst: false, isFinal: true))),
            .message(.fragment(Connection.Fragment(kind: .binary, bytes: [9, 8], isFirst: true, isFinal: true)))
        ])
        #expect(session.heldBytes == 7)
    }

    @Test("Pings, pongs and the peer's Close are answered, and delivered only with receivesControlFrames",
          arguments: [false, true])
    func controlFrames(receivesControlFrames: Bool) throws {
        var transport = TransportOptions()
        transport.receivesControlFrames = receivesControlFrames
        var (session, peer) = try SessionRig.open(transport: transport, consumerHolds: true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.ping([1])
            try connection.pong([2, 2])
            try connection.close(code: Connection.CloseCode(rawValue: 4000), reason: "bye")
        }
        let events = session.pullEvents()
        if receivesControlFrames {
            #expect(events == [.message(.ping([1])), .message(.pong([2, 2])),
                               .message(.close(Connection.CloseFrame(code: Connection.CloseCode(rawValue: 4000), reason: "bye")))])
            #expect(session.heldBytes == 1 + 2 + 3)
        } else {
            #expect(events.isEmpty)
            #expect(session.heldBytes == 0)
        }
        // Either way the ping was answered and the Close replied to.
        session.write(to: &peer, at: .zero)
        let answers = peer.pullEvents()
        #expect(answers.first == .pong([1]))
        #expect(answers.contains { if case .closed(let status) = $0 { status.wasClean } else { false } })
    }

    @Test("Actions are pulled one at a time: an answer to a message goes out before a later frame fails the connection")
    func answerBeforeViolation() throws {
        var (session, peer) = try SessionRig.open()
        try peer.connection.send(text: "echo me")
        peer.update()
        var bytes = peer.takeSocketOutput()
        bytes += [0x83, 0x00]  // a frame with a reserved opcode (RFC 6455 §5.2): the peer fails the protocol
        bytes.withUnsafeBytes { session.received($0) }
        session.advanceTime(to: .zero)
        guard case .deliver(.message(let message))? = session.nextAction() else { throw PipelineTestFailure("no message") }
        #expect(message == .text("echo me"))
        try session.send(message)  // the handler's echo, before the next action is pulled
        #expect(session.nextAction() == nil)
        guard case .closed(let status) = session.pipeline.connection.state else { throw PipelineTestFailure("open") }
        #expect(status.code == .protocolError)
        session.write(to: &peer, at: .zero)
        let answers = peer.pullEvents()
        #expect(answers.first == .text("echo me"))
        #expect(answers.contains(.closeReceived(Connection.CloseFrame(code: .protocolError, reason: status.reason))))
    }

    @Test("takeStateChange() says when the connection's state may have changed: opened, closing, closed; not for messages")
    func stateChanges() throws {
        var session = try SessionRig.connected()
        #expect(session.takeStateChange() == false)
        var peer = try SessionRig.server()
        _ = try SessionRig.handshake(&session, with: &peer)
        #expect(session.takeStateChange() == true)  // open
        #expect(session.takeStateChange() == false)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(text: "x")
        }
        _ = session.pullAll()
        try session.send(.text("y"))
        #expect(session.takeStateChange() == false)
        try session.close(code: .normalClosure, reason: "", completion: nil)
        #expect(session.takeStateChange() == true)  // closing
        session.write(to: &peer, at: .zero)
        _ = peer.pullEvents()
        session.read(from: &peer, at: .zero)
        #expect(session.takeStateChange() == false)  // not pulled yet
        _ = session.pullAll()
        #expect(session.takeStateChange() == true)  // closed
        #expect(session.pipeline.connection.state != .open)

        var (sent, _) = try SessionRig.open()
        _ = sent.takeStateChange()
        try sent.send(.close(Connection.CloseFrame(code: .goingAway)))
        #expect(sent.takeStateChange() == true)
        var (aborted, _) = try SessionRig.open()
        _ = aborted.takeStateChange()
        aborted.writeFailed(.brokenPipe)
        _ = aborted.pullAll()
        #expect(aborted.takeStateChange() == true)
    }

    @Test("A holding consumer: reading stops at maxUndeliveredMessages, empty messages counted too")
    func heldMessages() throws {
        var transport = TransportOptions()
        transport.maxUndeliveredMessages = 3
        var (session, peer) = try SessionRig.open(transport: transport, consumerHolds: true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(binary: [])
            try connection.send(text: "")
        }
        #expect(session.pullEvents().count == 2)
        #expect(session.heldBytes == 0 && session.heldMessages == 2)
        #expect(session.wantsInput == true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(binary: [])
        }
        #expect(session.pullEvents().count == 1)
        #expect(session.wantsInput == false)
        session.consumerTook(0, messages: 1)
        #expect(session.heldMessages == 2)
        #expect(session.wantsInput == true)
    }

    @Test("A holding consumer: reading stops at maxUndeliveredBytes and resumes once it takes some")
    func heldBytes() throws {
        var transport = TransportOptions()
        transport.maxUndeliveredBytes = 10
        var (session, peer) = try SessionRig.open(transport: transport, consumerHolds: true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(binary: [UInt8](repeating: 1, count: 6))
        }
        #expect(session.pullEvents().count == 1)
        #expect(session.heldBytes == 6)
        #expect(session.wantsInput == true)
        try peerSends(&peer, to: &session) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(text: "abcd")
        }
        #expect(session.pullEvents() == [.message(.text("abcd"))])
        #expect(session.heldBytes == 10)
        #expect(session.wantsInput == false)
        session.consumerTook(4)
        #expect(session.heldBytes == 6)
        #expect(session.wantsInput == true)
        session.consumerTook(100)
        #expect(session.heldBytes == 0)

        // A consumer that does not hold (a handler called in place) never stops the reading.
        var (inPlace, other) = try SessionRig.open(transport: transport, consumerHolds: false)
        try peerSends(&other, to: &inPlace) { (connection: inout Connection) throws(Connection.UsageError) in
            try connection.send(binary: [UInt8](repeating: 1, count: 64))
        }
        #expect(inPlace.pullEvents().count == 1)
        #expect(inPlace.heldBytes == 0)
        #expect(inPlace.wantsInput == true)
    }

    @Test("Once the connection is closed, input is read (and discarded) to the end, however much is held")
    func drainsAfterClose() throws {
        var transport = TransportOptions()
        transport.maxUndeliveredBytes = 1
        var (session, peer) = try SessionRig.open(transport: transport, consumerHolds: true)
        try session.close(code: .normalClosure, reason: "", completion: nil)
        session.write(to: &peer, at: .zero)
        // The peer sends a message before it reads the Close, then replies.
        try peer.connection.send(text: "late")
        _ = peer.pullEvents()
        session.read(from: &peer, at: .zero)
        #expect(session.pullEvents() == [.message(.text("late"))])
        #expect(session.heldBytes == 4)
        guard case .closed(let status) = session.pipeline.connection.state else { throw PipelineTestFailure("not closed") }
        #expect(status.wasClean)
        // The client waits for the server to close the TCP connection: it reads on.
        #expect(session.socketDirective == .open)
        #expect(session.wantsInput == true)
        session.receivedEndOfStream()
        #expect(session.inputEnded)
        #expect(session.wantsInput == false)
        #expect(session.socketDirective == .close)
        #expect(session.finish().ended == .closed(status))
    }

    @Test("Input is not wanted once it ended, once a read failed, once the transport failed")
    func inputEnds() throws {
        var (ended, _) = try SessionRig.open()
        ended.receivedEndOfStream()
        #expect(ended.pullEvents().isEmpty)
        #expect(ended.wantsInput == false)
        #expect(ended.socketDirective == .close)
        guard case .closed(let status)? = ended.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(status.code == .abnormalClosure)
        #expect(status.failure == .unexpectedEndOfStream)

        var reset = try SessionRig.open().session
        reset.readFailed(.connectionReset)
        #expect(reset.inputEnded)
        #expect(reset.wantsInput == false)
        #expect(reset.pipeline.failure == .transport(.connectionReset))
        #expect(reset.socketDirective == .close)

        var broken = try SessionRig.open().session
        broken.writeFailed(.brokenPipe)
        #expect(!broken.inputEnded)
        #expect(broken.wantsInput == false)
        #expect(broken.socketDirective == .close)
        guard case .closed(let lost)? = broken.finish().ended else { throw PipelineTestFailure("not closed") }
        #expect(lost.code == .abnormalClosure)
    }
}
