// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CZlibReference

/// The harness's own RFC 7692 decoder, the oracle of the `deflate` target: plain zlib calls over a
/// whole message's payload at once, written apart from the library's chunked, limit-checked decoder
/// (WebSocketDeflate's `DeflateTransform` and `InflateBox`).
///
/// RFC 7692 §7.2.2: the payload plus the 4-byte tail `00 00 FF FF` is raw DEFLATE data in the window
/// the sender agreed to (8 is read as 9, as zlib needs); with context takeover the window carries
/// over to the next message. A block with BFINAL set ends the stream: what follows in the same message
/// starts a new one (§7.2.3.4), and no tail is appended to a message that ended its stream.
public final class ReferenceInflater {
    public enum Outcome: Equatable {
        case message([UInt8])
        /// The decoded size went over the limit.
        case tooLarge
        /// zlib refused the data.
        case invalid

        /// Bytes compared with `memcmp`: the harness is instrumented, and the synthesized comparison
        /// walks messages byte by byte.
        public static func == (a: Outcome, b: Outcome) -> Bool {
            switch (a, b) {
            case let (.message(x), .message(y)): return sameBytes(x, y)
            case (.tooLarge, .tooLarge), (.invalid, .invalid): return true
            default: return false
            }
        }
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool
    /// Where zlib writes, reused: a zero-filled 64 KiB array for every call cost more than the
    /// decoding itself under AddressSanitizer.
    private let scratch: UnsafeMutableBufferPointer<UInt8>

    public init(windowBits: Int, noContextTakeover: Bool) {
        self.noContextTakeover = noContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: 1 << 16)
        let status = inflateInit2_(stream, -Int32(max(9, windowBits)), ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Keyed by what the decoder is for as well, so that two decoders in use at once are never one.
    private struct Key: Hashable {
        var slot: Int
        var windowBits: Int
        var noContextTakeover: Bool
    }

    // libFuzzer runs inputs on one thread.
    nonisolated(unsafe) private static var reusable: [Key: ReferenceInflater] = [:]

    /// A decoder in the state of a new one, made once per `slot` and parameters: `inflateReset` forgets
    /// the window and the position in the stream, and saves the `inflateInit2` (and the allocation of
    /// zlib's window at the first byte) of every input.
    public static func fresh(slot: Int, windowBits: Int, noContextTakeover: Bool) -> ReferenceInflater {
        let key = Key(slot: slot, windowBits: windowBits, noContextTakeover: noContextTakeover)
        if let inflater = reusable[key] {
            inflateReset(inflater.stream)
            return inflater
        }
        let inflater = ReferenceInflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
        reusable[key] = inflater
        return inflater
    }

    /// Decodes one compressed message's payload, or the start of one (`isComplete` false: no tail, and
    /// the state is left mid-message). After `.tooLarge` or `.invalid` the state is spent (the library
    /// fails the connection there).
    public func decode(_ payload: [UInt8], limit: Int, isComplete: Bool = true) -> Outcome {
        var output: [UInt8] = []
        var rest = payload[...]
        var ended = false
        let scratch = self.scratch
        func run(_ input: ArraySlice<UInt8>) -> (ok: Bool, leftover: Int?) {
            input.withUnsafeBytes { raw in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.pointee.avail_in = uInt(raw.count)
                defer { stream.pointee.next_in = nil }
                while true {
                    stream.pointee.next_out = scratch.baseAddress
                    stream.pointee.avail_out = uInt(scratch.count)
                    let status = inflate(stream, Z_SYNC_FLUSH)
                    stream.pointee.next_out = nil
                    let produced = scratch.count - Int(stream.pointee.avail_out)
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<produced]))
                    switch status {
                    case Z_STREAM_END: return (true, Int(stream.pointee.avail_in))
                    case Z_OK: if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return (true, nil) }
                    case Z_BUF_ERROR: if stream.pointee.avail_in == 0 { return (true, nil) } else { return (false, nil) }
                    default: return (false, nil)
                    }
                    if output.count > limit { return (true, nil) }
                }
            }
        }
        while !rest.isEmpty {
            if ended {
                inflateReset(stream)
                ended = false
            }
            let (ok, leftover) = run(rest)
            guard ok else { return output.count > limit ? .tooLarge : .invalid }
            if output.count > limit { return .tooLarge }
            if let leftover {
                ended = true
                rest = rest.suffix(leftover)
            } else {
                rest = []
            }
        }
        guard isComplete else { return .message(output) }
        if !ended {
            let (ok, leftover) = run([0x00, 0x00, 0xFF, 0xFF])
            guard ok else { return output.count > limit ? .tooLarge : .invalid }
            if leftover != nil { ended = true }
        }
        if output.count > limit { return .tooLarge }
        if ended || noContextTakeover { inflateReset(stream) }
        return .message(output)
    }
}
