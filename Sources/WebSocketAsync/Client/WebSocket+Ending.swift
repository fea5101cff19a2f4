// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketTransport

// What a ReconnectingWebSocket needs of a socket beyond the public API: to wait for the end without
// reading messages, to know who started the closing handshake, and to end a try either way.
extension WebSocket {
    /// Calls `body` once the connection has ended (after its last event), at once if it has: on the
    /// loop, or on the calling thread when it had already ended.
    func whenEnded(_ body: @escaping @Sendable (Ending) -> Void) {
        let ending: Ending? = shared.withLock { shared in
            if let ending = shared.ending { return ending }
            shared.endObservers.append(body)
            return nil
        }
        if let ending { body(ending) }
    }

    /// Whether this side started the closing handshake (a Close frame sent, or `close`, while open).
    var closeStartedHere: Bool { shared.withLock { $0.closeStartedHere } }

    /// (On the loop) Whether `message` starts the closing handshake from this side: a Close the
    /// connection can send, while it is open.
    func startsClosing(_ message: WebSocketMessage) -> Bool {
        guard case .close(let frame) = message, (try? frame.checkSendable()) != nil else { return false }
        return peek { $0.pipeline.connection.isOpen }
    }

    /// Starts the closing handshake with `code` once open, or cancels the connect while it is still
    /// opening: decided on the loop, so that a socket opening meanwhile is closed, not aborted. A
    /// code that may not be sent aborts the connection instead.
    func closeOrCancel(code: Connection.CloseCode, reason: String) {
        loop.execute { [self] in
            var closing = false
            if peek({ $0.handshake }) != nil {
                peek { $0.advanceTime(to: loop.now) }
                closing = (try? session.close(code: code, reason: reason, completion: nil)) != nil
            }
            if !closing { peek { $0.cancel() } }
            act()
            markDirty()
        }
    }
}
