// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TransportTestSupport

/// A TCP connection to 127.0.0.1 that sends nothing: for a server's handshake timeout.
final class RawConnection {
    private let socket: RawSocket

    init(port: UInt16) throws { socket = try RawSocket.connect(port: port) }

    deinit { socket.close() }

    /// Waits until the server closes the connection; whether it did within `timeout`.
    func waitForEnd(timeout: Duration) -> Bool { socket.readUntilEOF(timeout: timeout) }
}
