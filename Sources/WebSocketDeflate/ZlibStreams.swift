// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import CZlib

/// A raw-deflate compressor (zlib's `z_stream` in deflate mode), boxed so that a transform can share it
/// until it is written to, then copy it (`deflateCopy`): the copy-on-write that keeps ``Connection``
/// a value.
///
/// `@unchecked Sendable` on the copy-on-write argument that makes `Array` Sendable: the stream is only
/// written through a reference that `isKnownUniquelyReferenced` proved unique; shared boxes are only
/// read (by `deflateCopy`), and reads may overlap.
final class DeflateBox: @unchecked Sendable {
    /// Heap-allocated, not a stored struct: zlib keeps pointers into it, and copies read it through a
    /// plain pointer (no exclusivity access on a shared box).
    private let stream: UnsafeMutablePointer<z_stream>
    let windowBits: Int32
    let level: Int32
    let memoryLevel: Int32

    /// - Parameter windowBits: 9...15. zlib refuses raw deflate with 8 (its 256-byte window has a known
    ///   bug), so a negotiated 8 arrives here as 9, as in every zlib-based implementation.
    init(windowBits: Int32, level: Int32, memoryLevel: Int32) {
        self.windowBits = windowBits
        self.level = level
        self.memoryLevel = memoryLevel
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(stream, level, Z_DEFLATED, -windowBits, memoryLevel, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        // Only an out-of-memory condition or invalid constants fail here; both are programming errors
        // or fatal conditions, never a consequence of peer input.
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
    }

    private init(copying other: DeflateBox) {
        windowBits = other.windowBits
        level = other.level
        memoryLevel = other.memoryLevel
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateCopy(stream, other.stream)
        precondition(status == Z_OK, "deflateCopy failed: \(status)")
    }

    func copy() -> DeflateBox { DeflateBox(copying: self) }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses `input` and flushes to a byte boundary (Z_SYNC_FLUSH, RFC 7692 §7.2.1), appending
    /// the output to `output`. The output always ends with the empty stored block `00 00 FF FF`, even
    /// for empty input right after a flush: the last piece of a message must end with it so that it can
    /// be removed (a message whose final fragment is empty would otherwise end with the marker of an
    /// earlier fragment, already sent, and the peer's appended tail would start a block that the next
    /// message corrupts).
    func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        var chunk = [UInt8](repeating: 0, count: max(64, min(Int(deflateBound(stream, uLong(input.count))) + 16, 1 << 20)))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        // First without flushing: zlib skips a Z_SYNC_FLUSH that follows another with no input in
        // between (Z_BUF_ERROR, no output), and a Z_NO_FLUSH step in between makes it emit the block.
        // With input, this also lets zlib consume all of it before the single flush.
        run(&chunk, into: &output, flush: Z_NO_FLUSH)
        run(&chunk, into: &output, flush: Z_SYNC_FLUSH)
    }

    private func run(_ chunk: inout [UInt8], into output: inout [UInt8], flush: Int32) {
        repeat {
            let produced: Int = chunk.withUnsafeMutableBytes { out in
                stream.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(out.count)
                let status = deflate(stream, flush)
                precondition(status == Z_OK || status == Z_BUF_ERROR, "deflate failed: \(status)")
                return out.count - Int(stream.pointee.avail_out)
            }
            output.append(contentsOf: chunk[0..<produced])
            // Done when all input is consumed and zlib left room in the output buffer (for a flush:
            // the flush fit).
        } while stream.pointee.avail_in != 0 || stream.pointee.avail_out == 0
    }

    func reset() { deflateReset(stream) }
}

/// A raw-deflate decompressor, boxed like ``DeflateBox``, with a scratch buffer that bounds how much
/// output one step can produce.
///
/// `@unchecked Sendable` for the reason given on ``DeflateBox``.
final class InflateBox: @unchecked Sendable {
    private let stream: UnsafeMutablePointer<z_stream>
    let windowBits: Int32
    /// Decoded bytes are handed out in pieces of at most this size: the most a decompression bomb can
    /// get allocated beyond the message limit.
    static let chunkSize = 16 << 10
    private let scratch: UnsafeMutableRawBufferPointer

    init(windowBits: Int32) {
        self.windowBits = windowBits
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, -windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
    }

    private init(copying other: InflateBox) {
        windowBits = other.windowBits
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateCopy(stream, other.stream)
        precondition(status == Z_OK, "inflateCopy failed: \(status)")
    }

    func copy() -> InflateBox { InflateBox(copying: self) }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    enum Outcome {
        case consumed
        /// The stream ended (a block with BFINAL set); these input bytes were left over.
        case streamEnd(leftover: Int)
        case stopped
        case failed(String)
    }

    /// Inflates all of `input`, handing each piece of output to `output`.
    func decompress(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) -> Bool) -> Outcome {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        while true {
            stream.pointee.next_out = scratch.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let inputBefore = stream.pointee.avail_in
            let status = inflate(stream, Z_SYNC_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 && !output(UnsafeRawBufferPointer(rebasing: scratch[0..<produced])) { return .stopped }
            switch status {
            case Z_OK:
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return .consumed }
                // Defensive: a step that neither reads nor writes would loop forever.
                if produced == 0 && stream.pointee.avail_in == inputBefore { return .failed("inflate made no progress") }
            case Z_BUF_ERROR:
                // No progress possible: all input used and all output flushed.
                return .consumed
            case Z_STREAM_END:
                return .streamEnd(leftover: Int(stream.pointee.avail_in))
            case Z_NEED_DICT:
                return .failed("a preset dictionary is not allowed")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)"
                return .failed(message)
            }
        }
    }

    func reset() { inflateReset(stream) }
}
