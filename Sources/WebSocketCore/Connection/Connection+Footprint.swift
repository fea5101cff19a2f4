// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The bytes of buffer capacity the connection holds for input it has not delivered yet: the
    /// message being assembled, the control frame being read, the HTTP head being parsed and a refusing
    /// response's body. Tests and fuzz targets check it against the configured limits; the input buffer
    /// (what the caller fed and the connection has not parsed yet) and the output buffer are counted
    /// apart, by ``bufferedInputCount`` and ``pendingOutputCount``.
    @_spi(Testing) public var retainedPayloadCapacity: Int {
        messageBuffer.capacity + controlBuffer.capacity + lendScratch.capacity + headReading.retainedByteCount
            + bodyReader.body.capacity
    }
}

extension Connection {
    /// The heap the connection's own buffers hold, by capacity: input (and its spare), output, the
    /// message, control and lending buffers, the event queue, the handshake parser and the awaited
    /// pings. Zlib state of a negotiated extension is not included. For tests and for sizing a server.
    @_spi(Testing) public var bufferCapacity: Int {
        inbox.capacity + spareInbox.capacity + outbox.capacity + queuedOutput.capacity * MemoryLayout<[UInt8]>.stride + messageBuffer.capacity + controlBuffer.capacity
            + lendScratch.capacity + events.capacity * MemoryLayout<Connection.Event>.stride + headReading.retainedByteCount
            + bodyReader.body.capacity + awaitedPings.capacity
    }
}
