// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// A request's `Sec-WebSocket-Key`. A valid one (RFC 6455 §4.2.1 item 5: "a base64-encoded ...
/// value that, when decoded, is 16 bytes in length", hence 24 bytes) is kept as its bytes, in line;
/// any other value a caller stores (``Connection/HandshakeRequest/key`` is settable, a plain
/// request's is empty) as the string it is.
///
/// Why: as a string, every opening handshake's key took an allocation (24 bytes do not fit a
/// small string) and its check decoded it through the general decoder, about 700 instructions
/// together. A string is made only when a caller reads ``Connection/HandshakeRequest/key``.
///
/// Invariant: a value that ``init(_:)-(UnsafeBufferPointer<UInt8>)`` accepts is always held as
/// `.valid`, whichever initializer made it, so equal keys have equal representations and the
/// synthesized equality and hash agree with the strings'.
struct ClientKey: Sendable, Hashable {
    private enum Storage: Sendable, Hashable {
        /// The 24 bytes, in order (a homogeneous tuple is laid out contiguously), as three words.
        case valid(UInt64, UInt64, UInt64)
        case other(String)
    }
    private let storage: Storage

    /// The number of bytes of a valid key.
    static let validCount = 24

    /// A valid key's bytes (``Base64/isSixteenBytesEncoded(_:)``), or `nil`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard Base64.isSixteenBytesEncoded(bytes), let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        storage = .valid(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                         raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                         raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    }

    /// Any value: kept as its bytes when it is a valid key, as the string otherwise.
    init(_ string: String) {
        var string = string
        if let valid = string.withUTF8({ ClientKey($0) }) {
            self = valid
        } else {
            storage = .other(string)
        }
    }

    /// Whether the key is a valid one (24 bytes of base64 that decode to 16).
    var isValid: Bool {
        if case .valid = storage { return true }
        return false
    }

    /// The key as a string.
    var string: String {
        switch storage {
        case .valid: return withUTF8 { String(decoding: $0, as: UTF8.self) }
        case .other(let string): return string
        }
    }

    /// Calls `body` with the key's UTF-8 bytes.
    func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        switch storage {
        case .valid(let a, let b, let c):
            return withUnsafeBytes(of: (a, b, c)) { body($0) }
        case .other(var string):
            return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }
}
