// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection.HandshakeRequest {
    /// The path of ``resource``: everything before its query (`/chat` for `/chat?room=1`).
    public var path: Substring { resourcePath(resource) }
}

extension Connection.HandshakeResult {
    /// The path of ``resource``: everything before its query (`/chat` for `/chat?room=1`).
    public var path: Substring { resourcePath(resource) }
}

/// The request target's path (RFC 9112 §3.2.1, origin-form: `absolute-path [ "?" query ]`).
func resourcePath(_ resource: String) -> Substring {
    resource.prefix { $0 != "?" }
}
