// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection.PreparedMessage {
    /// The message's payload (a text message's UTF-8), read back from its frames: what a message
    /// bus between servers carries, where the frames are each server's own business.
    public var payload: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(payloadCount)
        wireBytes.withUnsafeBytes { raw in
            var offset = 0
            // The frames are the initializer's own, so every header parses and every length fits;
            // the checks keep it so for any bytes all the same.
            while offset < raw.count,
                  case .header(let header, let size) = FrameHeader.parse(UnsafeRawBufferPointer(rebasing: raw[offset...])),
                  header.payloadLength <= UInt64(raw.count - offset - size) {
                let start = offset + size
                let end = start + Int(header.payloadLength)
                result.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                offset = end
            }
        }
        return result
    }
}
