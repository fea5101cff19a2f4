// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The content of a Close frame.
    public struct CloseFrame: Sendable, Hashable {
        /// The status code; ``Connection/CloseCode/noStatusReceived`` (1005) for a Close frame without one.
        public var code: Connection.CloseCode
        /// The reason text after the code, valid UTF-8 (checked on receipt, RFC 6455 §5.5.1); empty when
        /// the frame carries none. At most 123 bytes, as a control frame's payload is at most 125.
        public var reason: String
        /// A Close frame's content; `reason` defaults to none.
        public init(code: Connection.CloseCode, reason: String = "") {
            self.code = code
            self.reason = reason
        }
    }
}

extension Connection.CloseFrame {
    /// Throws what ``Connection/close(code:reason:)`` throws for this frame whatever the connection's
    /// state: a code that may not be sent (RFC 6455 §7.4), a reason over 123 bytes (§5.5). For an
    /// adapter that checks a close made away from the connection's own thread.
    package func checkSendable() throws(Connection.UsageError) {
        guard code.isValidOnWire else { throw .invalidCloseCode(code) }
        guard reason.utf8.count <= 123 else { throw .closeReasonTooLong }
    }
}
