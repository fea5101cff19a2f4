// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Builds the HTTP heads this library sends, refusing any caller-provided name or value that could
/// break the message framing (header injection, CWE-113): a CR or LF in a value would let a caller's
/// string add header fields or end the head early.
struct HTTPHeadWriter {
    private(set) var bytes: [UInt8] = []

    /// Starts the head with a request or status line, which the caller has already checked.
    init(startLine: String) {
        // Room for a typical head at once: grown from empty, the array was reallocated four times
        // for a server's 101 answer.
        bytes.reserveCapacity(256)
        appendUTF8(startLine)
        appendCRLF()
    }

    /// Starts the head with `prefix`: a start line and fields the caller has already written out,
    /// each with its CRLF (the 101 answer's first three lines, the same for every handshake).
    init(prefix: [UInt8], reserving capacity: Int) {
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: prefix)
    }

    /// Appends `name: value` CRLF after checking both: RFC 9110 §5.1 `field-name = token`, and
    /// RFC 9110 §5.5 "Field values containing CR, LF, or NUL characters are invalid and dangerous".
    /// Other control characters are refused too, since `field-vchar` excludes them.
    mutating func append(name: String, value: String) throws(Connection.UsageError) {
        guard HTTPTokens.isToken(name) else { throw .invalidHeader(name) }
        guard Self.isValidFieldValue(value) else { throw .invalidHeader(name) }
        appendUnchecked(name: name, value: value)
    }

    /// Appends a field built by this library from already-validated parts.
    mutating func appendUnchecked(name: String, value: String) {
        appendUTF8(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        appendValue { Self.appendUTF8(value, to: &$0) }
    }

    /// Appends the value of a field whose name and `": "` the head already ends with (see
    /// ``init(prefix:reserving:)``), then its CRLF: `writeValue` appends it to the head's bytes
    /// itself, so a value this library computes (the accept value) needs no string.
    mutating func appendValue(_ writeValue: (inout [UInt8]) -> Void) {
        writeValue(&bytes)
        appendCRLF()
    }

    /// Ends the head with the empty line and returns its bytes. Mutating, not `consuming`: the
    /// consuming form kept a second reference to the bytes while it appended the line, and the
    /// append then copied the whole head into a new array (an allocation per handshake).
    mutating func finish() -> [UInt8] {
        appendCRLF()
        return bytes
    }

    private mutating func appendUTF8(_ string: String) {
        Self.appendUTF8(string, to: &bytes)
    }

    /// A string's bytes, copied as one run where the string is stored contiguously (a native
    /// string always is), not a byte at a time through its UTF-8 view.
    @inline(__always)
    private static func appendUTF8(_ string: String, to bytes: inout [UInt8]) {
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: string.utf8) }
    }

    private mutating func appendCRLF() {
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    /// RFC 9110 §5.5: `field-value = *field-content`, made of VCHAR, obs-text, SP and HTAB. Every other
    /// control character (NUL, CR, LF, DEL, ...) is refused.
    static func isValidFieldValue(_ value: some StringProtocol) -> Bool {
        value.utf8.allSatisfy(isFieldValueByte)
    }

    @inline(__always)
    static func isFieldValueByte(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "\t") || (c >= 0x20 && c != 0x7F)
    }
}
