// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The `Sec-WebSocket-Accept` computation (RFC 6455 §4.2.2 step 5.4, §1.3).
enum AcceptKey {
    /// RFC 6455 §1.3: the GUID every endpoint appends to the client's key.
    /// A literal: its bytes are constant data, hashed where they lie (a `String` went through the
    /// generic update and a lazy initializer's check).
    static let guid: StaticString = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// base64(SHA-1(key + GUID)). The key is used as sent (trimmed of surrounding whitespace by the
    /// header parser), not base64-decoded.
    static func accept(forKey key: String) -> String {
        var value: [UInt8] = []
        appendAccept(forKey: key, to: &value)
        return String(decoding: value, as: UTF8.self)
    }

    /// Appends ``accept(forKey:)``'s 28 bytes to `out`: the server's 101 response takes them so,
    /// with no digest array and no string in between.
    static func appendAccept(forKey key: String, to out: inout [UInt8]) {
        var key = key
        key.withUTF8 { appendAccept(keyBytes: UnsafeRawBufferPointer($0), to: &out) }
    }

    /// ``appendAccept(forKey:to:)`` for a key as a request keeps it: its bytes hashed where they
    /// lie.
    static func appendAccept(for key: ClientKey, to out: inout [UInt8]) {
        key.withUTF8 { appendAccept(keyBytes: $0, to: &out) }
    }

    private static func appendAccept(keyBytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var sha = SHA1()
        sha.update(keyBytes)
        guid.withUTF8Buffer { sha.update(UnsafeRawBufferPointer($0)) }
        withUnsafeTemporaryAllocation(byteCount: SHA1.digestSize, alignment: 4) { digest in
            sha.finalize(into: digest)
            Base64.encode(UnsafeRawBufferPointer(digest), appendingTo: &out)
        }
    }
}
