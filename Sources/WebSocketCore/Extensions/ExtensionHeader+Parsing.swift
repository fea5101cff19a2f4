// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The `Sec-WebSocket-Extensions` grammar of RFC 6455 §9.1:
///
///     Sec-WebSocket-Extensions = extension-list
///     extension-list = 1#extension
///     extension = extension-token *( ";" extension-param )
///     extension-token = registered-token
///     registered-token = token
///     extension-param = token [ "=" (token | quoted-string) ]
///         ;When using the quoted-string syntax variant, the value
///         ;after quoted-string unescaping MUST conform to the
///         ;'token' ABNF.
///
/// The list follows RFC 9110 §5.6.1: optional whitespace around the separators, and empty elements
/// (`a,,b`) are accepted and ignored ("a recipient MUST parse and ignore a reasonable number of empty
/// list elements"). Several field lines combine as one list (RFC 9110 §5.3, RFC 6455 §9.1 "may be
/// split into multiple instances").
extension Connection.ExtensionHeader {
    /// Parses every `Sec-WebSocket-Extensions` field line, in order. Returns `[]` when there is no line
    /// and `nil` on a syntax error, including a list with no extension at all (`1#extension`).
    ///
    /// RFC 6455 §9.1: <https://www.rfc-editor.org/rfc/rfc6455#section-9.1>
    public static func parseList(_ values: [String]) -> [Connection.ExtensionHeader]? {
        guard !values.isEmpty else { return [] }
        var parser = ExtensionListParser(values: values)
        guard let list = parser.parse(), !list.isEmpty else { return nil }
        return list
    }

    /// The field value for a list of extensions: `a; p=1, b`.
    public static func headerValue(_ list: [Connection.ExtensionHeader]) -> String {
        list.map { $0.headerValue }.joined(separator: ", ")
    }

    /// This extension as one list element: its name, then `; param` or `; param=value` for each
    /// parameter. A value that is a token is written bare, any other as a quoted-string (RFC 9110
    /// §5.6.4), though RFC 6455 §9.1 wants every value to be a token once unquoted.
    var headerValue: String {
        var out = name
        for parameter in parameters {
            out += "; " + parameter.name
            if let value = parameter.value {
                out += "=" + (HTTPTokens.isToken(value) ? value : Self.quoted(value))
            }
        }
        return out
    }

    /// Whether the extension can be written without breaking the field: the name and parameter names
    /// are tokens and values hold no control characters.
    var isWritable: Bool {
        HTTPTokens.isToken(name) && parameters.allSatisfy { parameter in
            HTTPTokens.isToken(parameter.name)
                && (parameter.value.map { $0.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F } } ?? true)
        }
    }

    /// RFC 9110 §5.6.4: `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE`, escaping `"` and `\`.
    private static func quoted(_ value: String) -> String {
        var out = "\""
        for c in value.unicodeScalars {
            if c == "\"" || c == "\\" { out += "\\" }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }
}

/// A recursive-descent parser over the bytes of the combined field lines. Each byte is looked at a
/// bounded number of times, and nothing is stored beyond the parsed names and values.
private struct ExtensionListParser {
    private let bytes: [UInt8]
    private var index = 0

    init(values: [String]) {
        // RFC 9110 §5.3: several field lines are combined "in order, ... separated by a comma".
        bytes = Array(values.joined(separator: ",").utf8)
    }

    mutating func parse() -> [Connection.ExtensionHeader]? {
        var list: [Connection.ExtensionHeader] = []
        while true {
            skipOWS()
            guard let c = peek() else { return list }
            if c == UInt8(ascii: ",") {
                index += 1  // an empty element
                continue
            }
            guard let element = parseExtension() else { return nil }
            list.append(element)
            skipOWS()
            guard let next = peek() else { return list }
            guard next == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// `extension = token *( ";" extension-param )`, leaving the index at the following `,` or end.
    private mutating func parseExtension() -> Connection.ExtensionHeader? {
        guard let name = parseToken() else { return nil }
        var element = Connection.ExtensionHeader(name: name)
        while true {
            skipOWS()
            guard peek() == UInt8(ascii: ";") else { return element }
            index += 1
            skipOWS()
            guard let parameterName = parseToken() else { return nil }
            skipOWS()
            var value: String?
            if peek() == UInt8(ascii: "=") {
                index += 1
                skipOWS()
                if peek() == UInt8(ascii: "\"") {
                    guard let unquoted = parseQuotedString(), HTTPTokens.isToken(unquoted) else { return nil }
                    value = unquoted
                } else {
                    guard let token = parseToken() else { return nil }
                    value = token
                }
            }
            element.parameters.append(Connection.ExtensionHeader.Parameter(name: parameterName, value: value))
        }
    }

    private mutating func parseToken() -> String? {
        let start = index
        while let c = peek(), HTTPTokens.isTokenChar(c) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseQuotedString() -> String? {
        HTTPTokens.quotedString(bytes, at: &index).map { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func skipOWS() {
        while let c = peek(), HTTPTokens.isOWS(c) { index += 1 }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }
}
