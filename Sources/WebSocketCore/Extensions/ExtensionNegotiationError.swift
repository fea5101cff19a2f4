// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Why a server's extension response is unacceptable.
    public struct ExtensionNegotiationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the response, for the ``Connection/HandshakeError`` that fails the handshake (as in
        /// `"server_max_window_bits out of range"`).
        public var reason: String
        /// An error with the given reason.
        public init(_ reason: String) { self.reason = reason }
        /// The reason.
        public var description: String { reason }
    }
}
