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
    ///
    /// Computed on the two halves of the 128-bit count of attoseconds that `Duration` stores: its
    /// own `-`, `>` and `components` are calls into the runtime, the last a 128-bit division, about
    /// 90 instructions for every turn of an event loop that has a timer.
    package static func milliseconds(until deadline: Connection.Instant?, now: Connection.Instant) -> Int32 {
        guard let deadline else { return -1 }
        guard now < deadline else { return 0 }
        let (later, earlier) = (deadline.sinceOrigin, now.sinceOrigin)
        let (low, borrow) = later._low.subtractingReportingOverflow(earlier._low)
        let (partial, first) = later._high.subtractingReportingOverflow(earlier._high)
        let (high, second) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
        // Positive, as the deadline is later; one wrap without the other means past Int128.max.
        // From 2^84 attoseconds (about 19 million s) on, the answer is Int32.max milliseconds.
        guard first == second, high >= 0, high < 1 << 20 else { return Int32.max }
        let (quotient, remainder) = UInt64(1_000_000_000_000_000).dividingFullWidth((high: UInt64(high), low: low))
        let milliseconds = quotient &+ (remainder == 0 ? 0 : 1)
        return milliseconds > UInt64(Int32.max) ? Int32.max : Int32(milliseconds)
    }
}
