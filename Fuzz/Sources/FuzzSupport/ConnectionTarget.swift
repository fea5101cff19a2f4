// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// `connection-server` and `connection-client`: an open connection (the "connection under test") and
/// its peer, driven by a script of operations read from the input: arbitrary bytes, frames of any size
/// and valid traffic from the peer for the connection to read, sends, fragments, pings, pongs, closes,
/// time, partial writes, end of stream.
///
/// Input: `control`, `fragmentation`, `split`, then operations. Bits of `control`: 0x01 fragment
/// delivery; 0x02 automatic pongs off; 0x04 the tight limits; 0x08 outgoing messages split into
/// frames of `fragmentationSizes[fragmentation & 7]` bytes; 0x10 keepalive pings every second (pong
/// timeout 3 s); 0x20 raw bytes are frames to mask (server) or unmask (client), as in the frame
/// targets.
///
/// An operation is a byte: its low 4 bits pick it (see ``Session/perform(_:_:)``), 0x10 and 0x20 are
/// its flags, 0x40 skips pulling events after it, 0x80 makes it big (amplified payloads up to ~192 KiB,
/// within a budget of 160 KiB per input).
///
/// Invariants, beyond those of every target (``EventChecker``, ``MemoryBounds``): the peer reads
/// exactly the data messages the connection under test sent without an error, in order, and the
/// explicit pings, pongs and Close frame; everything it writes is valid (``WireDecoder``); while the
/// connection under test only reads what its peer wrote, it reads exactly that, and fails for nothing
/// but a limit; a call that throws changes nothing; the output stays within `maxBufferedOutput` plus
/// one message when nobody takes it; and the whole script with each read split in two gives the same
/// events and output.
public enum ConnectionTarget {
    /// The sizes outgoing messages are split at (a few, since each configuration keeps a prepared pair).
    static let fragmentationSizes = [1, 2, 7, 125, 126, 1000, 4096, 65_536]

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int, cutIsServer: Bool) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let fragmentation = Int(input.byte())
        let splitSeed = Int(input.byte())
        let variant = Variant(fragments: control & 0x01 != 0, automaticPongs: control & 0x02 == 0,
                              tight: control & 0x04 != 0,
                              fragmentationSize: control & 0x08 != 0 ? fragmentationSizes[fragmentation & 7] : nil,
                              keepalive: control & 0x10 != 0)
        let script = input.rest()
        let pair = Prepared.openPair(cutIsServer: cutIsServer, variant: variant)
        let maskRaw = control & 0x20 != 0

        var whole = Session(pair: pair, cutIsServer: cutIsServer, maskRaw: maskRaw, splitSeed: nil)
        whole.run(script)
        // The split run replays what the whole run's peer did instead of running a peer of its own, as
        // long as the connection under test hands the peer the same bytes at the same steps: the peer
        // would then read, check and write exactly what it did in the whole run. At the first
        // difference the split run starts again with a peer of its own, as every split run once did.
        var split = Session(pair: pair, cutIsServer: cutIsServer, maskRaw: maskRaw, splitSeed: splitSeed,
                            replaying: whole.recording)
        split.run(script)
        if !split.replayedExactly {
            Trace.print("\(whole.who): the split run wrote differently; run again with a peer of its own")
            split = Session(pair: pair, cutIsServer: cutIsServer, maskRaw: maskRaw, splitSeed: splitSeed)
            split.run(script)
        }

        Trace.print("\(whole.who) (\(variant)): events \(whole.checker.events)")
        Trace.print("\(whole.who): wrote \(whole.peer.decoder.items), its peer wrote \(whole.inbound.items)\(whole.inboundIsClean ? "" : " and more")")
        Trace.print("\(whole.who): final state \(whole.cut.state)")
        Trace.print("\(whole.who): \(whole.operationIndex) operations, \(whole.checker.events.count) events, \(Session.amplifyLimit - whole.amplifyBudget) bytes amplified, \(Session.frameLimit - whole.frameBudget) frames of sends")
        let context = "\(whole.who), each read split (seed \(splitSeed))"
        // A replay matched every write of the whole run, byte for byte: the outputs are the same.
        let outputs = split.replaying == nil ? (whole.recording.output, split.recording.output) : ([], [])
        FrameTarget.compareRuns(FrameTarget.Run(events: whole.checker.events, output: outputs.0, state: whole.cut.state),
                                FrameTarget.Run(events: split.checker.events, output: outputs.1, state: split.cut.state),
                                exactEvents: !variant.fragments, context: context)
        guard split.replaying != nil || whole.peer.collector.items == split.peer.collector.items else {
            fuzzFailure("split invariance (\(context)): the peer read different frames")
        }
    }
}

/// What the peer of a run read and wrote, in order: what a later run of the same script replays
/// instead of a peer of its own.
struct PeerRecording {
    /// Every piece of output the connection under test handed its peer (empty ones too).
    var deliveries: [[UInt8]] = []
    /// Every output the peer had at a ``Session/takePeerOutput()``.
    var replies: [[UInt8]] = []
    /// The peer's decoder at the end: what the output said, for ``Session/finalChecks()``.
    var decoded: WireDecoder? = nil

    /// Every byte the connection under test wrote, in order.
    var output: [UInt8] { Bytes.joined(deliveries) }
}

struct Session {
    let cutIsServer: Bool
    let maskRaw: Bool
    let splitSeed: Int?
    let who: String
    /// The configuration of the connection under test, read once (its getter copies it).
    let limits: Connection.Limits
    let fragmentationSize: Int?
    /// The connection under test.
    var cut: Connection
    var checker: EventChecker
    /// What the connection under test read, as items.
    var collector = ItemCollector()
    var peer: Peer
    /// Decodes what the peer wrote to the connection under test, as long as it read nothing else.
    var inbound: WireDecoder
    var inboundIsClean = true
    /// Progress of the incremental checks in ``afterDrain(_:)``.
    var checkedEvents = 0
    var matchedItems = 0
    /// What this run's peer read and wrote (nothing while replaying).
    var recording = PeerRecording()
    /// The whole run's peer, replayed instead of this run's (see ``ConnectionTarget/run(_:_:cutIsServer:)``).
    let replaying: PeerRecording?
    var replayedDeliveries = 0
    var replayedReplies = 0
    /// The output or the steps differed from the recording's: this run's results do not count.
    var diverged = false

    // What the connection under test was asked to send, and did not refuse.
    var sentMessages: [WireItem] = []
    var streaming: (kind: Connection.MessageKind, bytes: [UInt8])? = nil
    var sentPings: [[UInt8]] = []
    var sentPongs: [[UInt8]] = []
    var sentClose: WireItem? = nil
    /// The most bytes one send added to the output.
    var largestSend = 0

    var now = Connection.Instant.zero
    var timeReported = false
    /// Time reports since the output was last taken whole (each may write a keepalive ping).
    var timeReportsSinceTake = 0
    /// Payload bytes the amplifying operations may still make.
    var amplifyBudget = Self.amplifyLimit
    /// Frames the sends of the connection under test may still be split into (see ``frameLimit``).
    var frameBudget = Self.frameLimit
    var operationIndex = 0

    init(pair: Prepared.Pair, cutIsServer: Bool, maskRaw: Bool, splitSeed: Int?, replaying: PeerRecording? = nil) {
        self.cutIsServer = cutIsServer
        self.maskRaw = maskRaw
        self.splitSeed = splitSeed
        self.replaying = replaying
        who = cutIsServer ? "server" : "client"
        cut = pair.cut
        let configuration = pair.cut.configuration
        limits = configuration.limits
        fragmentationSize = configuration.fragmentationSize
        checker = EventChecker(who: who, limits: limits)
        peer = Peer(pair.peer, writerIsClient: !cutIsServer, writer: who)
        inbound = WireDecoder(masked: cutIsServer, writer: "peer")  // a client peer masks
    }

    static let closeCodes: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999,
                                       0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535]
    static let milliseconds: [Int64] = [0, 1, 10, 100, 500, 999, 1000, 1001, 2000, 2999, 3000, 4999, 5000, 5001, 10_000, 60_000]

    /// The most operations of a script: enough for every limit (65 fragments past the 64 of the fuzz
    /// configurations, 8 pings past the tight output limit) and for the timer sequences. Each one is
    /// checked after it, in both runs (a few microseconds under the sanitizers), and scripts of
    /// thousands of operations made inputs of tens of milliseconds.
    static let operationLimit = 128

    mutating func run(_ script: [UInt8]) {
        var input = FuzzInput(script)
        while !input.isAtEnd && !diverged && operationIndex < Self.operationLimit {
            let operation = input.byte()
            let drained = perform(operation, &input)
            operationIndex += 1
            // After a drain the connection is as ``afterDrain(_:)`` checked it.
            if !drained { MemoryBounds.check(cut, state: cut.state, limits: limits, who: who) }
            checkOutputBound()
        }
        guard !diverged else { return }
        drain()
        takeOutputToPeer()
        guard !diverged else { return }
        if replaying == nil { recording.decoded = peer.decoder }
        finalChecks()
    }

    /// Whether a replaying run saw the recorded run's output and steps exactly, to the end.
    var replayedExactly: Bool {
        guard let replaying else { return true }
        return !diverged && replayedDeliveries == replaying.deliveries.count && replayedReplies == replaying.replies.count
    }

    /// One operation; `operation & 0x0F` picks it, A is 0x10, B is 0x20, "big" is 0x80 (0x40: events
    /// are not pulled after it). Arguments follow in the input; `n` is one byte, `u16` two.
    ///
    /// | op | what | arguments |
    /// | --- | --- | --- |
    /// | 0 | bytes for the connection under test (frames to (un)mask with control bit 0x20; A: keys from input) | n (+ a second byte if big), bytes |
    /// | 1 | one frame, any first byte, a repeated payload, masked as the role expects (A: the other way) | first byte, u16 length (×3 if big), fill |
    /// | 2 | the peer sends something valid, then it is delivered | kind byte (see ``peerSends(_:big:)``), its arguments |
    /// | 3 | send(text:) (A: amplified ASCII; B: as a `PreparedMessage`) | n, bytes / u16 length, fill |
    /// | 4 | send(binary:) (A: amplified pattern; B: as a `PreparedMessage`) | n, bytes / u16 length, pattern offset |
    /// | 5 | sendFragment (A: text, B: final, big: amplified) | n, bytes / u16 length, pattern offset |
    /// | 6, 7 | ping, pong | n, bytes |
    /// | 8 | close (A: any code) | code-table index / u16 code, n (masked to 0x7F unless big), reason bytes |
    /// | 9 | time advances | step: milliseconds[step & 15] × (1 + step >> 4) |
    /// | 10 | all output to the peer | |
    /// | 11 | a partial write to the peer | u16 count |
    /// | 12 | end of stream | |
    /// | 13 | A: time jumps to the next deadline; B: time runs backwards (must change nothing) | B: n |
    /// | 14 | the peer's pending output (its automatic replies) is delivered | |
    /// | 15 | a fork of the connection must read the same | |
    /// Returns whether it ended by pulling the events (and so by the checks of ``afterDrain(_:)``).
    @discardableResult
    mutating func perform(_ operation: UInt8, _ input: inout FuzzInput) -> Bool {
        let flagA = operation & 0x10 != 0
        let flagB = operation & 0x20 != 0
        let pull = operation & 0x40 == 0
        let big = operation & 0x80 != 0
        switch operation & 0x0F {
        case 0:
            // Arbitrary bytes (or frames to mask / unmask) for the connection under test.
            let count = Int(input.byte()) + (big ? Int(input.byte()) << 8 : 0)
            let bytes: [UInt8]
            if maskRaw {
                var chunk = FuzzInput(input.take(count))
                bytes = WireEncoder.frameStream(&chunk, masked: cutIsServer, keysFromInput: flagA)
            } else {
                bytes = input.take(count)
            }
            receive(bytes, fromPeer: false, pull: pull)
        case 1:
            // One frame of any first byte and a large repeated payload, masked as the role expects
            // (or, with flag A, the other way).
            let firstByte = input.byte()
            let length = amplifiedLength(&input, big: big)
            let fill = input.byte()
            let key = cutIsServer != flagA ? WireEncoder.sampleKey : nil
            receive(WireEncoder.frame(firstByte: firstByte, payload: Bytes.repeated([fill], count: length), key: key),
                    fromPeer: false, pull: pull)
        case 2:
            peerSends(&input, big: big)
            let bytes = takePeerOutput()
            receive(bytes, fromPeer: true, pull: pull)
        case 3:
            let text: String
            if flagA {
                let length = amplifiedLength(&input, big: big, sent: true)
                text = Self.asciiText(input.byte(), count: length)
            } else {
                text = framed(String(decoding: input.takeSlice(Int(input.byte())), as: UTF8.self))
            }
            // B: as a prepared message (framed once for many server connections; a client refuses it).
            let what = flagB ? "send(PreparedMessage(text:))" : "send(text:)"
            if call(what, { c throws(Connection.UsageError) in
                if flagB {
                    try c.send(Connection.PreparedMessage(text: text, fragmentationSize: c.configuration.fragmentationSize))
                } else {
                    try c.send(text: text)
                }
            }) {
                sentMessages.append(.text(Array(text.utf8)))
            }
        case 4:
            let bytes = payload(&input, amplified: flagA, big: big, sent: true)
            let what = flagB ? "send(PreparedMessage(binary:))" : "send(binary:)"
            if call(what, { c throws(Connection.UsageError) in
                if flagB {
                    try c.send(Connection.PreparedMessage(binary: bytes, fragmentationSize: c.configuration.fragmentationSize))
                } else {
                    try c.send(binary: bytes)
                }
            }) {
                sentMessages.append(.binary(bytes))
            }
        case 5:
            let kind: Connection.MessageKind = flagA ? .text : .binary
            let bytes = payload(&input, amplified: big, big: big)
            if call("sendFragment", { c throws(Connection.UsageError) in try c.sendFragment(bytes, kind: kind, isFinal: flagB) }) {
                var message = streaming ?? (kind, [])
                message.bytes += bytes
                if flagB {
                    sentMessages.append(kind == .text ? .text(message.bytes) : .binary(message.bytes))
                    streaming = nil
                } else {
                    streaming = message
                }
            }
        case 6:
            let payload = input.take(Int(input.byte()))
            if call("ping", { c throws(Connection.UsageError) in try c.ping(payload) }) { sentPings.append(payload) }
        case 7:
            let payload = input.take(Int(input.byte()))
            if call("pong", { c throws(Connection.UsageError) in try c.pong(payload) }) { sentPongs.append(payload) }
        case 8:
            let code = Connection.CloseCode(rawValue: flagA ? input.uint16() : Self.closeCodes[Int(input.byte()) % Self.closeCodes.count])
            let reason = String(decoding: input.takeSlice(Int(input.byte()) & (big ? 0xFF : 0x7F)), as: UTF8.self)
            if call("close", { c throws(Connection.UsageError) in try c.close(code: code, reason: reason) }) {
                sentClose = .close(code: code.rawValue, reason: Array(reason.utf8))
                streaming = nil  // a message being streamed is abandoned
            }
        case 9:
            let step = input.byte()
            now = now + .milliseconds(Self.milliseconds[Int(step & 0x0F)] * Int64(1 + step >> 4))
            cut.advanceTime(to: now)
            timeReported = true
            timeReportsSinceTake += 1
        case 10:
            takeOutputToPeer()
        case 11:
            // A partial write.
            let count = Int(input.uint16())
            var written: [UInt8] = []
            cut.withPendingOutput { buffer in
                written = Array(buffer.prefix(count))
                return written.count
            }
            deliverToPeer(written)
        case 12:
            cut.receiveEOF()
            inboundIsClean = false  // what is read after it depends on when it came
        case 13:
            if flagA, let deadline = cut.nextDeadline, deadline > now {
                now = deadline  // exactly at the deadline
                cut.advanceTime(to: now)
                timeReported = true
                timeReportsSinceTake += 1
            } else if flagB, timeReported {
                // Time running backwards is ignored (before any report, an instant is the first report).
                let before = Snapshot(cut)
                cut.advanceTime(to: Connection.Instant(sinceOrigin: now.sinceOrigin - .milliseconds(1 + Int64(input.byte()))))
                guard Snapshot(cut) == before else { fuzzFailure("\(who): advanceTime to the past changed the connection") }
            }
        case 14:
            // The peer's automatic replies (pongs, its Close reply) reach the connection under test.
            let bytes = takePeerOutput()
            receive(bytes, fromPeer: true, pull: pull)
        default:
            // A forked connection reads the same as the original (value semantics).
            var fork = cut
            var forkChecker = checker
            forkChecker.drain(&fork)
            let before = checker.events.count
            let state = checker.drain(&cut)
            guard sameEvents(normalized(Array(forkChecker.events[before...])), normalized(Array(checker.events[before...]))),
                  fork.pendingOutputCount == cut.pendingOutputCount else {
                fuzzFailure("\(who): a copy of the connection behaved differently")
            }
            for event in checker.events[before...] { collector.add(event) }
            afterDrain(state)
        }
        if pull { drain() }
        return pull
    }

    // MARK: Inputs

    /// The most payload bytes the amplifying operations make in one input: one payload over each
    /// 64 KiB limit (message, output; past the 16-bit length form), with 16 KiB to spare. Every byte
    /// goes through the library, the harness's decoders and the peer twice, and payloads over 128 KiB
    /// are mapped and unmapped afresh by the sanitizer's allocator: 160 KiB made inputs of 10 ms.
    static let amplifyLimit = 80 << 10
    /// The most frames the sends (`send(text:)`, `send(binary:)`, prepared messages) of one input are
    /// split into, with a `fragmentationSize`: each frame costs its way through the library, the
    /// harness's decoder and the peer, twice, and 1-byte fragments of amplified messages made inputs of
    /// hundreds of milliseconds. 512 frames still take 1-byte fragments past the tight output limit
    /// (1,000 bytes: 334 frames from a server, 143 from a client), 7-byte ones past 4 KiB, 125-byte ones
    /// past the 64 KiB one.
    static let frameLimit = 512

    /// A length from the input (×3 if big), within what is left of the amplification budget, and for a
    /// message the connection under test sends (`sent`), of the frame budget.
    mutating func amplifiedLength(_ input: inout FuzzInput, big: Bool, sent: Bool = false) -> Int {
        var length = min(amplifyBudget, Int(input.uint16()) * (big ? 3 : 1))
        if sent { length = spendFrames(length) }
        amplifyBudget -= length
        return length
    }

    /// The most of `count` payload bytes that a send may carry within the frame budget, which it then
    /// spends (an empty message is one frame).
    mutating func spendFrames(_ count: Int) -> Int {
        guard let fragmentationSize else { return count }
        let size = max(1, fragmentationSize)
        let allowed = min(count, max(0, frameBudget) * size)
        frameBudget -= max(1, (allowed + size - 1) / size)
        return allowed
    }

    /// A text to send, cut (at a character boundary) to what the frame budget allows.
    mutating func framed(_ text: String) -> String {
        let count = text.utf8.count
        var end = spendFrames(count)
        guard end < count else { return text }
        let utf8 = Array(text.utf8)
        while end > 0 && utf8[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }

    /// Bytes from the input, or (amplified) a long run of a 256-byte pattern starting at an offset the
    /// input gives, built by copying (the harness is instrumented: no byte loops over large payloads).
    /// For a message the connection under test sends (`sent`), within the frame budget.
    mutating func payload(_ input: inout FuzzInput, amplified: Bool, big: Bool, sent: Bool = false) -> [UInt8] {
        guard amplified else {
            let bytes = input.takeSlice(Int(input.byte()))
            return Array(sent ? bytes.prefix(spendFrames(bytes.count)) : bytes)
        }
        let length = amplifiedLength(&input, big: big, sent: sent)
        return Self.pattern(input.byte(), count: length)
    }

    /// Every byte value twice, so that any 256-byte window of it is a slice.
    static let pattern: [UInt8] = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    /// `count` bytes of a 256-byte pattern repeated, starting at `offset` (one allocation).
    static func pattern(_ offset: UInt8, count: Int) -> [UInt8] {
        Bytes.repeated(pattern[Int(offset)..<(Int(offset) + 256)], count: count)
    }

    /// `length` copies of an ASCII character, as a string.
    static func asciiText(_ byte: UInt8, count: Int) -> String {
        Bytes.asciiString(byte & 0x7F, count: count)
    }

    /// The peer sends something valid; it reaches the connection under test with the next delivery.
    /// Kinds (`kind & 7`): 0 text (n, bytes), 1 binary (n, bytes), 2 amplified binary (u16, offset),
    /// 3 amplified ASCII text (u16, fill), 4 ping (n, bytes), 5 pong (n, bytes), 6 close (valid-code
    /// index, n, reason bytes), 7 a fragment (0x80: text, 0x40: final; n, bytes).
    mutating func peerSends(_ input: inout FuzzInput, big: Bool) {
        let what = input.byte()
        // A replaying run reads the arguments (the rest of the script depends on it) and sends
        // nothing: ``takePeerOutput()`` then gives what the recorded run's peer wrote. The peer is
        // called in place: a copy of it would copy its buffers at the first write.
        let sends = replaying == nil
        // The peer refuses what its state does not allow (after a Close, say): nothing is sent then.
        switch what & 0x07 {
        case 0:
            let bytes = input.takeSlice(Int(input.byte()))
            if sends { try? peer.connection.send(text: String(decoding: bytes, as: UTF8.self)) }
        case 1:
            let bytes = input.takeSlice(Int(input.byte()))
            if sends { try? peer.connection.send(binary: bytes) }
        case 2:
            let length = amplifiedLength(&input, big: big)
            let offset = input.byte()
            if sends { try? peer.connection.send(binary: Self.pattern(offset, count: length)) }
        case 3:
            let length = amplifiedLength(&input, big: big)
            let fill = input.byte()
            if sends { try? peer.connection.send(text: Self.asciiText(fill, count: length)) }
        case 4:
            let bytes = input.takeSlice(min(125, Int(input.byte())))
            if sends { try? peer.connection.ping(bytes) }
        case 5:
            let bytes = input.takeSlice(min(125, Int(input.byte())))
            if sends { try? peer.connection.pong(bytes) }
        case 6:
            let code = Self.closeCodes[Int(input.byte()) % 14]  // the valid ones
            let reason = input.takeSlice(Int(input.byte()) % 40)
            if sends { try? peer.connection.close(code: Connection.CloseCode(rawValue: code), reason: String(decoding: reason, as: UTF8.self)) }
        default:
            let bytes = input.takeSlice(Int(input.byte()))
            if sends { try? peer.connection.sendFragment(bytes, kind: what & 0x80 != 0 ? .text : .binary, isFinal: what & 0x40 != 0) }
        }
    }

    /// The peer's pending output (what it sent, its automatic replies), for the connection under test:
    /// in a replaying run, what the recorded run's peer had at this step.
    mutating func takePeerOutput() -> [UInt8] {
        if let replaying {
            guard replayedReplies < replaying.replies.count else {
                diverged = true
                return []
            }
            defer { replayedReplies += 1 }
            return replaying.replies[replayedReplies]
        }
        let bytes = peer.connection.takeOutput()
        recording.replies.append(bytes)
        return bytes
    }

    /// Feeds bytes to the connection under test: in one piece, or (the split session) in two, with
    /// events pulled in between.
    mutating func receive(_ bytes: [UInt8], fromPeer: Bool, pull: Bool) {
        if !fromPeer && !bytes.isEmpty { inboundIsClean = false }
        guard let splitSeed else {
            deliver(bytes[...])
            return
        }
        let at = (splitSeed &* 7919 &+ operationIndex &* 104_729) % (bytes.count + 1)
        deliver(bytes[..<at])
        if pull { drain() }
        // With an odd seed, a second piece whose events are pulled at once anyway is lent instead:
        // read in place by receive(lending:), or (seeds 3 mod 4) pulled in place one event at a time
        // by nextEvent(readingInPlace:from:), with the same events and output as by copy.
        if pull && splitSeed & 1 == 1 {
            deliverLent(bytes[at...], pulling: splitSeed & 3 == 3)
        } else {
            deliver(bytes[at...])
        }
    }

    /// One read lent to the connection under test, its events pulled during the call. The buffer is
    /// overwritten when the call returns: a connection that kept a pointer into it would read garbage.
    private mutating func deliverLent(_ piece: ArraySlice<UInt8>, pulling: Bool) {
        if inboundIsClean { inbound.feed(piece) }
        var buffer = Array(piece)
        var checker = self.checker
        let before = checker.events.count
        let record = { (view: Connection.EventView) in
            switch view {
            case .text(let text): checker.record(.text(String(decoding: text, as: UTF8.self)))
            case .binary(let data): checker.record(.binary(Array(data)))
            case .other(let event): checker.record(event)
            }
        }
        buffer.withUnsafeMutableBytes { bytes in
            if pulling {
                var offset = 0
                while let view = cut.nextEvent(readingInPlace: bytes, from: &offset) { record(view) }
                if offset != bytes.count { fuzzFailure("\(who): pulling in place stopped at \(offset) of \(bytes.count)") }
            } else {
                cut.receive(lending: bytes, record)
            }
            bytes.initializeMemory(as: UInt8.self, repeating: 0xA5)
        }
        for event in checker.events[before...] { collector.add(event) }
        self.checker = checker
    }

    /// One read of the connection under test.
    private mutating func deliver(_ piece: ArraySlice<UInt8>) {
        if inboundIsClean { inbound.feed(piece) }
        cut.receive(piece)
    }

    // MARK: Checks

    /// Runs a call of the API; a `Connection.UsageError` must leave the connection unchanged.
    mutating func call(_ what: String, _ body: (inout Connection) throws(Connection.UsageError) -> Void) -> Bool {
        let before = Snapshot(cut)
        do {
            try body(&cut)
            largestSend = max(largestSend, cut.pendingOutputCount - before.pendingOutput)
            return true
        } catch {
            guard Snapshot(cut) == before else { fuzzFailure("\(who): \(what) threw \(error) and changed the connection") }
            return false
        }
    }

    mutating func drain() {
        let before = checker.events.count
        let state = checker.drain(&cut)
        for event in checker.events[before...] { collector.add(event) }
        afterDrain(state)
    }

    /// The checks after events were pulled until `nil`, in the `state` the connection was left in.
    mutating func afterDrain(_ state: Connection.State) {
        MemoryBounds.check(cut, state: state, limits: limits, who: who)
        MemoryBounds.checkInputDrained(cut, state: state, who: who)
        guard inboundIsClean else { return }
        // Only valid frames from the peer: the connection reads exactly them (all of them while it
        // reads frames; a prefix once it stopped), and fails for nothing but a limit.
        for event in checker.events[checkedEvents...] {
            guard case .protocolViolation(let violation) = event else { continue }
            switch violation.kind {
            case .frameTooLarge, .messageTooLarge, .tooManyFragments: continue
            default: fuzzFailure("\(who): \(violation) on frames its peer wrote: \(inbound.items.suffix(3))")
            }
        }
        checkedEvents = checker.events.count
        let read = collector.items
        let written = inbound.items
        guard read.count <= written.count, read[matchedItems...] == written[matchedItems..<read.count] else {
            fuzzFailure("\(who) read \(read.suffix(3)) (\(read.count) items), not what its peer wrote: \(written.suffix(3)) (\(written.count) items)")
        }
        matchedItems = read.count
        switch state {
        case .open, .closing(initiatedBy: .local):
            guard read.count == written.count else {
                fuzzFailure("\(who) read \(read.count) items, its peer wrote \(written.count): \(written.suffix(3))")
            }
        default:
            break  // it stopped reading: a prefix
        }
    }

    /// Nobody takes the output: it grows by what the caller sends (refused past `maxBufferedOutput`),
    /// by automatic replies, which stop past `maxBufferedOutput` (RFC 6455 §5.5.3), and by the frames
    /// timers write (a keepalive ping per interval, at most 18 bytes, whatever the output holds).
    func checkOutputBound() {
        let timers = 18 * timeReportsSinceTake
        let bound = limits.maxBufferedOutput + largestSend + 512 + timers
        guard cut.pendingOutputCount <= bound else {
            fuzzFailure("\(who): pendingOutputCount \(cut.pendingOutputCount) > maxBufferedOutput + largest send + 512 + \(timers) = \(bound)")
        }
    }

    mutating func takeOutputToPeer() {
        timeReportsSinceTake = 0
        deliverToPeer(cut.takeOutput())
    }

    /// Hands the peer what the connection under test wrote; a replaying run only checks that it is
    /// what the recorded run's peer read at this step.
    mutating func deliverToPeer(_ bytes: [UInt8]) {
        if let replaying {
            guard replayedDeliveries < replaying.deliveries.count, sameBytes(replaying.deliveries[replayedDeliveries], bytes) else {
                diverged = true
                return
            }
            replayedDeliveries += 1
            return
        }
        recording.deliveries.append(bytes)
        peer.deliver(bytes)
    }

    /// The peer read exactly what was sent.
    func finalChecks() {
        // A replaying run wrote what the recorded run wrote: its peer decoded the same.
        let decoded = replaying?.decoded ?? peer.decoder
        guard decoded.dataMessages == sentMessages else {
            fuzzFailure("""
                \(who) sent \(sentMessages.count) messages, its peer read \(decoded.dataMessages.count):
                  sent: \(sentMessages.suffix(3))
                  read: \(decoded.dataMessages.suffix(3))
                """)
        }
        let pings = decoded.items.compactMap { if case .ping(let p) = $0 { return p } else { return nil } }
        let pongs = decoded.items.compactMap { if case .pong(let p) = $0 { return p } else { return nil } }
        guard isSubsequence(sentPings, of: pings) else { fuzzFailure("\(who): pings sent \(sentPings), written \(pings)") }
        guard isSubsequence(sentPongs, of: pongs) else { fuzzFailure("\(who): pongs sent \(sentPongs), written \(pongs)") }
        if let sentClose {
            let close = decoded.items.first { if case .close = $0 { return true } else { return false } }
            guard close == sentClose else { fuzzFailure("\(who): close() sent \(sentClose), the wire has \(String(describing: close))") }
        }
    }
}
