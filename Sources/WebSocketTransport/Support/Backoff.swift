// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Truncated exponential backoff with jitter, the one formula of every client that reconnects (the
/// WebSocket client's reconnect policy, the Redis connection's): `start` grown
/// `steps` times by `factor` (less than 1 counts as 1), at most `maximum`, then shortened at random
/// by up to `jitter` (0 to 1) of itself. A zero start stays zero however many steps; growth past
/// what a `Double` holds is the maximum. One unit draw from `generator` when `jitter` is above 0.
package func backoffDelay(from start: Duration, factor: Double, steps: Int, maximum: Duration, jitter: Double,
                          using generator: inout some RandomNumberGenerator) -> Duration {
    let first = seconds(max(start, .zero)), longest = seconds(max(maximum, .zero))
    // `first > 0` first: 0 × an overflowed power would be NaN, which the check below would make
    // the maximum.
    let grown = first > 0 ? first * pow(max(factor, 1), Double(max(steps, 0))) : 0
    let base = grown.isFinite ? min(grown, longest) : longest
    let spread = min(max(jitter, 0), 1)
    guard spread > 0 else { return .seconds(base) }
    return .seconds(base * (1 - spread * Double.random(in: 0 ... 1, using: &generator)))
}

private func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
}
