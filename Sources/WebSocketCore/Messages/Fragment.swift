// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A piece of a data message delivered as it arrives (``Connection/Delivery/fragments``).
    public struct Fragment: Sendable, Hashable {
        /// The kind of the message this piece belongs to.
        public var kind: Connection.MessageKind
        /// The payload bytes of this piece; text pieces may split a UTF-8 sequence (the whole message has
        /// been checked so far).
        public var bytes: [UInt8]
        /// Whether this is the first piece of its message.
        public var isFirst: Bool
        /// Whether this piece ends its message.
        public var isFinal: Bool
        /// A piece as the connection delivers it; for tests and for adapters that re-deliver pieces.
        public init(kind: Connection.MessageKind, bytes: [UInt8], isFirst: Bool, isFinal: Bool) {
            self.kind = kind
            self.bytes = bytes
            self.isFirst = isFirst
            self.isFinal = isFinal
        }
    }
}
