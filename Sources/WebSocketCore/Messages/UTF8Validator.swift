// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An incremental UTF-8 validator for text messages (RFC 6455 §5.6, §8.1), exact to RFC 3629 §4 and
/// Unicode's well-formed byte sequences (The Unicode Standard, Table 3-7).
///
/// A text message reaches the connection in pieces split anywhere (frames, then reads of the
/// transport), so the validator keeps the state of an unfinished sequence between calls: a 4-byte
/// sequence may arrive one byte per call.
///
/// It fails fast: `validate(_:)` returns `false` as soon as some byte makes the message so far
/// impossible to complete as valid UTF-8 (`F4 90` fails at `90`, `ED A0` at `A0`), not when the
/// sequence or the message ends. RFC 6455 §8.1 wants the connection failed as soon as the endpoint
/// knows the text is invalid, and Autobahn cases 6.4.x check exactly that.
///
/// How it is fast, since every byte of every text message goes through it:
/// - Chunks of 64 bytes or more are checked in 16-byte blocks with SIMD comparisons (SSE2 on x86-64,
///   NEON on arm64, through the standard library's `SIMD16`; no shuffles, which SSE2 lacks), two blocks
///   per test while the text is not ASCII. Every rule of Table 3-7 looks back at most 3 bytes, so each
///   block is compared with itself loaded 1, 2 and 3 bytes earlier: a byte must be a continuation byte
///   exactly when one of the 3 before it opens a sequence that reaches it, C0, C1 and F5..FF never
///   appear, and the byte after E0, ED, F0 and F4 is in that lead's narrower range. No branch depends on
///   which sequences appear, so CJK, emoji and any mix of them cost the same.
/// - ASCII runs, the common case, take one test per 128 bytes once a block boundary is known to be
///   outside any sequence.
/// - Short chunks, the first 3 bytes of a chunk (which may finish a sequence begun in the previous one)
///   and the last bytes (which may leave one open) go through a shift-based DFA (Per Vognsen's variant
///   of Björn Höhrmann's): each state is a shift amount, each byte selects a 64-bit row holding every
///   state's next state, and a step is `state = row[byte] >> state`; ASCII between characters is
///   skipped 8 bytes at a time. The DFA is the reference: a block the vector test rejects is stepped
///   again through it to find the exact failing byte.
struct UTF8Validator: Sendable, Hashable {
    /// The DFA state, always one of the `State` shift amounts (high bits cleared between calls, so that
    /// equal states compare equal).
    private var state: UInt64 = State.accept

    init() {}

    /// True when no multi-byte sequence is left unfinished. Call it at the end of a message: a message
    /// that ends inside a sequence is invalid (RFC 3629 §3 defines text as whole characters).
    var isAtCharacterBoundary: Bool { state == State.accept }

    /// Forgets any unfinished sequence, ready for a new message.
    mutating func reset() { state = State.accept }

    /// Validates the next chunk of a message. Returns `false` as soon as some byte proves the message
    /// invalid; the state is then unspecified (the caller fails the connection, or calls ``reset()``).
    mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        offsetOfFirstInvalidByte(in: bytes) == nil
    }

    /// Validates the next chunk of a message held in an array slice.
    mutating func validate(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Validates the next chunk of a message held in an array.
    mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Validates the next chunk of a message and tells where it failed: `nil` when every byte is
    /// acceptable so far, else the offset in `bytes` of the first byte that proves the message invalid.
    /// After a failure the state is unspecified, as for `validate(_:)`.
    mutating func offsetOfFirstInvalidByte(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        return Self.transitions.withUnsafeBufferPointer { table -> Int? in
            var state = self.state
            var i = 0
            if count >= Self.vectorThreshold {
                // The first 3 bytes may finish a sequence begun in an earlier chunk, whose lead byte is
                // not in this buffer: only the DFA knows about it. It goes on to a 16-byte-aligned
                // address, so that no block load but the look-back ones splits a cache line.
                let prologue = 3 &+ ((0 &- (Int(bitPattern: base) &+ 3)) & 15)
                while i < prologue {
                    state = Self.step(table, state, base.load(fromByteOffset: i, as: UInt8.self))
                    if state == State.error { return i }
                    i += 1
                }
                // From byte 3 on, the 3 bytes each rule looks back at are in the buffer, and all the
                // bytes before the block have passed.
                while count &- i >= 16 {
                    let block = base + i
                    if Self.isASCII(block) && !Self.opensSequence(before: block) {
                        // An ASCII block after a complete character. It ends on a character boundary,
                        // so further ASCII needs no look-back: test 128 bytes at a time.
                        i &+= 16
                        while count &- i >= 128 && Self.isASCII128(base + i) { i &+= 128 }
                        continue
                    }
                    // Text that is not ASCII tends to go on that way: 32 bytes per test while they last.
                    let width = count &- i >= 32 ? 32 : 16
                    var invalid = Self.invalidLanes(block)
                    if width == 32 { invalid .|= Self.invalidLanes(block + 16) }
                    if Self.any(invalid), let offset = Self.firstInvalidByte(table, base, i, i &+ width) {
                        return offset
                    }
                    i &+= width
                }
                // Resume the DFA for the tail, from the last character start before it.
                i = Self.characterStart(base, before: i)
                state = State.accept
            }
            while i < count {
                // Between characters, skip ASCII 8 bytes at a time (short messages are mostly ASCII).
                if state == State.accept && count &- i >= 8
                    && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i &+= 8
                    continue
                }
                state = Self.step(table, state, base.load(fromByteOffset: i, as: UInt8.self))
                if state == State.error { return i }
                i &+= 1
            }
            self.state = state
            return nil
        }
    }

    // MARK: - The vector test

    private typealias Bytes = SIMD16<UInt8>
    private typealias SignedBytes = SIMD16<Int8>

    /// Below this many bytes the vector path would save little: its DFA prologue alone takes up to 18.
    private static let vectorThreshold = 64

    // Only operations the standard library implements for `SIMD16<UInt8>` and its masks with vector
    // builtins are used: comparisons, `&+`, `&-`, and `.&`, `.|`, `.^` on masks. The generic ones (`&`,
    // `|`, `init(repeating:)`) also compile to single instructions when optimized, but stay lane-by-lane
    // loops in debug builds, which would make the tests of large messages crawl.

    /// Whether the 16 bytes at `p` are ASCII.
    @inline(__always)
    private static func isASCII(_ p: UnsafeRawPointer) -> Bool {
        !any(isNegative(p.loadUnaligned(as: Bytes.self)))
    }

    /// Whether the 128 bytes at `p` are ASCII. The compiler merges the 8 sign tests into one test of the
    /// OR of the 8 blocks. The loop counts by hand: `stride(from:to:by:)` compiles to the same code when
    /// optimized, but in a debug build looks up type metadata at every step, which under
    /// ThreadSanitizer takes a lock every thread shares.
    @inline(__always)
    private static func isASCII128(_ p: UnsafeRawPointer) -> Bool {
        var highBits = isNegative(p.loadUnaligned(as: Bytes.self))
        var offset = 16
        while offset < 128 {
            highBits .|= isNegative(p.loadUnaligned(fromByteOffset: offset, as: Bytes.self))
            offset &+= 16
        }
        return !any(highBits)
    }

    /// Whether one of the 3 bytes before `p` opens a sequence that reaches `p` or beyond.
    @inline(__always)
    private static func opensSequence(before p: UnsafeRawPointer) -> Bool {
        p.load(fromByteOffset: -1, as: UInt8.self) >= 0xC0 || p.load(fromByteOffset: -2, as: UInt8.self) >= 0xE0
            || p.load(fromByteOffset: -3, as: UInt8.self) >= 0xF0
    }

    /// Which of the 16 bytes at `p` break Table 3-7, given that the bytes before them are valid. Reads the
    /// 3 bytes before `p`.
    ///
    /// Given a valid prefix, the rules fail at exactly the bytes where the DFA fails: a continuation
    /// byte where none is due or a missing one where one is due (structure), a byte that is never valid
    /// (C0, C1, F5..FF), or a second byte outside the narrower range after E0, ED, F0 or F4.
    @inline(__always)
    private static func invalidLanes(_ p: UnsafeRawPointer) -> SIMDMask<SignedBytes> {
        let current = p.loadUnaligned(as: Bytes.self)
        let previous1 = p.loadUnaligned(fromByteOffset: -1, as: Bytes.self)
        let previous2 = p.loadUnaligned(fromByteOffset: -2, as: Bytes.self)
        let previous3 = p.loadUnaligned(fromByteOffset: -3, as: Bytes.self)
        // As signed bytes, 80..BF are -128...-65: the continuation bytes are those below -64, and within
        // them signed order is byte order (which the second-byte rules below rely on).
        let currentSigned = signed(current)
        let isContinuation = currentSigned .< signed(splat(0xC0))
        // A 2-, 3- or 4-byte lead (C0..FF, E0..FF, F0..FF) 1, 2 or 3 bytes back reaches this byte.
        let isDue = (previous1 .> splat(0xBF)) .| (previous2 .> splat(0xDF)) .| (previous3 .> splat(0xEF))
        // Structure: a continuation byte exactly where one is due.
        var invalid = isDue .^ isContinuation
        // C0 and C1 only start overlong 2-byte forms; F5..FF only code points above U+10FFFF.
        invalid .|= (current &- splat(0xC0)) .< splat(2)
        invalid .|= current .> splat(0xF4)
        // The second byte after E0 (A0..BF), F0 (90..BF), ED (80..9F) and F4 (80..8F). A non-continuation
        // byte there is caught above, so signed comparisons suffice. The lower bounds are 80 - E0 = A0 and
        // 80 - F0 = 90 (modulo 256): one subtraction serves both leads.
        let lowerBound = signed(splat(0x80) &- previous1)
        invalid .|= ((previous1 .== splat(0xE0)) .| (previous1 .== splat(0xF0))) .& (currentSigned .< lowerBound)
        invalid .|= (previous1 .== splat(0xED)) .& (currentSigned .> signed(splat(0x9F)))
        invalid .|= (previous1 .== splat(0xF4)) .& (currentSigned .> signed(splat(0x8F)))
        return invalid
    }

    /// The lanes whose high bit is set.
    @inline(__always)
    private static func isNegative(_ bytes: Bytes) -> SIMDMask<SignedBytes> {
        signed(bytes) .< signed(splat(0))
    }

    /// `byte` in every lane, built from two words: `init(repeating:)` is one of the generic loops.
    @inline(__always)
    private static func splat(_ byte: UInt8) -> Bytes {
        let word = UInt64(byte) &* 0x0101_0101_0101_0101
        return unsafeBitCast((word, word), to: Bytes.self)
    }

    /// The same bits, as signed bytes.
    @inline(__always)
    private static func signed(_ bytes: Bytes) -> SignedBytes {
        unsafeBitCast(bytes, to: SignedBytes.self)
    }

    /// Whether any lane of a mask is set. The standard library's `any(_:)` reduces lane by lane; this
    /// tests the 128 bits as two words.
    @inline(__always)
    private static func any(_ lanes: SIMDMask<SignedBytes>) -> Bool {
        let words = unsafeBitCast(lanes, to: (UInt64, UInt64).self)
        return words.0 | words.1 != 0
    }

    /// The first byte in `start..<end` where the DFA fails, stepping from the last character start
    /// before `start` (`start >= 3`, the bytes before it valid). Called when the vector test rejects a
    /// block, to report the exact byte: the DFA is the reference.
    private static func firstInvalidByte(
        _ table: UnsafeBufferPointer<UInt64>, _ base: UnsafeRawPointer, _ start: Int, _ end: Int
    ) -> Int? {
        var j = characterStart(base, before: start)
        var state = State.accept
        while j < end {
            state = step(table, state, base.load(fromByteOffset: j, as: UInt8.self))
            if state == State.error { return j }
            j &+= 1
        }
        // Not reached: the vector test rejects a block only where the DFA does. Were it to happen, the
        // DFA, the reference, has accepted the bytes, and validation goes on.
        return nil
    }

    /// The offset of the last character start among the 3 bytes before offset `i` (`i >= 3`), or `i`
    /// if those are 3 continuation bytes. The bytes before `i` are valid, so the DFA is between
    /// characters there: stepping from it reaches the state at `i`.
    @inline(__always)
    private static func characterStart(_ base: UnsafeRawPointer, before i: Int) -> Int {
        // In valid text, at most 3 continuation bytes follow each other, and 3 end a 4-byte sequence.
        var j = i
        while j > i &- 3 {
            j &-= 1
            if base.load(fromByteOffset: j, as: UInt8.self) & 0xC0 != 0x80 { return j }
        }
        return i
    }

    /// One DFA step from `state` (a `State`) on `byte`.
    @inline(__always)
    private static func step(_ table: UnsafeBufferPointer<UInt64>, _ state: UInt64, _ byte: UInt8) -> UInt64 {
        (table[Int(byte)] &>> state) & State.mask
    }

    // MARK: - The DFA

    /// The states, each stored as its shift amount (6 bits per state in a row). `error` must be 0: every
    /// row then has 0 in its lowest 6 bits, so the error state maps to itself on any byte.
    private enum State {
        static let error: UInt64 = 0
        /// Between characters.
        static let accept: UInt64 = 6
        /// Expecting 1, 2 or 3 more continuation bytes, any of 80..BF.
        static let tail1: UInt64 = 12
        static let tail2: UInt64 = 18
        static let tail3: UInt64 = 24
        /// After E0: the next byte is A0..BF (lower ones would encode overlongs below U+0800).
        static let afterE0: UInt64 = 30
        /// After ED: the next byte is 80..9F (higher ones would encode surrogates D800..DFFF).
        static let afterED: UInt64 = 36
        /// After F0: the next byte is 90..BF (lower ones would encode overlongs below U+10000).
        static let afterF0: UInt64 = 42
        /// After F4: the next byte is 80..8F (higher ones would encode code points above U+10FFFF).
        static let afterF4: UInt64 = 48

        static let mask: UInt64 = 63
        static let all: [UInt64] = [error, accept, tail1, tail2, tail3, afterE0, afterED, afterF0, afterF4]
    }

    /// The next state from `state` on `byte`, straight from Unicode Table 3-7.
    private static func next(from state: UInt64, on byte: UInt8) -> UInt64 {
        switch state {
        case State.accept:
            switch byte {
            case 0x00...0x7F: return State.accept
            case 0xC2...0xDF: return State.tail1
            case 0xE0: return State.afterE0
            case 0xE1...0xEC, 0xEE...0xEF: return State.tail2
            case 0xED: return State.afterED
            case 0xF0: return State.afterF0
            case 0xF1...0xF3: return State.tail3
            case 0xF4: return State.afterF4
            default: return State.error // 80..BF stray continuation, C0 C1 overlong, F5..FF out of range.
            }
        case State.tail1: return (0x80...0xBF).contains(byte) ? State.accept : State.error
        case State.tail2: return (0x80...0xBF).contains(byte) ? State.tail1 : State.error
        case State.tail3: return (0x80...0xBF).contains(byte) ? State.tail2 : State.error
        case State.afterE0: return (0xA0...0xBF).contains(byte) ? State.tail1 : State.error
        case State.afterED: return (0x80...0x9F).contains(byte) ? State.tail1 : State.error
        case State.afterF0: return (0x90...0xBF).contains(byte) ? State.tail2 : State.error
        case State.afterF4: return (0x80...0x8F).contains(byte) ? State.tail2 : State.error
        default: return State.error
        }
    }

    /// For each byte, the next state of every state: bits `s..<s+6` hold the next state of state `s`.
    private static let transitions: [UInt64] = (0...255).map { byte in
        State.all.reduce(0) { row, state in row | next(from: state, on: UInt8(byte)) << state }
    }
}
