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

        /// Where the fields are: strings, as a caller builds them, or the bytes of a parsed head
        /// (``HTTPFieldLines``), where a string is made only for what is asked. A change to parsed
        /// fields makes them strings first.
        private enum Storage: Sendable {
            case strings([Field])
            case parsed(HTTPFieldLines)
        }
        private var storage: Storage

        /// The fields in order, duplicates included. Fields of a parsed head are made strings at
        /// each call: the subscript and ``values(for:)`` make only the values they return.
        public var fields: [Field] {
            switch storage {
            case .strings(let fields): return fields
            case .parsed(let lines): return lines.fields
            }
        }

        /// No fields.
        public init() { storage = .strings([]) }

        /// The fields of `pairs`, (name, value) each, in order.
        public init(_ pairs: [(String, String)]) {
            storage = .strings(pairs.map { Field(name: $0.0, value: $0.1) })
        }

        /// The fields of a literal such as `["Origin": "https://example.com"]`, in order.
        public init(dictionaryLiteral elements: (String, String)...) {
            self.init(elements)
        }

        /// The fields of a parsed head (the head parser).
        init(lines: HTTPFieldLines) { storage = .parsed(lines) }

        /// The bytes kept for the fields of a parsed head (their array's capacity), `nil` for fields
        /// built as strings: for tests of what a connection keeps of its handshake.
        var parsedByteCapacity: Int? {
            guard case .parsed(let lines) = storage else { return nil }
            return lines.bytes.capacity
        }

        /// The bytes kept for the fields of a parsed head (``HTTPFieldLines``), `nil` for fields built
        /// as strings: for tests of how they are kept.
        var parsedBytes: [UInt8]? {
            guard case .parsed(let lines) = storage else { return nil }
            return lines.bytes
        }

        /// The number of fields, duplicates included.
        public var count: Int {
            switch storage {
            case .strings(let fields): return fields.count
            case .parsed(let lines): return lines.count
            }
        }
        /// Whether there are no fields.
        public var isEmpty: Bool {
            switch storage {
            case .strings(let fields): return fields.isEmpty
            case .parsed(let lines): return lines.isEmpty
            }
        }

        /// Adds a field after the others, keeping any with the same name.
        public mutating func append(name: String, value: String) {
            var fields = takeFields()
            fields.append(Field(name: name, value: value))
            storage = .strings(fields)
        }

        /// Removes every field with this name.
        public mutating func remove(name: String) {
            var fields = takeFields()
            fields.removeAll { $0.name.asciiCaseInsensitiveEquals(name) }
            storage = .strings(fields)
        }

        /// The fields as strings, to be changed: `self` is left empty meanwhile, so that the caller
        /// holds the array's only reference and changes it in place.
        private mutating func takeFields() -> [Field] {
            let fields = self.fields
            storage = .strings([])
            return fields
        }

        /// The value of the first field with this name.
        public subscript(name: String) -> String? {
            switch storage {
            case .strings(let fields):
                return fields.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
            case .parsed(let lines):
                var found: String? = nil
                Self.withBytes(of: name) { wanted in
                    lines.forEach { fieldName, value in
                        guard asciiCaseInsensitiveEqualBytes(fieldName, wanted) else { return true }
                        found = HTTPFieldLines.string(value)
                        return false
                    }
                }
                return found
            }
        }

        /// The values of every field with this name, in order.
        public func values(for name: String) -> [String] {
            switch storage {
            case .strings(let fields):
                return fields.lazy.filter { $0.name.asciiCaseInsensitiveEquals(name) }.map { $0.value }
            case .parsed(let lines):
                var values: [String] = []
                Self.withBytes(of: name) { wanted in
                    lines.forEach { fieldName, value in
                        if asciiCaseInsensitiveEqualBytes(fieldName, wanted) { values.append(HTTPFieldLines.string(value)) }
                        return true
                    }
                }
                return values
            }
        }

        /// Whether any field has this name.
        public func contains(name: String) -> Bool { self[name] != nil }

        /// The fields in order.
        public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

        /// Calls `body` with each field's name and value as bytes, in order, until it returns
        /// `false`: the handshake's checks read them so, with no string made for a parsed head.
        func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
            switch storage {
            case .parsed(let lines):
                lines.forEach(body)
            case .strings(let fields):
                for field in fields {
                    let goOn = Self.withBytes(of: field.name) { name in Self.withBytes(of: field.value) { body(name, $0) } }
                    if !goOn { return }
                }
            }
        }

        /// Calls `body` with a string's UTF-8 bytes: where they lie when the string is stored
        /// contiguously (a native string always is), copied otherwise.
        private static func withBytes<R>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
            return Array(string.utf8).withUnsafeBufferPointer(body)
        }

        /// Fields equal in order, name and value: the same whether they were parsed or built.
        public static func == (lhs: Connection.HTTPHeaders, rhs: Connection.HTTPHeaders) -> Bool {
            if case .parsed(let l) = lhs.storage, case .parsed(let r) = rhs.storage, l.bytes == r.bytes { return true }
            return lhs.fields == rhs.fields
        }

        /// Hashes the fields, as equality compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(fields)
        }
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
