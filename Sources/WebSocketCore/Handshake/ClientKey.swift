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
/// its bytes (`other` `nil`), whichever initializer made it, and any other value with its bytes
/// zero, so equal keys have equal representations and the synthesized equality and hash agree with
/// the strings'.
///
/// Three words and an optional string rather than an enum of the two: an enum with a string in
/// one case and the words in the other was copied through the runtime's value witnesses, about
/// 140 instructions per copy.
struct ClientKey: Sendable, Hashable {
    /// A valid key's 24 bytes, in order (a homogeneous tuple is laid out contiguously), as three
    /// words; zero for any other value.
    private let a: UInt64, b: UInt64, c: UInt64
    /// Any other value, as it is; `nil` for a valid key.
    private let other: String?

    /// A valid key's bytes (``Base64/isSixteenBytesEncoded(_:)``), or `nil`.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard Base64.isSixteenBytesEncoded(bytes), let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        a = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        b = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        c = raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        other = nil
    }

    /// Any value: kept as its bytes when it is a valid key, as the string otherwise.
    init(_ string: String) {
        var string = string
        if let valid = string.withUTF8({ ClientKey($0) }) {
            self = valid
        } else {
            self.init(other: string)
        }
    }

    /// Whether the key is a valid one (24 bytes of base64 that decode to 16).
    var isValid: Bool { other == nil }

    /// A key that is not one (an empty string's): where none was read, or none was valid.
    static var invalid: ClientKey { ClientKey(other: "") }

    private init(other: String) {
        (a, b, c) = (0, 0, 0)
        self.other = other
    }

    /// The key as a string.
    var string: String {
        if let other { return other }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the key's UTF-8 bytes.
    func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if var other { return other.withUTF8 { body(UnsafeRawBufferPointer($0)) } }
        return withUnsafeBytes(of: (a, b, c)) { body($0) }
    }
}
