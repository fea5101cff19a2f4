// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore
import WebSocketDeflate

/// `deflate`: permessage-deflate (RFC 7692) in an open connection, both ways, checked against the
/// harness's own zlib decoder (``ReferenceInflater``).
///
/// Input: `control`, `windows`, two bytes of split point, then the bytes of the mode. Bits of `control`:
///
/// | bit | meaning |
/// | --- | --- |
/// | 0x01 | the connection under test is the server (else the client) |
/// | 0x02 | ``Connection/Delivery/fragments`` instead of whole messages |
/// | 0x04 | the tight limits (``FuzzConfiguration/tightLimits``) |
/// | 0x08 | the peer compresses with no context takeover |
/// | 0x10 | the connection under test compresses with no context takeover |
/// | 0x20 | (raw mode) end of stream after the bytes |
/// | 0x40 | message mode, else raw mode |
///
/// `windows`: the low three bits pick the peer's window bits (8 + n), bits 4-6 those of the
/// connection under test; both are negotiated in the handshake (8 is compressed and read as 9). Bit
/// 0x08 gives the peer's compressor zlib memory level 1 (``PerMessageDeflate/lowMemory``'s) instead of
/// the default 8, bit 0x80 the same for the connection under test. (Level 8's 32,768-entry hash table is
/// slid every few hundred bytes in a small window, which made most of the message mode's time.)
///
/// Raw mode: the bytes are frames in the format of ``WireEncoder/frameStream(_:masked:keysFromInput:)``,
/// RSV1 and all, so the payloads are arbitrary compressed data. Invariants: those of the frame targets
/// (no trap, ``EventChecker``, memory within the limits, the same events and output in two pieces),
/// and every message the connection delivers is exactly what the reference decodes from those frames;
/// a failure for corrupt data or for the decoded size only where the reference fails too.
///
/// Message mode: the bytes are messages the peer sends: a flags byte (0x01 binary, 0x02 uncompressed,
/// 0x0C fragments - 1, 0x10 repeated: a byte follows, the bytes are repeated 64 × it times, 0x20 fork
/// the connection under test before this message), a 2-byte length and the bytes (text is made UTF-8).
/// Invariants: the peer's compressed payloads decode with the reference to the message (standard data
/// in the agreed window); the connection under test reads every message exactly, or fails with 1009
/// at the first one over its limits; it sends each back compressed and the peer reads them exactly; a
/// copy forked before a message reads the rest as the original does (the zlib state forks with it).
public enum DeflateTarget {
    struct Setup: Hashable {
        var cutIsServer: Bool
        var variant: Variant
        /// What the connection under test reads: the peer's window bits and reset.
        var inBits: Int
        var inNoContextTakeover: Bool
        /// What it sends.
        var outBits: Int
        var outNoContextTakeover: Bool
        /// The zlib memory levels of the peer's compressor and of the connection under test's.
        var inMemoryLevel: Int
        var outMemoryLevel: Int
    }

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let windows = input.byte()
        let splitSeed = Int(input.uint16())
        let setup = Setup(cutIsServer: control & 0x01 != 0,
                          variant: Variant(fragments: control & 0x02 != 0, tight: control & 0x04 != 0),
                          inBits: 8 + Int(windows & 0x07), inNoContextTakeover: control & 0x08 != 0,
                          outBits: 8 + Int((windows >> 4) & 0x07), outNoContextTakeover: control & 0x10 != 0,
                          inMemoryLevel: windows & 0x08 != 0 ? 1 : 8, outMemoryLevel: windows & 0x80 != 0 ? 1 : 8)
        let pair = prepared(setup)
        if control & 0x40 == 0 {
            runRaw(&input, setup: setup, pair: pair, splitSeed: splitSeed, endOfStream: control & 0x20 != 0)
        } else {
            runMessages(&input, setup: setup, pair: pair)
        }
    }

    // MARK: Raw mode

    static func runRaw(_ input: inout FuzzInput, setup: Setup, pair: Prepared.Pair, splitSeed: Int, endOfStream: Bool) {
        let who = setup.cutIsServer ? "server" : "client"
        let wire = WireEncoder.frameStream(&input, masked: setup.cutIsServer, keysFromInput: false)
        let limits = setup.variant.configuration.limits
        let whole = FrameTarget.feed(pair.cut, wire, cuts: [], endOfStream: endOfStream, closeFirst: false, who: who,
                                     maxPieceSize: limits.maxMessageSize)
        let cut = splitSeed % (wire.count + 1)
        let split = FrameTarget.feed(pair.cut, wire, cuts: [cut], endOfStream: endOfStream, closeFirst: false, who: who,
                                     maxPieceSize: limits.maxMessageSize)
        FrameTarget.compareRuns(whole, split, exactEvents: !setup.variant.fragments, context: "\(who), split at \(cut) of \(wire.count)",
                                frames: .init(writerIsClient: !setup.cutIsServer, outputLimit: limits.maxBufferedOutput))
        Trace.print("\(who) (\(setup)) read \(wire.count) bytes: events \(whole.events)")

        let delivered = normalized(whole.events).compactMap { event -> [UInt8]? in
            switch event {
            case .text(let text): return Array(text.utf8)
            case .binary(let bytes): return bytes
            default: return nil
            }
        }
        let messages = wireMessages(wire, masked: setup.cutIsServer)
        let reference = ReferenceInflater.fresh(slot: 0, windowBits: setup.inBits, noContextTakeover: setup.inNoContextTakeover)
        for (index, bytes) in delivered.enumerated() {
            guard index < messages.count, messages[index].isComplete else {
                fuzzFailure("\(who) delivered message \(index), which the frames do not complete")
            }
            let message = messages[index]
            let expected = message.compressed ? reference.decode(message.payload, limit: limits.maxMessageSize) : .message(message.payload)
            guard expected == .message(bytes) else {
                fuzzFailure("\(who) delivered message \(index) (\(bytes.count) bytes), the reference decodes \(describe(expected))")
            }
        }
        // A failure blamed on the compressed data or on its decoded size: the reference fails there too.
        for event in whole.events {
            guard case .protocolViolation(let violation) = event else { continue }
            let index = delivered.count
            let blamesData = violation.kind == .invalidTransformedData
            let blamesSize = violation.kind == .messageTooLarge
            guard blamesData || blamesSize else { continue }
            guard index < messages.count else { fuzzFailure("\(who): \(violation) with no message \(index) in the frames") }
            let message = messages[index]
            if !message.compressed {
                guard blamesSize, message.payload.count > limits.maxMessageSize else {
                    fuzzFailure("\(who): \(violation) on uncompressed message \(index) of \(message.payload.count) bytes")
                }
                continue
            }
            let expected = reference.decode(message.payload, limit: limits.maxMessageSize, isComplete: message.isComplete)
            if case .message(let bytes) = expected {
                fuzzFailure("\(who): \(violation) on message \(index), which the reference decodes (\(bytes.count) bytes\(message.isComplete ? "" : " so far"))")
            }
        }
    }

    struct WireMessage {
        var compressed: Bool
        var payload: [UInt8]
        var isComplete: Bool
    }

    /// The data messages in frames the harness built, as the connection should assemble them: a text
    /// or binary frame starts one (RSV1 marks it compressed), continuations extend it. The walk stops
    /// where the connection must fail anyway (an unknown opcode, RSV2 or RSV3), and a message that a
    /// violation cuts short is never compared.
    static func wireMessages(_ wire: [UInt8], masked: Bool) -> [WireMessage] {
        var messages: [WireMessage] = []
        var index = 0
        while wire.count - index >= 2 {
            let b0 = wire[index], b1 = wire[index + 1]
            let length7 = Int(b1 & 0x7F)
            var header = 2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0)
            guard wire.count - index >= header else { break }
            var length = UInt64(length7)
            if length7 >= 126 {
                length = wire[(index + 2)..<(index + header)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
            if masked { header += 4 }
            guard b0 & 0x30 == 0, [0, 1, 2, 8, 9, 10].contains(b0 & 0x0F), wire.count - index >= header else { break }
            let available = UInt64(wire.count - index - header)
            let count = Int(min(length, available))
            var payload = Array(wire[(index + header)..<(index + header + count)])
            if masked { WireEncoder.mask(&payload, key: Array(wire[(index + header - 4)..<(index + header)])) }
            let complete = UInt64(count) == length
            let fin = b0 & 0x80 != 0
            switch b0 & 0x0F {
            case 1, 2:
                messages.append(WireMessage(compressed: b0 & 0x40 != 0, payload: payload, isComplete: complete && fin))
            case 0:
                guard let last = messages.indices.last, !messages[last].isComplete else { break }
                messages[last].payload += payload
                messages[last].isComplete = complete && fin
            default:
                break
            }
            guard complete else { break }
            index += header + count
        }
        return messages
    }

    /// The first bytes of `bytes` in hex, for failure messages.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        let shown = bytes.prefix(64).map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: " ")
        return bytes.count > 64 ? shown + " … (\(bytes.count) bytes)" : shown
    }

    static func describe(_ outcome: ReferenceInflater.Outcome) -> String {
        switch outcome {
        case .message(let bytes): return "\(bytes.count) bytes"
        case .tooLarge: return "past the message limit"
        case .invalid: return "nothing (invalid data)"
        }
    }

    // MARK: Message mode

    struct Message {
        var kind: Connection.MessageKind
        var bytes: [UInt8]
        var compress: Bool
        var fragments: Int
        var forkBefore: Bool
    }

    /// The most bytes of messages in one input: enough for one over the 64 KiB message limit of the
    /// fuzz configurations (or for messages that wrap the largest window, 32 KiB), and a few
    /// milliseconds at most of compressing, decompressing and checking under the sanitizers. (512 KiB,
    /// 128 KiB a message, made inputs of tens of milliseconds.)
    static let maxTotal = 72 << 10

    static func readMessages(_ input: inout FuzzInput) -> [Message] {
        var messages: [Message] = []
        var total = 0
        while !input.isAtEnd && messages.count < 64 && total < maxTotal {
            let flags = input.byte()
            let repeats = flags & 0x10 != 0 ? 64 * Int(input.byte()) : 1
            let kind: Connection.MessageKind = flags & 0x01 != 0 ? .binary : .text
            var bytes = input.take(Int(input.uint16()))
            // Text is made UTF-8 before it is repeated: copies of valid UTF-8 are valid, and the
            // repair runs over the input's bytes, not over the amplified message.
            if kind == .text { bytes = Array(String(decoding: bytes, as: UTF8.self).utf8) }
            let copies = min(repeats, max(1, (maxTotal - total) / max(1, bytes.count)))
            bytes = Bytes.repeated(bytes, copies: copies)
            total += bytes.count
            messages.append(Message(kind: kind, bytes: bytes, compress: flags & 0x02 == 0,
                                    fragments: 1 + Int((flags >> 2) & 0x03), forkBefore: flags & 0x20 != 0))
        }
        return messages
    }

    static func runMessages(_ input: inout FuzzInput, setup: Setup, pair: Prepared.Pair) {
        let who = setup.cutIsServer ? "server" : "client"
        let messages = readMessages(&input)
        let limits = setup.variant.configuration.limits
        // The peer sends every message; its output for each is checked against the reference.
        var peer = pair.peer
        var chunks: [[UInt8]] = []
        let reference = ReferenceInflater.fresh(slot: 0, windowBits: setup.inBits, noContextTakeover: setup.inNoContextTakeover)
        var largestFrames: [Int] = []
        for message in messages {
            send(message, from: &peer, who: "peer of \(who)")
            let bytes = peer.takeOutput()
            chunks.append(bytes)
            // The peer masks its frames when it is the client.
            let frames = wireMessages(bytes, masked: setup.cutIsServer)
            guard frames.count == 1, frames[0].isComplete else { fuzzFailure("the peer wrote \(frames.count) messages for one") }
            let sent = frames[0]
            guard sent.compressed == (message.compress && (message.fragments > 1 || !message.bytes.isEmpty)) else {
                fuzzFailure("the peer's message (\(message.bytes.count) bytes, compress \(message.compress)) went out with RSV1 \(sent.compressed)")
            }
            Trace.print("peer sent \(message.bytes.count) bytes, RSV1 \(sent.compressed): \(hex(sent.payload))")
            let decoded = sent.compressed ? reference.decode(sent.payload, limit: .max) : .message(sent.payload)
            guard decoded == .message(message.bytes) else {
                fuzzFailure("the peer compressed \(message.bytes.count) bytes into data the reference decodes to \(describe(decoded)): \(hex(sent.payload))")
            }
            largestFrames.append(frameSizes(bytes, masked: setup.cutIsServer).max() ?? 0)
        }

        // The connection under test reads them, forked where the input says.
        var cut = pair.cut
        var checker = EventChecker(who: who, limits: limits)
        checker.maxPieceSize = limits.maxMessageSize
        var fork: (connection: Connection, checker: EventChecker, from: Int)? = nil
        for (index, chunk) in chunks.enumerated() {
            if messages[index].forkBefore && fork == nil { fork = (cut, checker, index) }
            cut.receive(chunk)
            checker.drain(&cut)
            MemoryBounds.check(cut, who: who)
            MemoryBounds.checkInputDrained(cut, who: who)
        }
        let read = normalized(checker.events)
        var expected: [Connection.Event] = []
        for (index, message) in messages.enumerated() {
            if message.bytes.count > limits.maxMessageSize || largestFrames[index] > limits.maxFrameSize {
                // Over a limit: 1009, and nothing more is read.
                guard read.count == expected.count + 2, case .protocolViolation(let violation) = read[expected.count],
                      violation.closeCode == .messageTooBig else {
                    fuzzFailure("\(who): message \(index) is over the limits (\(message.bytes.count) bytes, a frame of \(largestFrames[index])), events \(read.suffix(3))")
                }
                break
            }
            expected.append(message.kind == .text ? .text(String(decoding: message.bytes, as: UTF8.self)) : .binary(message.bytes))
        }
        if expected.count == messages.count {
            guard sameEvents(read, expected) else {
                fuzzFailure("\(who) read \(read.count) messages \(read.suffix(2)), the peer sent \(expected.count)")
            }
        } else {
            guard sameEvents(Array(read.prefix(expected.count)), expected) else {
                fuzzFailure("\(who) read \(read.prefix(expected.count).suffix(2)) before the message over the limit")
            }
        }

        // The fork reads the rest as the original did.
        if let fork {
            var copy = fork.connection, copyChecker = fork.checker, from = fork.from
            for chunk in chunks[from...] {
                copy.receive(chunk)
                copyChecker.drain(&copy)
            }
            guard sameEvents(copyChecker.events, checker.events), copy.state == cut.state,
                  sameBytes(copy.takeOutput(), cut.takeOutput()) else {
                fuzzFailure("\(who): a copy made before message \(from) read the rest differently")
            }
        }

        // It sends back what it read, compressed, in the window it agreed to; the peer reads it exactly.
        guard case .open = cut.state else { return }
        _ = cut.takeOutput()
        let outReference = ReferenceInflater.fresh(slot: 1, windowBits: setup.outBits, noContextTakeover: setup.outNoContextTakeover)
        var echoed: [Connection.Event] = []
        var peerChecker = EventChecker(who: "peer of \(who)", limits: peer.configuration.limits)
        for event in read {
            let message: Message
            switch event {
            case .text(let text): message = Message(kind: .text, bytes: Array(text.utf8), compress: true, fragments: 1, forkBefore: false)
            case .binary(let bytes): message = Message(kind: .binary, bytes: bytes, compress: true, fragments: 1, forkBefore: false)
            default: continue
            }
            send(message, from: &cut, who: who)
            echoed.append(event)
            // Taken after each send: the tight limits refuse sends past 1000 pending bytes.
            let bytes = cut.takeOutput()
            let frames = wireMessages(bytes, masked: !setup.cutIsServer)
            guard frames.count == 1, frames[0].isComplete, frames[0].compressed == !message.bytes.isEmpty else {
                fuzzFailure("\(who) sent \(message.bytes.count) bytes back as \(frames.count) messages, compressed: \(frames.map(\.compressed))")
            }
            let decoded = frames[0].compressed ? outReference.decode(frames[0].payload, limit: .max) : .message(frames[0].payload)
            guard decoded == .message(message.bytes) else {
                fuzzFailure("\(who) compressed \(message.bytes.count) bytes into data the reference decodes to \(describe(decoded)): \(hex(frames[0].payload))")
            }
            peer.receive(bytes)
            peerChecker.drain(&peer)
        }
        guard sameEvents(peerChecker.events, echoed) else {
            fuzzFailure("the peer read \(peerChecker.events.count) events \(peerChecker.events.suffix(2)) for \(echoed.count) messages sent back")
        }
    }

    static func send(_ message: Message, from connection: inout Connection, who: String) {
        do {
            if message.fragments == 1 {
                switch message.kind {
                case .text: try connection.send(text: String(decoding: message.bytes, as: UTF8.self), compress: message.compress)
                case .binary: try connection.send(binary: message.bytes, compress: message.compress)
                }
                return
            }
            let step = max(1, message.bytes.count / message.fragments)
            var start = 0
            for index in 0..<message.fragments {
                let end = index == message.fragments - 1 ? message.bytes.count : min(message.bytes.count, start + step)
                try connection.sendFragment(message.bytes[start..<end], kind: message.kind, isFinal: index == message.fragments - 1,
                                            compress: message.compress)
                start = end
            }
        } catch {
            fuzzFailure("\(who): sending a message of \(message.bytes.count) bytes threw \(error)")
        }
    }

    /// The payload sizes of the frames in `bytes`.
    static func frameSizes(_ bytes: [UInt8], masked: Bool) -> [Int] {
        var sizes: [Int] = []
        var index = 0
        while bytes.count - index >= 2 {
            let length7 = Int(bytes[index + 1] & 0x7F)
            let extra = length7 == 126 ? 2 : length7 == 127 ? 8 : 0
            var length = length7
            if extra > 0 { length = bytes[(index + 2)..<(index + 2 + extra)].reduce(0) { $0 << 8 | Int($1) } }
            sizes.append(length)
            index += 2 + extra + (masked ? 4 : 0) + length
        }
        return sizes
    }

    // MARK: Connections

    // libFuzzer runs inputs on one thread.
    nonisolated(unsafe) private static var pairs: [Setup: Prepared.Pair] = [:]

    /// An open pair that negotiated permessage-deflate with the setup's parameters.
    static func prepared(_ setup: Setup) -> Prepared.Pair {
        if let pair = pairs[setup] { return pair }
        var offer = PerMessageDeflate.Offer()
        offer.serverNoContextTakeover = setup.cutIsServer ? setup.outNoContextTakeover : setup.inNoContextTakeover
        offer.clientNoContextTakeover = setup.cutIsServer ? setup.inNoContextTakeover : setup.outNoContextTakeover
        offer.serverMaxWindowBits = setup.cutIsServer ? setup.outBits : setup.inBits
        offer.clientMaxWindowBits = .bits(setup.cutIsServer ? setup.inBits : setup.outBits)
        let deflate = PerMessageDeflate(clientOffers: [offer])
        var cutDeflate = deflate, peerDeflate = deflate
        cutDeflate.compression.memoryLevel = setup.outMemoryLevel
        peerDeflate.compression.memoryLevel = setup.inMemoryLevel
        var cutConfiguration = setup.variant.configuration
        cutConfiguration.extensions = [cutDeflate]
        var peerConfiguration = FuzzConfiguration.peer
        peerConfiguration.extensions = [peerDeflate]
        let clientConfiguration = setup.cutIsServer ? peerConfiguration : cutConfiguration
        let serverConfiguration = setup.cutIsServer ? cutConfiguration : peerConfiguration
        do {
            var client = try Connection(role: .client(Connection.ClientOptions(url: Prepared.url)),
                                        configuration: clientConfiguration, random: Connection.SeededGenerator(seed: 7692))
            var server = try Connection(role: .server, configuration: serverConfiguration, random: Connection.SeededGenerator(seed: 1))
            server.receive(client.takeOutput())
            guard case .handshakeRequest? = server.nextEvent() else { fatalError("no request") }
            try server.accept()
            guard case .handshakeCompleted(let accepted)? = server.nextEvent(), server.nextEvent() == nil,
                  accepted.extensions.map(\.name) == ["permessage-deflate"] else {
                fatalError("the server did not open with permessage-deflate")
            }
            client.receive(server.takeOutput())
            guard case .handshakeCompleted(let result)? = client.nextEvent(), client.nextEvent() == nil,
                  result.extensions.map(\.name) == ["permessage-deflate"] else {
                fatalError("the client did not open with permessage-deflate")
            }
            let pair = setup.cutIsServer ? Prepared.Pair(cut: server, peer: client) : Prepared.Pair(cut: client, peer: server)
            pairs[setup] = pair
            return pair
        } catch {
            fatalError("cannot prepare a permessage-deflate pair: \(error)")
        }
    }
}
