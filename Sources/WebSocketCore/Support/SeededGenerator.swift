// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A deterministic random number generator (xoshiro256**, seeded through SplitMix64).
    ///
    /// Inject it into a ``Connection`` to make masking keys and `Sec-WebSocket-Key` reproducible: the same
    /// seed and the same inputs give the same outbound bytes. It is not cryptographically secure; production
    /// clients keep the default, `SystemRandomNumberGenerator` (RFC 6455 §10.3 wants unpredictable masks).
    public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
        private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

        /// A generator whose whole sequence follows from `seed`; any value, zero included, is a good seed.
        public init(seed: UInt64) {
            var x = seed
            func splitMix() -> UInt64 {
                x &+= 0x9E37_79B9_7F4A_7C15
                var z = x
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
            s0 = splitMix(); s1 = splitMix(); s2 = splitMix(); s3 = splitMix()
        }

        /// The next 64 pseudo-random bits.
        public mutating func next() -> UInt64 {
            let result = (s1 &* 5).rotatedLeft(7) &* 9
            let t = s1 << 17
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = s3.rotatedLeft(45)
            return result
        }
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ n: UInt64) -> UInt64 { (self << n) | (self >> (64 - n)) }
}
