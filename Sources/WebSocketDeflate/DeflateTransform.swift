// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// The negotiated permessage-deflate state of one connection: a compressor for what we send and a
/// decompressor for what we receive, each created on first use and copied on write.
struct DeflateTransform: MessageTransform {
    /// The agreed parameters, from our side's point of view.
    struct Agreement: Sendable, Hashable {
        /// Our compressor's window (9...15; a negotiated 8 is compressed with 9).
        var sendWindowBits: Int
        /// Reset our compressor after every message (we agreed to no context takeover).
        var sendNoContextTakeover: Bool
        /// The peer's window, for our decompressor (at least 9, see ``InflateBox``).
        var receiveWindowBits: Int
        /// The peer resets its compressor after every message.
        var receiveNoContextTakeover: Bool
    }

    let agreement: Agreement
    let compression: PerMessageDeflate.Compression
    private var compressor: DeflateBox?
    private var decompressor: InflateBox?
    /// RFC 7692 §7.2.2: a message ending with a stream end (BFINAL) still gets the empty-block tail;
    /// once the stream ended, the rest of the message must be that tail and nothing else.
    private var ended = false

    init(agreement: Agreement, compression: PerMessageDeflate.Compression) {
        self.agreement = agreement
        self.compression = compression
    }

    /// RFC 7692 §6: "the RSV1 bit" marks a compressed message on its first frame.
    var reservedBits: UInt8 { 0x40 }

    func shouldEncode(messageOfSize size: Int?) -> Bool {
        guard let size else { return true }
        // Empty messages go out uncompressed: there is nothing to gain, and nothing for a peer to
        // get wrong.
        return size > 0 && size >= compression.minimumSize
    }

    mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8] {
        let box = uniqueCompressor()
        var output: [UInt8] = []
        box.compress(input, into: &output)
        if isFinal {
            // RFC 7692 §7.2.1: "Remove 4 octets (that are 0x00 0x00 0xff 0xff) from the tail end."
            if output.count >= 4 && output[(output.count - 4)...].elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
                output.removeLast(4)
            }
            if agreement.sendNoContextTakeover { box.reset() }
        }
        return output
    }

    mutating func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool,
                         output: (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult {
        let box = uniqueDecompressor()
        var rest = input
        while !rest.isEmpty {
            if ended {
                // RFC 7692 §7.2.3.4: after a block with BFINAL set, what follows (an empty stored block
                // completed by the tail, in the RFC's example) is read as a new stream. Real garbage
                // fails there as invalid deflate data.
                box.reset()
                ended = false
            }
            switch box.decompress(rest, output: output) {
            case .consumed: rest = UnsafeRawBufferPointer(start: nil, count: 0)
            case .stopped: return .stopped
            case .failed(let why): return .failed(why)
            case .streamEnd(let leftover):
                ended = true
                rest = UnsafeRawBufferPointer(rebasing: rest[(rest.count - leftover)...])
            }
        }
        guard isFinal else { return .consumed }
        // RFC 7692 §7.2.2: "Append 4 octets of 0x00 0x00 0xff 0xff to the tail end of the payload of
        // the message" before decompressing its end. A stream that just ended needs no tail.
        if !ended {
            let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
            let outcome = tail.withUnsafeBytes { box.decompress($0, output: output) }
            switch outcome {
            case .consumed: break
            case .stopped: return .stopped
            case .failed(let why): return .failed(why)
            case .streamEnd: ended = true
            }
        }
        if ended || agreement.receiveNoContextTakeover {
            // A finished stream cannot take more input; with no context takeover the peer starts
            // afresh anyway.
            box.reset()
            ended = false
        }
        return .consumed
    }

    private mutating func uniqueCompressor() -> DeflateBox {
        if compressor == nil {
            compressor = DeflateBox(windowBits: Int32(max(9, agreement.sendWindowBits)), level: Int32(compression.level),
                                    memoryLevel: Int32(compression.memoryLevel))
        } else if !isKnownUniquelyReferenced(&compressor) {
            // Shared with a copy of the connection: fork the zlib state (deflateCopy).
            compressor = compressor?.copy()
        }
        guard let box = compressor else { preconditionFailure("no compressor") }
        return box
    }

    private mutating func uniqueDecompressor() -> InflateBox {
        if decompressor == nil {
            decompressor = InflateBox(windowBits: Int32(max(9, agreement.receiveWindowBits)))
        } else if !isKnownUniquelyReferenced(&decompressor) {
            decompressor = decompressor?.copy()
        }
        guard let box = decompressor else { preconditionFailure("no decompressor") }
        return box
    }
}
