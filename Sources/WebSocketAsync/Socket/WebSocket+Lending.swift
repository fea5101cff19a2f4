// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

extension WebSocket {
    /// What a lending handler receives: a whole message lent for the duration of the call, or any
    /// other event.
    ///
    /// A message read where it arrived (no TLS, the whole frame in one read: the usual case) is lent
    /// from the loop's read buffer, unmasked in place: no copy and no allocation between the socket
    /// and you. One that was not (over TLS, cut across reads, fragmented, decompressed) is lent from
    /// the connection's own buffer. Either way the bytes are valid only until the handler returns:
    /// copy what you keep. Sending them back (``send(binary:)``, ``send(text:)``) copies them into the
    /// connection's output, so an echo needs nothing more.
    public enum LentEvent {
        /// A whole text message: its bytes, validated as UTF-8.
        case text(UnsafeRawBufferPointer)
        /// A whole binary message.
        case binary(UnsafeRawBufferPointer)
        /// Any other event, as an ``EventHandler`` receives it: the opening, a fragment (in
        /// ``WebSocketCore/Connection/Delivery/fragments`` mode), a control frame (when asked for),
        /// a drain, the end.
        case event(WebSocketEvent)
    }

    /// A handler that borrows messages instead of owning them: the fastest face, called on the
    /// socket's loop. See ``LentEvent``.
    public typealias LendingHandler = @Sendable (WebSocket, LentEvent) -> Void

    /// (On the loop) Hands an event to a lending handler: a message as a view of its bytes.
    func lend(_ event: WebSocketEvent, to handler: LendingHandler) {
        switch event {
        case .message(.binary(let bytes)):
            bytes.withUnsafeBytes { handler(self, .binary($0)) }
        case .message(.text(var text)):
            text.withUTF8 { handler(self, .text(UnsafeRawBufferPointer($0))) }
        default:
            handler(self, .event(event))
        }
    }
}
