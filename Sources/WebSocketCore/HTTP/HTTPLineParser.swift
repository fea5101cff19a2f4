// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Parses the individual lines of an HTTP/1.1 head (RFC 9112 §3, §4, §5), each given without its
/// line terminator. ``HTTPHeadParser`` finds the lines; this checks their grammar. Every function
/// works on a bounded slice and never traps, whatever the bytes. `package`: the transport's proxy
/// tunnel reads a proxy's reply with the same grammar.
package enum HTTPLineParser {
    struct RequestLine: Sendable, Hashable {
        var method: String
        var target: String
        var version: Connection.HTTPVersion
    }

    package struct StatusLine: Sendable, Hashable {
        package var version: Connection.HTTPVersion
        package var status: Int
        package var reason: String
    }

    private static let space = UInt8(ascii: " ")

    /// RFC 9112 §3: `request-line = method SP request-target SP HTTP-version`, with single spaces.
    /// The head parser's line is read where it lies (a copy into an array cost an allocation per
    /// opening handshake).
    static func requestLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<RequestLine, Connection.HandshakeError> {
        let line = bytes[...]
        guard let firstSpace = line.firstIndex(of: space) else { return .failure(.malformedRequestLine) }
        let afterMethod = line[(firstSpace + 1)...]
        guard let secondSpace = afterMethod.firstIndex(of: space) else { return .failure(.malformedRequestLine) }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let versionBytes = line[(secondSpace + 1)...]

        // RFC 9112 §3.1: `method = token`.
        guard HTTPTokens.isToken(method) else { return .failure(.malformedRequestLine) }
        // RFC 9112 §3.2: the request target is a URI form, which has no whitespace, control characters
        // or raw non-ASCII bytes (RFC 3986 §2). "A recipient of an invalid request-line SHOULD respond
        // with either a 400 (Bad Request) error or a 301 (Moved Permanently) redirect".
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformedRequestLine)
        }
        guard let version = parseVersion(versionBytes) else { return .failure(.malformedRequestLine) }
        // Text framing is HTTP/1.x only: "HTTP/2.0" here is not HTTP/2 (RFC 9113 has no request line),
        // and HTTP/0.9 has no headers. Which HTTP/1 minor versions are acceptable is the handshake's
        // decision (ServerHandshake), so that a bad method is still reported first.
        guard version.major == 1 else { return .failure(.unsupportedHTTPVersion) }
        // The method an upgrade uses, as the literal (see `knownName(_:)`).
        let m = method.startIndex
        let isGET = method.count == 3 && method[m] == UInt8(ascii: "G") && method[m + 1] == UInt8(ascii: "E")
            && method[m + 2] == UInt8(ascii: "T")
        let methodName = isGET ? "GET" : ascii(method)
        return .success(RequestLine(method: methodName, target: ascii(target), version: version))
    }

    /// RFC 9112 §4: `status-line = HTTP-version SP status-code SP [ reason-phrase ]`. The SP after the
    /// code is accepted missing too, since some servers omit it along with an empty reason.
    package static func statusLine(_ line: ArraySlice<UInt8>) -> Result<StatusLine, Connection.HandshakeError> {
        line.withUnsafeBufferPointer { statusLine($0) }
    }

    /// ``statusLine(_:)-(ArraySlice<UInt8>)`` over contiguous bytes, read where they lie.
    static func statusLine(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<StatusLine, Connection.HandshakeError> {
        let line = bytes[...]
        let start = line.startIndex
        guard line.count >= 12, line[start + 8] == space else { return .failure(.malformedStatusLine) }
        guard let version = parseVersion(line[start..<(start + 8)]) else { return .failure(.malformedStatusLine) }
        // RFC 9112 §4: `status-code = 3DIGIT`; RFC 9110 §15: "Values outside the range 100..599 are
        // invalid".
        var status = 0
        for c in line[(start + 9)..<(start + 12)] {
            guard let digit = decimalDigit(c) else { return .failure(.malformedStatusLine) }
            status = status * 10 + digit
        }
        guard (100...599).contains(status) else { return .failure(.malformedStatusLine) }
        var reason = line[(start + 12)...]
        if line.count > 12 {
            guard line[start + 12] == space else { return .failure(.malformedStatusLine) }
            reason = line[(start + 13)...]
        }
        // RFC 9112 §4: `reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )`.
        guard reason.allSatisfy(HTTPHeadWriter.isFieldValueByte) else { return .failure(.malformedStatusLine) }
        guard version.major == 1 else { return .failure(.unsupportedHTTPVersion) }
        return .success(StatusLine(version: version, status: status,
                                   reason: String(decoding: reason, as: UTF8.self)))
    }

    /// RFC 9112 §5: `field-line = field-name ":" OWS field-value OWS`.
    package static func field(_ line: ArraySlice<UInt8>) -> Result<Connection.HTTPHeaders.Field, Connection.HandshakeError> {
        line.withUnsafeBufferPointer { field($0) }
    }

    /// ``field(_:)-(ArraySlice<UInt8>)`` over contiguous bytes.
    static func field(_ line: UnsafeBufferPointer<UInt8>) -> Result<Connection.HTTPHeaders.Field, Connection.HandshakeError> {
        switch fieldBounds(line) {
        case .success(let bounds):
            let name = UnsafeBufferPointer(rebasing: line[..<bounds.nameEnd])
            let value = UnsafeBufferPointer(rebasing: line[bounds.value])
            return .success(Connection.HTTPHeaders.Field(name: HTTPFieldLines.string(name: name),
                                                         value: HTTPFieldLines.string(value)))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Where a field line's name ends (at its colon) and where its value lies, trimmed of the
    /// whitespace around it, once the line is found to follow RFC 9112 §5's `field-line =
    /// field-name ":" OWS field-value OWS`; and which known name it has, when it is spelled exactly
    /// so (the opening handshake then knows the field without comparing its name again). The head
    /// parser keeps the two as they are (``HTTPFieldLines``);
    /// ``field(_:)-(UnsafeBufferPointer<UInt8>)`` makes them strings. A `clean` line is known to
    /// hold no control byte but HTAB and no DEL (``HTTPTokens/lineEnd(in:from:)``), so its value is
    /// not scanned again.
    static func fieldBounds(_ line: UnsafeBufferPointer<UInt8>, clean: Bool = false) -> Result<FieldBounds, Connection.HandshakeError> {
        // RFC 9112 §5.1: "No whitespace is allowed between the field name and colon. ... A server MUST
        // reject, with a response status code of 400 (Bad Request), any received request message that
        // contains whitespace between a header field name and colon." A non-token name fails the same
        // way, since whitespace is no tchar. One pass: the name runs to the first byte that is no
        // tchar, which must be the colon (a colon is no tchar, so it is the line's first).
        // A name every opening handshake carries, spelled exactly so and followed by the colon, is
        // known to be tokens: it is compared a word at a time, not scanned a byte at a time.
        let colon: Int
        let known = KnownFieldName(before: line)
        if let known {
            colon = known.count
        } else {
            var end = HTTPTokens.alphanumericOrHyphenPrefix(line)
            while end < line.count, HTTPTokens.isTokenChar(line[end]) { end += 1 }
            guard end > 0, end < line.count, line[end] == UInt8(ascii: ":") else { return .failure(.malformedHeader) }
            colon = end
        }
        let value = HTTPTokens.owsTrimmed(line[(colon + 1)...])
        // RFC 9110 §5.5: "Field values containing CR, LF, or NUL characters are invalid and dangerous
        // ... a recipient ... MUST either reject the message or replace each of those characters with
        // SP". We reject them, and every other control character but HTAB, which `field-vchar` excludes.
        // obs-text (0x80-0xFF) is allowed, and decoded as UTF-8 with repair when made a string.
        guard clean || HTTPTokens.isFieldValue(UnsafeBufferPointer(rebasing: line[value])) else { return .failure(.malformedHeader) }
        return .success(FieldBounds(nameEnd: colon, value: value, known: known))
    }

    /// What ``fieldBounds(_:)`` finds in a valid field line.
    struct FieldBounds {
        /// Where the name ends: the colon's index.
        var nameEnd: Int
        /// The value, without the whitespace around it.
        var value: Range<Int>
        /// The known name the line starts with, spelled exactly so; `nil` for any other name.
        var known: KnownFieldName?
    }

    /// The literal of a known name, when `name` is exactly its bytes: a string made from the head
    /// takes it, neither decoded nor stored again (the two longest names took an allocation each,
    /// per handshake). Any other spelling is decoded as it is.
    @inline(__always)
    static func knownName(_ name: UnsafeBufferPointer<UInt8>) -> String? {
        guard let known = KnownFieldName(startOf: name), known.count == name.count else { return nil }
        return known.string
    }

    /// RFC 9112 §2.3: `HTTP-version = HTTP-name "/" DIGIT "." DIGIT`, with `HTTP-name` case-sensitive.
    static func parseVersion(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Connection.HTTPVersion? {
        guard bytes.count == 8 else { return nil }
        let start = bytes.startIndex
        // Byte by byte: `starts(with: "HTTP/".utf8)` went through two iterators, about 250
        // instructions a head.
        guard bytes[start] == UInt8(ascii: "H"), bytes[start + 1] == UInt8(ascii: "T"), bytes[start + 2] == UInt8(ascii: "T"),
              bytes[start + 3] == UInt8(ascii: "P"), bytes[start + 4] == UInt8(ascii: "/") else { return nil }
        guard bytes[start + 6] == UInt8(ascii: "."),
              let major = decimalDigit(bytes[start + 5]),
              let minor = decimalDigit(bytes[start + 7]) else { return nil }
        return Connection.HTTPVersion(major: major, minor: minor)
    }

    @inline(__always)
    static func decimalDigit(_ c: UInt8) -> Int? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int(c - UInt8(ascii: "0")) : nil
    }

    /// Bytes already checked to be ASCII, as a string.
    private static func ascii(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
