// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore
@_spi(Testing) import WebSocketTLS

/// `tls-server` and `tls-client`: a TLS session fed arbitrary bytes, or the bytes of a real peer
/// altered on the way (a man in the middle).
///
/// Input: `control`, two bytes of split seed, then the peer's bytes (raw mode) or a script
/// (man-in-the-middle mode). Bits of `control`:
///
/// | bit | meaning |
/// | --- | --- |
/// | 0x01 | the tight limits (``TLSFuzzContexts/tightLimits``) |
/// | 0x02 | man-in-the-middle mode (see below) instead of raw bytes |
/// | 0x04 | end of stream after the input |
/// | 0x08 | the session under test sends 1 KiB before any input (kept until its handshake completes) |
/// | 0x10 | the session under test calls `finishSending()` before any input |
/// | 0x20 | reads of 1 to 16 bytes (from the split seed) instead of 16 KiB |
/// | 0x40 | (raw) its output is not taken until the end, so that it piles up |
/// | 0x80 | server: client certificates required; client: the CA's key pinned |
///
/// The split seed's high byte picks the largest piece a delivery is cut into (1, 3, 17, 200, 1,500
/// or 20,000 bytes, by its low 7 bits), its value seeds the piece sizes. Its bit 0x80 adds a **trust
/// byte** after the split seed: the session under test then has a trust evaluator and a key log
/// (``TLSFuzzRecorder``, ``TLSTrustExpectations``), and a server asks for client certificates
/// (optionally, unless 0x80 of `control` requires them). Bits of the trust byte: 0-1 the evaluator's
/// decision (0 accept, 1 override a failure, 2 reject, 3 reject a failure and accept a pass), 0x04
/// (`tls-server`, man in the middle) the peer client presents no certificate.
///
/// **Raw mode** delivers the bytes as the peer's. No such input can complete a handshake (it would
/// need the session's fresh keys), so a session that reaches `.established` is a failure. The bytes
/// go in whole and in pieces, and both runs must end in the same status (unless 0x40: whether the
/// output limit trips depends on when output was added).
///
/// **Man-in-the-middle mode** runs a real peer (a client for `tls-server`, a server for
/// `tls-client`): the script is the peer's message length (× 64 bytes), the session under test's
/// message length (× 64), flags (0x01 the peer sends close_notify after its message, 0x02 the session
/// under test does, 0x04 the peer speaks TLS 1.2 at most, 0x08 resumption, 0x10 the other server
/// name), then 4-byte operations on the peer's byte
/// stream at an offset (`kind`, offset high, offset low, `value`): kind % 4 = 0 XOR the byte with
/// `value`, 1 insert `value % 32` bytes before it, 2 delete `value % 64 + 1` bytes, 3 end the stream
/// there. Invariants, beyond ``TLSObserved``'s: what each side reads is a prefix of what the other
/// sent (an altered record is never delivered); a clean end only follows the peer's close_notify,
/// with everything read; and when no operation changed a byte, the handshake succeeds (or fails for
/// a tight limit), everything sent is read, and the session ends as the peer ended it; with the
/// trust byte, it fails with `.invalidCertificate` if and only if the evaluator rejects, and once
/// both sides are past the handshake they have logged the same key log lines.
///
/// **Resumption and server names** (flags 0x08 and 0x10, without the trust byte, which they
/// override with the limits and the variant): the client has a session cache and the server a second
/// certificate, for `alt.fuzz.test`, which 0x10 makes the client ask for and verify. With 0x08, a
/// clean handshake between two other sessions of the same contexts comes first, leaving a session
/// in the cache, which the altered exchange offers. When nothing was altered, both sides must
/// have resumed exactly when 0x08 is set and the peer speaks TLS 1.3 (TLS 1.2 tickets are off by
/// default), and the client verified the certificate of the name it asked for.
public enum TLSTarget {
    /// Makes the certificates and every context at start-up: made during an input, they would
    /// outlive it, and libFuzzer would take them for a leak.
    public static func prepare() {
        for flags in 0..<16 {
            let (a, b, c, d) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0, flags & 8 != 0)
            _ = TLSFuzzContexts.underTest(server: a, tight: b, variant: c, trust: d)
            _ = TLSFuzzContexts.peer(ofServer: a, withCertificate: b, tls12: c)
            _ = TLSFuzzContexts.resumingClient(tls12: a)
            _ = TLSFuzzContexts.namedServer(tls12: a)
        }
        _ = TLSFuzzPKI.shared.caCertificateDER
    }

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int, server: Bool) {
        var input = FuzzInput(data, size)
        let control = input.byte(), splitSeed = input.uint16()
        let trust: UInt8? = splitSeed & 0x8000 != 0 ? input.byte() : nil
        let options = Options(control: control, splitSeed: splitSeed, trust: trust, server: server)
        if options.manInTheMiddle {
            ManInTheMiddle(options: options, script: &input).run()
        } else {
            let bytes = input.rest()
            let whole = raw(bytes, options: options, pieces: false)
            let pieces = raw(bytes, options: options, pieces: true)
            if !options.holdOutput, whole != pieces {
                fuzzFailure("\(options.who): \(bytes.count) bytes whole end in \(whole), in pieces of at most "
                                + "\(options.maxPiece) in \(pieces)")
            }
        }
    }

    struct Options {
        let server: Bool
        let tight: Bool
        let manInTheMiddle: Bool
        let endOfStream: Bool
        let sendsEarly: Bool
        let finishesFirst: Bool
        let readSize: Int
        let holdOutput: Bool
        let variant: Bool
        let splitSeed: UInt16
        let maxPiece: Int
        /// The trust byte, when the split seed has 0x8000.
        let trust: UInt8?

        init(control: UInt8, splitSeed: UInt16, trust: UInt8?, server: Bool) {
            self.server = server
            tight = control & 0x01 != 0
            manInTheMiddle = control & 0x02 != 0
            endOfStream = control & 0x04 != 0
            sendsEarly = control & 0x08 != 0
            finishesFirst = control & 0x10 != 0
            readSize = control & 0x20 != 0 ? 1 + Int(splitSeed % 16) : 16 << 10
            holdOutput = control & 0x40 != 0 && control & 0x02 == 0
            variant = control & 0x80 != 0
            self.splitSeed = splitSeed
            maxPiece = [1, 3, 17, 200, 1_500, 20_000][Int((splitSeed >> 8) & 0x7F) % 6]
            self.trust = trust
        }

        /// (`tls-server`, man in the middle) Whether the peer client presents its certificate.
        var peerPresentsCertificate: Bool {
            guard let trust else { return variant }
            return variant || trust & 0x04 == 0
        }

        var who: String { server ? "server" : "client" }
        var limits: TLSLimits { tight ? TLSFuzzContexts.tightLimits : TLSLimits() }

        /// A new session under test; of `context` (the resumption and server name mode's), for
        /// `serverName`, when given.
        func makeSession(context special: TLSContext? = nil, serverName: String = "localhost") -> TLSObserved {
            let context = special ?? TLSFuzzContexts.underTest(server: server, tight: tight, variant: variant, trust: trust != nil)
            TLSFuzzRecorder.shared.reset(decision: trust ?? 0)
            let session: TLSSession
            do throws(WebSocketError) {
                session = server ? try context.makeServerSession() : try context.makeClientSession(serverName: serverName)
            } catch {
                fuzzFailure("cannot make a session: \(error)")
            }
            let expectations = trust.map { _ in TLSTrustExpectations(isServer: server, hasPins: !server && variant) }
            let hasPins = special == nil && !server && variant
            var observed = TLSObserved(session, who: who, isServer: server, hasPins: hasPins,
                                       limits: special == nil ? limits : TLSLimits(), readSize: readSize, trust: expectations)
            if sendsEarly { observed.send(TLSTarget.pattern(1_024, seed: 0xE0)) }
            if finishesFirst { observed.finishSending() }
            return observed
        }
    }

    /// Bytes `0, 1, 2…` offset by `seed`, so that a misplaced piece shows.
    static func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed }
    }

    /// The sizes `bytes` is delivered in.
    static func pieces(of count: Int, maxPiece: Int, generator: inout Connection.SeededGenerator) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let end = min(count, start + Int.random(in: 1...maxPiece, using: &generator))
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }

    /// Raw mode: `bytes` as the peer's, whole or in pieces; the final status.
    static func raw(_ bytes: [UInt8], options: Options, pieces inPieces: Bool) -> TransportLayerStatus {
        var session = options.makeSession()
        if !options.holdOutput { _ = session.takeOutput() }
        var generator = Connection.SeededGenerator(seed: UInt64(options.splitSeed))
        let ranges = inPieces ? pieces(of: bytes.count, maxPiece: options.maxPiece, generator: &generator)
            : (bytes.isEmpty ? [] : [0..<bytes.count])
        for range in ranges {
            session.receive(bytes[range])
            if !options.holdOutput { _ = session.takeOutput() }
        }
        if options.endOfStream { session.receiveEOF() }
        _ = session.takeOutput()
        switch session.status {
        case .established, .ended:
            fuzzFailure("\(options.who): \(bytes.count) bytes that no real peer sent completed a handshake")
        case .establishing, .failed:
            break
        }
        Trace.print("\(options.who) raw, \(ranges.count) pieces: \(session.status)")
        return session.status
    }
}
