// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The per-connection state of a negotiated extension that transforms payloads in both directions.
///
/// A transform must behave as a value: copying a ``Connection`` copies its transform, and the two
/// copies must then go their own ways (an implementation holding a reference to native state copies
/// it on write).
///
/// Only messages whose first frame carries ``reservedBits`` are transformed; a message without them
/// is plain, in both directions, and leaves the transform's state alone (for permessage-deflate,
/// RFC 7692 §6: an uncompressed message has RSV1 clear). A transform may therefore never require
/// every message to be transformed: ``shouldEncode(messageOfSize:)`` may decline any message, and
/// ``Connection/send(text:compress:)`` with `compress: false` and ``Connection/send(_:)`` (a
/// ``Connection/PreparedMessage``, framed once for many connections) send plain frames whatever was
/// negotiated. An extension whose protocol forbids plain messages cannot be built on this protocol.
public protocol MessageTransform: Sendable {
    /// The reserved bits (`0x40` for RSV1, `0x20` RSV2, `0x10` RSV3) that mark a transformed message on
    /// its first frame.
    var reservedBits: UInt8 { get }

    /// Decodes the next piece of a transformed message's payload; `isFinal` marks the end of the
    /// message (the piece may be empty). Decoded bytes go to `output` in chunks of bounded size as they
    /// are produced; when `output` returns `false` (a limit was reached, the text is invalid), decoding
    /// stops at once and the call returns ``Connection/TransformResult/stopped``.
    mutating func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool,
                         output: (UnsafeRawBufferPointer) -> Bool) -> Connection.TransformResult

    /// Whether an outgoing message of `size` bytes should be transformed (a compressor skips tiny and
    /// empty messages, for instance). Called once per message, before its first ``encode(_:isFinal:)``.
    func shouldEncode(messageOfSize size: Int?) -> Bool

    /// Encodes the next piece of an outgoing message (all of it, or one fragment the caller streams);
    /// `isFinal` marks the end of the message. Returns the bytes to put in the frame.
    mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8]
}

extension Connection {
    /// The outcome of ``MessageTransform/decode(_:isFinal:output:)``.
    public enum TransformResult: Sendable, Hashable {
        /// Every input byte was consumed.
        case consumed
        /// The output closure asked to stop.
        case stopped
        /// The input is not valid for the transform (corrupt compressed data, for instance).
        case failed(String)
    }
}
