// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A frame opcode (RFC 6455 §5.2). Only the six defined opcodes are representable: any other value on
/// the wire is a protocol error.
enum Opcode: UInt8, Sendable, Hashable {
    /// 0x0: a further frame of a fragmented message (§5.4).
    case continuation = 0x0
    /// 0x1: the first frame of a text message, UTF-8 (§5.6).
    case text = 0x1
    /// 0x2: the first frame of a binary message (§5.6).
    case binary = 0x2
    /// 0x8: a Close frame, an optional code and reason (§5.5.1).
    case close = 0x8
    /// 0x9: a Ping, which the peer answers with a Pong carrying the same payload (§5.5.2).
    case ping = 0x9
    /// 0xA: a Pong, the answer to a Ping or an unsolicited heartbeat (§5.5.3).
    case pong = 0xA

    /// RFC 6455 §5.5: opcodes with the most significant bit set are control frames.
    @inline(__always)
    var isControl: Bool { rawValue & 0x8 != 0 }
}
