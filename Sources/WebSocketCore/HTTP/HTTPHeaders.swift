// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// An ordered list of HTTP header fields, as they appeared on the wire.
    ///
    /// Names compare case-insensitively (RFC 9110 §5.1); order and duplicates are kept, because the
    /// handshake must tell one `Sec-WebSocket-Key` field from two.
    public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
        /// One `name: value` header field.
        public struct Field: Sendable, Hashable {
            /// The field name as written (compare it case-insensitively).
            public var name: String
            /// The field value, without the surrounding whitespace.
            public var value: String
            /// A field. Nothing is checked here: the handshake writer throws
            /// ``Connection/UsageError/invalidHeader(_:)`` for a name that is not a token or a value with CR,
            /// LF or NUL (RFC 9110 §5.1, §5.5).
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// The fields in order, duplicates included.
        public private(set) var fields: [Field] = []

        /// No fields.
        public init() {}

        /// The fields of `pairs`, (name, value) each, in order.
        public init(_ pairs: [(String, String)]) {
            fields = pairs.map { Field(name: $0.0, value: $0.1) }
        }

        /// The fields of a literal such as `["Origin": "https://example.com"]`, in order.
        public init(dictionaryLiteral elements: (String, String)...) {
            self.init(elements)
        }

        /// The number of fields, duplicates included.
        public var count: Int { fields.count }
        /// Whether there are no fields.
        public var isEmpty: Bool { fields.isEmpty }

        /// Adds a field after the others, keeping any with the same name.
        public mutating func append(name: String, value: String) {
            fields.append(Field(name: name, value: value))
        }

        /// Appends a field as it is (the head parser: moved in, its strings not copied).
        mutating func append(_ field: consuming Field) {
            fields.append(field)
        }

        /// Makes room for `count` fields (the head parser, before the first).
        mutating func reserveCapacity(_ count: Int) {
            fields.reserveCapacity(count)
        }

        /// Removes every field with this name.
        public mutating func remove(name: String) {
            fields.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
        }

        /// The value of the first field with this name.
        public subscript(name: String) -> String? {
            fields.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
        }

        /// The values of every field with this name, in order.
        public func values(for name: String) -> [String] {
            fields.lazy.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map { $0.value }
        }

        /// Whether any field has this name.
        public func contains(name: String) -> Bool { self[name] != nil }

        /// The fields in order.
        public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, which is what HTTP tokens and header names use.
    func asciiCaseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        // Header names are looked up by walking the fields: most comparisons are between names of
        // different lengths, and native strings compare as contiguous bytes. (Iterating both views
        // whatever their lengths cost about 28,000 instructions per opening handshake.)
        guard utf8.count == other.utf8.count else { return false }
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in asciiCaseInsensitiveEqualBytes(a, b) }
        }
        if let contiguous, let result = contiguous { return result }
        var a = utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                if asciiLowercased(x) != asciiLowercased(y) { return false }
            default: return false
            }
        }
    }
}

/// ASCII case-insensitive equality of two byte runs of the same length.
func asciiCaseInsensitiveEqualBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var index = 0
    while index < a.count {
        let x = a[index], y = b[index]
        if x != y, asciiLowercased(x) != asciiLowercased(y) { return false }
        index += 1
    }
    return true
}

@inline(__always)
func asciiLowercased(_ c: UInt8) -> UInt8 {
    c &- UInt8(ascii: "A") < 26 ? c | 0x20 : c
}
