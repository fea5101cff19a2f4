// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Names one awaited ping of this connection: what ``Connection/sendPing(_:awaitingPongWithin:)``
    /// returns and ``Connection/nextPingOutcome()`` reports its outcome under.
    ///
    /// Opaque and unique per connection: no two pings a connection sends have the same one. A copy of
    /// a connection continues from the same state, so the two copies go on to give the same
    /// identifiers to different pings; do not mix them.
    public struct PingID: Sendable, Hashable {
        /// A counter that grows with each awaited ping the connection sends.
        let rawValue: UInt64

        init(_ rawValue: UInt64) { self.rawValue = rawValue }
    }
}

extension Connection.PingID: CustomStringConvertible {
    /// The ping's number on its connection, e.g. `ping 3`, for logs.
    public var description: String { "ping \(rawValue)" }
}
