// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore

/// `poll` with a deadline on the monotonic clock.
package enum Poller {
    /// Polls `fds` until one is ready or `deadline` passes (`nil`: no limit). `EINTR` is retried with
    /// the time that remains. Returns the number of ready descriptors, 0 at the deadline.
    package static func poll(_ fds: inout [pollfd], deadline: Connection.Instant?, system: SystemCalls) throws(Errno) -> Int {
        while true {
            let timeout = milliseconds(until: deadline, now: system.monotonicNow())
            let result = fds.withUnsafeMutableBufferPointer { buffer in
                system.poll(buffer.baseAddress!, nfds_t(buffer.count), timeout)
            }
            if result >= 0 {
                // poll may wake a little before the deadline it was given in whole milliseconds.
                if result == 0, let deadline, system.monotonicNow() < deadline { continue }
                return Int(result)
            }
            let error = Errno.current
            guard error == .interrupted else { throw error }
        }
    }

    /// The poll timeout for `deadline`: -1 for none, otherwise the remaining milliseconds rounded
    /// up (so that a wait never ends before its deadline and spins), at least 0, at most `Int32.max`.
    package static func milliseconds(until deadline: Connection.Instant?, now: Connection.Instant) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = deadline - now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(milliseconds)
    }
}
