// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The `Sec-WebSocket-Accept` computation (RFC 6455 §4.2.2 step 5.4, §1.3).
enum AcceptKey {
    /// RFC 6455 §1.3: the GUID every endpoint appends to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// base64(SHA-1(key + GUID)). The key is used as sent (trimmed of surrounding whitespace by the
    /// header parser), not base64-decoded.
    static func accept(forKey key: String) -> String {
        var sha = SHA1()
        sha.update(key.utf8)
        sha.update(guid.utf8)
        return Base64.encode(sha.finalize())
    }
}
