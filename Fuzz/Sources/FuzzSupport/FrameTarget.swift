// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// `frame-server` and `frame-client`: an open connection fed arbitrary bytes as frames.
///
/// Input: `control`, two bytes of split point, then the bytes for the connection. Bits of `control`:
///
/// | bit | meaning |
/// | --- | --- |
/// | 0x01 | ``Connection/Delivery/fragments`` instead of whole messages |
/// | 0x02 | automatic pongs off |
/// | 0x04 | the tight limits (``FuzzConfiguration/tightLimits``) |
/// | 0x08 | the bytes are frames to mask (server) or unmask (client): see ``WireEncoder/frameStream(_:masked:keysFromInput:)`` |
/// | 0x10 | with 0x08: the masking keys come from the input |
/// | 0x20 | end of stream after the bytes |
/// | 0x40 | the connection sends its Close first (frames are then read while closing) |
///
/// Invariants: no trap; the events follow ``EventChecker``'s rules; memory within the limits
/// (``MemoryBounds``); the same events and output when the bytes come in two pieces; for a server,
/// the same events and output with replies framed in the read buffer as in its own output
/// (``InPlaceDifferential``); the output is
/// valid and re-parses to the same frames in the peer; every ping read while open is answered with its
/// payload (unless pongs are off or the output is over its limit); a violation is answered with a
/// Close frame carrying its code; end of stream always ends the connection.
public enum FrameTarget {
    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int, cutIsServer: Bool) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let splitSeed = Int(input.uint16())
        let variant = Variant(fragments: control & 0x01 != 0, automaticPongs: control & 0x02 == 0,
                              tight: control & 0x04 != 0)
        let endOfStream = control & 0x20 != 0
        let closeFirst = control & 0x40 != 0
        let wire = control & 0x08 != 0
            ? WireEncoder.frameStream(&input, masked: cutIsServer, keysFromInput: control & 0x10 != 0)
            : input.rest()

        let pair = Prepared.openPair(cutIsServer: cutIsServer, variant: variant)
        let who = cutIsServer ? "server" : "client"
        let whole = feed(pair.cut, wire, cuts: [], endOfStream: endOfStream, closeFirst: closeFirst, who: who)
        let cut = splitSeed % (wire.count + 1)
        let split = feed(pair.cut, wire, cuts: [cut], endOfStream: endOfStream, closeFirst: closeFirst, who: who)
        compareRuns(whole, split, exactEvents: !variant.fragments, context: "\(who), split at \(cut) of \(wire.count)",
                    frames: OutputFrames(writerIsClient: !cutIsServer, outputLimit: variant.configuration.limits.maxBufferedOutput))

        // A server reading in place answers the same with its replies framed in the read buffer.
        if cutIsServer && !closeFirst { InPlaceDifferential.check(pair.cut, wire, cut: cut, writerSeed: splitSeed) }

        Trace.print("\(who) (\(variant)) read \(wire.count) bytes: events \(whole.events), state \(whole.state)")
        // The output is valid and re-parses, in the peer, to what the harness decoded.
        var peer = Peer(pair.peer, writerIsClient: !cutIsServer, writer: who)
        peer.deliver(whole.output)
        Trace.print("\(who) wrote \(peer.decoder.items)")
        checkReplies(whole, decoded: peer.decoder.items, variant: variant, closeFirst: closeFirst, who: who)
        if endOfStream {
            guard case .closed = whole.state else { fuzzFailure("\(who): \(whole.state) after end of stream") }
        }
    }

    public struct Run {
        public var events: [Connection.Event]
        public var output: [UInt8]
        public var state: Connection.State
    }

    /// Feeds `wire` to a copy of `connection` in pieces ending at `cuts`, pulling events after each.
    static func feed(_ connection: Connection, _ wire: [UInt8], cuts: [Int], endOfStream: Bool,
                     closeFirst: Bool, who: String, maxPieceSize: Int? = nil) -> Run {
        var connection = connection
        var checker = EventChecker(who: who, limits: connection.configuration.limits)
        if let maxPieceSize { checker.maxPieceSize = maxPieceSize }
        var output: [UInt8] = []
        if closeFirst {
            do { try connection.close(code: .normalClosure, reason: "fuzz") } catch {
                fuzzFailure("\(who): close() of an open connection threw \(error)")
            }
        }
        var start = 0
        for end in cuts + [wire.count] {
            connection.receive(wire[start..<end])
            start = end
            checker.drain(&connection)
            MemoryBounds.check(connection, who: who)
            MemoryBounds.checkInputDrained(connection, who: who)
            output += connection.takeOutput()
        }
        if endOfStream {
            connection.receiveEOF()
            checker.drain(&connection)
            MemoryBounds.check(connection, who: who)
            MemoryBounds.checkInputDrained(connection, who: who)
            output += connection.takeOutput()
        }
        return Run(events: checker.events, output: output, state: connection.state)
    }

    /// The same input in other pieces gives the same events (whole messages, for fragment delivery)
    /// and the same output, byte for byte.
    ///
    /// One exception, when `frames` says how to read the output: a connection skips automatic pongs
    /// while its output holds more than ``Connection/Limits/maxBufferedOutput`` (RFC 6455 §5.5.3 lets it answer
    /// only the latest ping), so a run whose output was taken more often may have answered more pings.
    /// The outputs must then still say the same thing frame for frame, pongs aside, and one of them
    /// must have gone over the limit. (Their bytes differ beyond the first skipped pong: every frame a
    /// client writes draws a new masking key.)
    static func compareRuns(_ a: Run, _ b: Run, exactEvents: Bool, context: String, frames: OutputFrames? = nil) {
        let same = exactEvents ? sameEvents(a.events, b.events) : sameEvents(normalized(a.events), normalized(b.events))
        guard same else {
            fuzzFailure("""
                split invariance (\(context)): events differ
                  whole: \(a.events.suffix(4)) (\(a.events.count) events)
                  split: \(b.events.suffix(4)) (\(b.events.count) events)
                """)
        }
        guard sameBytes(a.output, b.output) || differOnlyInSkippedPongs(a, b, frames: frames) else {
            fuzzFailure("split invariance (\(context)): output differs (\(a.output.count) vs \(b.output.count) bytes)")
        }
        guard a.state == b.state else { fuzzFailure("split invariance (\(context)): state \(a.state) vs \(b.state)") }
    }

    /// How to read a run's output as frames, for ``compareRuns(_:_:exactEvents:context:frames:)``.
    public struct OutputFrames {
        /// Whether the writer is a client (its frames are masked).
        public var writerIsClient: Bool
        /// The writer's ``Connection/Limits/maxBufferedOutput``.
        public var outputLimit: Int
        /// The output starts with an HTTP head (a server's response), the same in both runs.
        public var afterHead = false
    }

    static func differOnlyInSkippedPongs(_ a: Run, _ b: Run, frames: OutputFrames?) -> Bool {
        guard let frames, max(a.output.count, b.output.count) > frames.outputLimit else { return false }
        var start = 0
        if frames.afterHead {
            guard let end = HTTPRequestTarget.headEnd(a.output), a.output.prefix(end) == b.output.prefix(end) else { return false }
            start = end
        }
        func items(_ output: [UInt8]) -> [WireItem] {
            var decoder = WireDecoder(masked: frames.writerIsClient, writer: "split-invariance check")
            decoder.feed(Array(output[start...]))
            return decoder.items
        }
        func isPong(_ item: WireItem) -> Bool { if case .pong = item { true } else { false } }
        let x = items(a.output), y = items(b.output)
        guard x.filter({ !isPong($0) }) == y.filter({ !isPong($0) }) else { return false }
        // Whichever answered fewer pings answered a subset of the other's, in order.
        let pongsX = x.filter(isPong), pongsY = y.filter(isPong)
        return pongsX.count <= pongsY.count ? isSubsequence(pongsX, of: pongsY) : isSubsequence(pongsY, of: pongsX)
    }

    /// The replies written match what was read: pongs for pings, the close reply, the violation's
    /// Close frame.
    static func checkReplies(_ run: Run, decoded: [WireItem], variant: Variant, closeFirst: Bool, who: String) {
        let limits = variant.configuration.limits
        let pings = run.events.compactMap { if case .ping(let p) = $0 { return p } else { return nil } }
        let pongs = decoded.compactMap { if case .pong(let p) = $0 { return p } else { return nil } }
        let closes = decoded.compactMap { if case .close(let code, let reason) = $0 { return (code, reason) } else { return nil } }
        // While open, every ping is answered, in order, unless the output went over its limit; none
        // after our Close.
        let expectedPongs = variant.automaticPongs && !closeFirst ? pings : []
        let pongBytes = pings.reduce(0) { $0 + 6 + $1.count }
        if pongBytes <= limits.maxBufferedOutput {
            guard pongs == expectedPongs else { fuzzFailure("\(who): pongs \(pongs) for pings \(expectedPongs)") }
        } else {
            guard isSubsequence(pongs, of: expectedPongs) else { fuzzFailure("\(who): pongs \(pongs) for pings \(expectedPongs)") }
        }
        guard closes.count <= 1 else { fuzzFailure("\(who): \(closes.count) Close frames") }
        let close = closes.first
        if closeFirst {
            guard let close, close.0 == 1000, close.1 == Array("fuzz".utf8), decoded.first.map({ if case .close = $0 { true } else { false } }) == true else {
                fuzzFailure("\(who): the Close frame sent first is not the first frame: \(decoded.prefix(2))")
            }
            return
        }
        for event in run.events {
            switch event {
            case .protocolViolation(let violation):
                guard let close, close.0 == violation.closeCode.rawValue, close.1 == Array(violation.reason.utf8) else {
                    fuzzFailure("\(who): \(violation) answered with \(String(describing: close))")
                }
            case .closeReceived(let frame):
                let code = frame.code == .noStatusReceived ? nil : frame.code.rawValue
                guard let close, close.0 == code, close.1.isEmpty else {
                    fuzzFailure("\(who): Close \(frame) answered with \(String(describing: close))")
                }
            default:
                continue
            }
        }
        guard close == nil || run.events.contains(where: {
            if case .protocolViolation = $0 { return true }
            if case .closeReceived = $0 { return true }
            return false
        }) else { fuzzFailure("\(who): a Close frame with no reason to send one") }
    }
}
