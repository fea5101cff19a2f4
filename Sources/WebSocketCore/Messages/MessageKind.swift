// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The kind of a data message.
    public enum MessageKind: Sendable, Hashable {
        /// UTF-8 text (opcode 0x1), validated before delivery (RFC 6455 §8.1).
        case text
        /// Arbitrary bytes (opcode 0x2).
        case binary

        var opcode: Opcode { self == .text ? .text : .binary }
    }
}
