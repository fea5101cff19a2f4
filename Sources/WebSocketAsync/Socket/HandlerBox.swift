// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A loop face's handler in an object of its own, made once per server (its face) or per client.
///
/// A closure read out of the socket's consumer is retained for the call and released after it: the
/// call could replace the consumer and free the closure while it runs. That is two atomic operations
/// per delivered message. The socket holds its face's box for its whole life
/// (``WebSocket/faceHandler``), and a read calls the handler through it with no retain.
final class EventHandlerBox: Sendable {
    let call: WebSocket.EventHandler
    init(_ call: @escaping WebSocket.EventHandler) { self.call = call }
}

/// ``EventHandlerBox`` for a lending handler.
final class LendingHandlerBox: Sendable {
    let call: WebSocket.LendingHandler
    init(_ call: @escaping WebSocket.LendingHandler) { self.call = call }
}
