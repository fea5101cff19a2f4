// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore
@_spi(Testing) import WebSocketTLS

/// The man-in-the-middle mode of ``TLSTarget``: a real peer, whose bytes are altered on their way to
/// the session under test; the session's bytes reach the peer unaltered.
struct ManInTheMiddle {
    let options: TLSTarget.Options
    let peerMessage: [UInt8]
    let ownMessage: [UInt8]
    let peerFinishes: Bool
    let ownFinishes: Bool
    let peerTLS12: Bool
    /// The resumption and server name mode: whether a session is resumed, and the name asked for.
    let resumes: Bool
    let asksOtherName: Bool
    /// The flags take effect without the trust byte only.
    var namedMode: Bool { options.trust == nil && (resumes || asksOtherName) }
    var serverName: String { namedMode && asksOtherName ? "alt.fuzz.test" : "localhost" }
    /// The operations, by offset in the peer's original stream.
    private var flips: [Int: UInt8] = [:]
    private var insertions: [Int: [UInt8]] = [:]
    private var deletions: [Range<Int>] = []
    private var truncation: Int?

    init(options: TLSTarget.Options, script input: inout FuzzInput) {
        self.options = options
        peerMessage = TLSTarget.pattern(Int(input.byte()) * 64, seed: 0x50)
        ownMessage = TLSTarget.pattern(Int(input.byte()) * 64, seed: 0xA0)
        let flags = input.byte()
        peerFinishes = flags & 0x01 != 0
        ownFinishes = flags & 0x02 != 0
        peerTLS12 = flags & 0x04 != 0
        resumes = flags & 0x08 != 0
        asksOtherName = flags & 0x10 != 0
        while input.remainingCount >= 4 {
            let kind = input.byte()
            let offset = Int(input.uint16())
            let value = input.byte()
            switch kind % 4 {
            case 0: flips[offset, default: 0] ^= value
            case 1: insertions[offset, default: []] += TLSTarget.pattern(Int(value % 32), seed: value)
            case 2: deletions.append(offset..<(offset + Int(value % 64) + 1))
            default: truncation = min(truncation ?? offset, offset)
            }
        }
    }

    func run() {
        if namedMode {
            TLSFuzzContexts.sessionCache.removeAll()
            if resumes { prime() }
        }
        var own = makeOwn()
        // The early bytes are sent before finishSending(), so they count either way.
        var ownSent: [UInt8] = options.sendsEarly ? TLSTarget.pattern(1_024, seed: 0xE0) : []
        var ownFinished = options.finishesFirst
        var peer = makePeer()
        var peerSent: [UInt8] = []
        var peerMessageSent = false, ownMessageSent = false, peerFinished = false
        var generator = Connection.SeededGenerator(seed: UInt64(options.splitSeed))
        var position = 0          // in the peer's original stream
        var altered = false       // whether an operation changed a delivered byte
        var cut = false           // whether the stream was ended by a truncation

        for round in 0..<400 {
            var acted = false
            if Self.canSend(peer.status), !peerMessageSent {
                peerMessageSent = true
                acted = true
                if !peerMessage.isEmpty {
                    peer.send(peerMessage)
                    peerSent += peerMessage
                }
            } else if peerMessageSent, peerFinishes, !peerFinished {
                peerFinished = true
                acted = true
                peer.finishSending()
            }
            if Self.canSend(own.status) {
                if !ownMessageSent {
                    ownMessageSent = true
                    acted = true
                    if !ownMessage.isEmpty {
                        own.send(ownMessage)
                        if !ownFinished { ownSent += ownMessage }
                    }
                } else if ownFinishes, !ownFinished {
                    ownFinished = true
                    acted = true
                    own.finishSending()
                }
            }

            let fromPeer = peer.takeOutput()
            if !cut, !fromPeer.isEmpty {
                let (bytes, truncated, changed) = alter(fromPeer, at: position)
                position += fromPeer.count
                altered = altered || changed
                for range in TLSTarget.pieces(of: bytes.count, maxPiece: options.maxPiece, generator: &generator) {
                    own.receive(bytes[range])
                }
                if truncated {
                    cut = true
                    own.receiveEOF()
                }
            }
            let fromOwn = own.takeOutput()
            if !fromOwn.isEmpty { peer.receive(fromOwn[...]) }
            checkIntegrity(own: own, peer: peer, ownSent: ownSent, peerSent: peerSent, peerFinished: peerFinished)
            if !acted, fromPeer.isEmpty, fromOwn.isEmpty { break }
            if round == 399 { fuzzFailure("\(options.who): the exchange never went quiet") }
        }
        if options.endOfStream, !cut { own.receiveEOF() }
        checkIntegrity(own: own, peer: peer, ownSent: ownSent, peerSent: peerSent, peerFinished: peerFinished)
        Trace.print("\(options.who) in the middle (altered \(altered)): \(own.status), read \(own.read.count) of \(peerSent.count); "
                        + "peer \(peer.status), read \(peer.read.count) of \(ownSent.count)")
        if options.trust != nil { checkTrustAndKeyLogs(own: own, peer: peer) }
        if !altered { checkUnaltered(own: own, peer: peer, ownSent: ownSent, peerSent: peerSent) }
        if namedMode {
            if !altered { checkResumptionAndName(own: own, peer: peer) }
            // Nothing an input stored outlives it.
            TLSFuzzContexts.sessionCache.removeAll()
        }
    }

    /// The contexts of the resumption and server name mode: the session under test's, the peer's.
    private var namedContexts: (own: TLSContext, peer: TLSContext) {
        options.server ? (TLSFuzzContexts.namedServer(tls12: false), TLSFuzzContexts.resumingClient(tls12: peerTLS12))
            : (TLSFuzzContexts.resumingClient(tls12: false), TLSFuzzContexts.namedServer(tls12: peerTLS12))
    }

    private func makeOwn() -> TLSObserved {
        namedMode ? options.makeSession(context: namedContexts.own, serverName: serverName) : options.makeSession()
    }

    /// A clean handshake between two sessions of the mode's contexts, whose client reads the
    /// server's ticket into the cache.
    private func prime() {
        let (ownContext, peerContext) = namedContexts
        let clientContext = options.server ? peerContext : ownContext
        let serverContext = options.server ? ownContext : peerContext
        do throws(WebSocketError) {
            var client = TLSObserved(try clientContext.makeClientSession(serverName: serverName), who: "priming client", isServer: false,
                                     hasPins: false, limits: TLSLimits(), readSize: 16 << 10)
            var server = TLSObserved(try serverContext.makeServerSession(), who: "priming server", isServer: true,
                                     hasPins: false, limits: TLSLimits(), readSize: 16 << 10)
            for _ in 0..<50 {
                let fromClient = client.takeOutput(), fromServer = server.takeOutput()
                if fromClient.isEmpty, fromServer.isEmpty { break }
                if !fromClient.isEmpty { server.receive(fromClient[...]) }
                if !fromServer.isEmpty { client.receive(fromServer[...]) }
            }
            guard client.status == .established, server.status == .established else {
                fuzzFailure("the priming handshake failed: client \(client.status), server \(server.status)")
            }
        } catch {
            fuzzFailure("cannot make the priming sessions: \(error)")
        }
    }

    /// Nothing was altered, in the resumption and server name mode: both resumed exactly when a
    /// TLS 1.3 session was cached, and the client verified the name it asked for.
    private func checkResumptionAndName(own: TLSObserved, peer: TLSObserved) {
        guard Self.canSend(own.status), Self.canSend(peer.status) else { return }
        let expected = resumes && !peerTLS12
        if own.session.isResumed != expected || peer.session.isResumed != expected {
            fuzzFailure("\(options.who), nothing altered: resumed \(own.session.isResumed), its peer \(peer.session.isResumed); "
                            + "expected \(expected)")
        }
        let client = options.server ? peer.session : own.session
        let subject = serverName == "localhost" ? "CN=localhost" : "CN=alternative"
        if client.peerCertificateSubject != subject {
            fuzzFailure("the client asked for \(serverName) and verified \(client.peerCertificateSubject ?? "nothing")")
        }
    }

    /// With the trust byte: a server past its handshake asked its evaluator about the certificate
    /// its peer presented; two sides past the handshake logged the same secrets (any change to the
    /// handshake fails its Finished messages).
    private func checkTrustAndKeyLogs(own: TLSObserved, peer: TLSObserved) {
        let recorder = TLSFuzzRecorder.shared
        if options.server, Self.canSend(own.status), options.peerPresentsCertificate, recorder.evaluations.count != 1 {
            fuzzFailure("server: established with a client certificate, asked its evaluator \(recorder.evaluations.count) times")
        }
        own.trust?.checkKeyLog(recorder.peerLines, who: "peer of the \(options.who)")
        guard Self.canSend(own.status), Self.canSend(peer.status) else { return }
        if recorder.underTestLines.isEmpty || Set(recorder.underTestLines) != Set(recorder.peerLines) {
            fuzzFailure("\(options.who) logged \(recorder.underTestLines.count) key log lines, its peer \(recorder.peerLines.count), "
                            + "not the same")
        }
    }

    /// Whether the evaluator refused the chain of the peer (the session under test then failed, as
    /// TLSTrustExpectations checks).
    private var evaluatorRejected: Bool {
        guard options.trust != nil, let trust = TLSFuzzRecorder.shared.evaluations.first else { return false }
        return TLSFuzzRecorder.shared.rejects(trust.defaultVerdict)
    }

    /// Past the handshake and not failed: a session whose peer ended its direction still sends.
    static func canSend(_ status: TransportLayerStatus) -> Bool {
        switch status {
        case .established, .ended: return true
        case .establishing, .failed: return false
        }
    }

    private func makePeer() -> TLSObserved {
        let context = namedMode ? namedContexts.peer
            : TLSFuzzContexts.peer(ofServer: options.server, withCertificate: options.peerPresentsCertificate, tls12: peerTLS12)
        let session: TLSSession
        do throws(WebSocketError) {
            session = options.server ? try context.makeClientSession(serverName: serverName) : try context.makeServerSession()
        } catch {
            fuzzFailure("cannot make the peer: \(error)")
        }
        return TLSObserved(session, who: "peer of the \(options.who)", isServer: !options.server, hasPins: false,
                           limits: TLSLimits(), readSize: 16 << 10)
    }

    /// `chunk` of the peer's stream, which starts at `start`, with the operations applied: the bytes
    /// to deliver, whether the stream ends in it, whether a byte changed.
    private func alter(_ chunk: [UInt8], at start: Int) -> ([UInt8], Bool, Bool) {
        var out: [UInt8] = []
        out.reserveCapacity(chunk.count)
        var changed = false
        for (index, byte) in chunk.enumerated() {
            let offset = start + index
            if offset == truncation { return (out, true, true) }
            if let inserted = insertions[offset], !inserted.isEmpty {
                out += inserted
                changed = true
            }
            if deletions.contains(where: { $0.contains(offset) }) {
                changed = true
                continue
            }
            let flip = flips[offset] ?? 0
            if flip != 0 { changed = true }
            out.append(byte ^ flip)
        }
        return (out, false, changed)
    }

    /// Integrity: nothing read that was not sent, in order; a clean end only after everything.
    private func checkIntegrity(own: TLSObserved, peer: TLSObserved, ownSent: [UInt8], peerSent: [UInt8], peerFinished: Bool) {
        if !peerSent.starts(with: own.read) {
            fuzzFailure("\(options.who) read \(own.read.count) bytes that are not a prefix of the \(peerSent.count) its peer sent")
        }
        if !ownSent.starts(with: peer.read) {
            fuzzFailure("the peer read \(peer.read.count) bytes that are not a prefix of the \(ownSent.count) the \(options.who) sent")
        }
        if own.status == .ended(clean: true), !(peerFinished && own.read.count == peerSent.count) {
            fuzzFailure("\(options.who) ended cleanly after \(own.read.count) of \(peerSent.count) bytes (peer finished: \(peerFinished))")
        }
    }

    /// Nothing was altered: the exchange must have gone through.
    private func checkUnaltered(own: TLSObserved, peer: TLSObserved, ownSent: [UInt8], peerSent: [UInt8]) {
        if options.tight, case .failed(.tls(let error)) = own.status, error.kind == .limitExceeded { return }
        if evaluatorRejected { return }
        let expected: TransportLayerStatus = peerFinishes ? .ended(clean: true)
            : options.endOfStream ? .ended(clean: false) : .established
        if own.status != expected {
            fuzzFailure("\(options.who), nothing altered: \(own.status), expected \(expected); peer \(peer.status)")
        }
        if own.read != peerSent { fuzzFailure("\(options.who), nothing altered: read \(own.read.count) of \(peerSent.count) bytes") }
        if peer.read != ownSent { fuzzFailure("peer, nothing altered: read \(peer.read.count) of \(ownSent.count) bytes") }
    }
}
