// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Where the frame reader is between two calls. (Usable from inlinable code: an adapter's check
/// that the reader is idle, ``Connection/isAwaitingInput``, tests for `.header` in the caller.)
@usableFromInline
enum FrameReadState: Sendable, Hashable {
    /// Waiting for a complete header at the start of the input.
    case header
    /// Reading the payload of a frame whose header passed every check.
    case payload(FrameInProgress)
}

/// A frame whose payload is being read.
@usableFromInline
struct FrameInProgress: Sendable, Hashable {
    var opcode: Opcode
    var fin: Bool
    /// RSV1-3 as sent; only a negotiated transform's bits on a message's first frame get this far.
    var reservedBits: UInt8 = 0
    /// Payload bytes still to read; checked against the limits before it was converted to `Int`.
    var remaining: Int
    var maskingKey: MaskingKey?
    /// The position in the masking key of the next payload byte (RFC 6455 §5.3: `j = i MOD 4`).
    var maskOffset: Int = 0
}

/// The data message being received.
enum IncomingMessage: Sendable, Hashable {
    case none
    case assembling(MessageAssembly)
}

/// What is known of the data message being received, its payload aside.
struct MessageAssembly: Sendable, Hashable {
    var kind: Connection.MessageKind
    /// Whether the first frame carried the negotiated transform's reserved bits: the payload is then
    /// decoded (decompressed) as it arrives.
    var isTransformed = false
    /// Payload bytes announced so far (received, or promised by the current frame's header).
    var size: Int
    /// (Transformed messages) Decoded bytes so far; they count against the message limit.
    var decodedSize = 0
    var fragments: Int
    /// Validates text as it arrives, so that invalid UTF-8 fails the connection at the first bad byte
    /// (RFC 6455 §8.1), not at the end of the message.
    var validator = UTF8Validator()
    /// (``Connection/Delivery/fragments``) Whether a piece of this message has been delivered.
    var hasDeliveredPiece = false
}

/// The data message being sent in fragments by the caller.
enum OutgoingMessage: Sendable, Hashable {
    case none
    case sending(Connection.MessageKind, UTF8Validator, isTransformed: Bool)
}
