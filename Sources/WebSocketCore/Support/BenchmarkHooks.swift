// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Entry points for the benchmark executable into internal building blocks (masking, UTF-8
/// validation), which are not public API. Not for applications: the SPI may change at any time.
package enum BenchmarkHooks {
    /// XORs `buffer` with the 4-byte `key` as payload starting at `offset`; returns the next offset.
    @inline(never)
    package static func mask(_ buffer: UnsafeMutableRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8), offset: Int) -> Int {
        MaskingKey(key.0, key.1, key.2, key.3).apply(to: buffer, offset: offset)
    }

    /// Appends the `Sec-WebSocket-Accept` value for `key` to `out` (SHA-1 and base64, RFC 6455
    /// §4.2.2): the one computation an opening handshake cannot skip.
    @inline(never)
    package static func appendAcceptValue(forKey key: String, to out: inout [UInt8]) {
        AcceptKey.appendAccept(forKey: key, to: &out)
    }

    /// Validates `bytes` as UTF-8 in chunks of `chunkSize`, carrying state across chunks.
    @inline(never)
    package static func validateUTF8(_ bytes: UnsafeRawBufferPointer, chunkSize: Int) -> Bool {
        var validator = UTF8Validator()
        var offset = 0
        let step = max(1, chunkSize)
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            guard validator.validate(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) else { return false }
            offset = end
        }
        return validator.isAtCharacterBoundary
    }
}
