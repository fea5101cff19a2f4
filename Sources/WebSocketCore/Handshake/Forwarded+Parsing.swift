// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The `Forwarded` grammar of RFC 7239 §4 and §6:
///
///     Forwarded         = 1#forwarded-element
///     forwarded-element = [ forwarded-pair ] *( ";" [ forwarded-pair ] )
///     forwarded-pair    = token "=" value
///     value             = token / quoted-string
///     node              = nodename [ ":" node-port ]
///     nodename          = IPv4address / "[" IPv6address "]" / "unknown" / obfnode
///     obfnode           = "_" 1*( ALPHA / DIGIT / "." / "_" / "-")
///     node-port         = port / obfport
///     port              = 1*5DIGIT
///     obfport           = "_" 1*(ALPHA / DIGIT / "." / "_" / "-")
///
/// OWS is accepted around `,` (RFC 9110 §5.6.1) and, leniently, around `;`, where some proxies write a
/// space; not around `=`.
extension Connection.ForwardedElement {
    /// Parses every `Forwarded` field line, in order: the elements of the first line, then the next
    /// line's. Empty list elements are dropped (RFC 9110 §5.6.1); an element that breaks the grammar is
    /// kept as one with ``isMalformed`` set, and parsing goes on at the next comma outside a
    /// quoted-string. Parameters other than `for`, `by`, `host` and `proto` are extensions (RFC 7239
    /// §5.5) and skipped. Never fails and never traps: any text gives a list.
    ///
    /// Each line is parsed on its own, although RFC 9110 §5.3 lets a recipient join them with commas: a
    /// quoted-string a client left open on its line would otherwise run into the line a proxy added
    /// after it, and hide the proxy's element.
    ///
    /// RFC 7239 §4: <https://www.rfc-editor.org/rfc/rfc7239#section-4>
    public static func parseList(_ values: [String]) -> [Connection.ForwardedElement] {
        var elements: [Connection.ForwardedElement] = []
        for value in values {
            var parser = ForwardedParser(bytes: Array(value.utf8))
            parser.parseLine(into: &elements)
        }
        return elements
    }
}

extension Connection.ForwardedNode {
    /// Reads a node (RFC 7239 §6) from the unquoted value of `for` or `by`; `nil` when it is not one.
    /// A host name is not a node: RFC 7239 has no place for one.
    init?(parsing value: [UInt8]) {
        var rest = value[...]
        var portText: ArraySlice<UInt8>?
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let address = rest[(rest.startIndex + 1)..<close]
            guard URISyntax.isIPv6Address(address) else { return nil }
            name = .ipv6(String(decoding: address, as: UTF8.self))
            rest = rest[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                portText = rest.dropFirst()
            }
        } else {
            var nameText = rest
            if let colon = rest.firstIndex(of: UInt8(ascii: ":")) {
                nameText = rest[..<colon]
                portText = rest[(colon + 1)...]
            }
            if nameText.elementsEqual("unknown".utf8, by: { asciiLowercased($0) == $1 }) {
                name = .unknown
            } else if Self.isObfuscated(nameText) {
                name = .obfuscated(String(decoding: nameText, as: UTF8.self))
            } else if URISyntax.isDottedQuad(nameText) {
                name = .ipv4(String(decoding: nameText, as: UTF8.self))
            } else {
                return nil
            }
        }
        guard let portText else {
            port = nil
            return
        }
        if Self.isObfuscated(portText) {
            port = .obfuscated(String(decoding: portText, as: UTF8.self))
            return
        }
        // `port = 1*5DIGIT`, and a port is 16 bits: five digits cannot overflow an Int.
        guard (1...5).contains(portText.count), portText.allSatisfy(URISyntax.isDigit) else { return nil }
        guard let number = UInt16(exactly: portText.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }) else { return nil }
        port = .number(number)
    }

    /// `"_" 1*( ALPHA / DIGIT / "." / "_" / "-")`, which `obfnode` and `obfport` share.
    private static func isObfuscated(_ text: ArraySlice<UInt8>) -> Bool {
        text.count >= 2 && text.first == UInt8(ascii: "_")
            && text.dropFirst().allSatisfy {
                URISyntax.isAlpha($0) || URISyntax.isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "-")
            }
    }
}

/// A cursor over one field line. Each byte is looked at a bounded number of times (once by the parse,
/// at most once more when a malformed element is skipped), so the work is linear in the line, which the
/// handshake's `maxHeaderBytes` already bounds.
private struct ForwardedParser {
    let bytes: [UInt8]
    var index = 0

    mutating func parseLine(into elements: inout [Connection.ForwardedElement]) {
        while true {
            skipOWS()
            guard let c = peek() else { return }
            if c == UInt8(ascii: ",") {
                index += 1  // an empty element
                continue
            }
            let start = index
            if let element = parseElement() {
                elements.append(element)
            } else {
                elements.append(.malformed)
                skipElement(from: start)
            }
            guard peek() == UInt8(ascii: ",") else { return }
            index += 1
        }
    }

    /// `forwarded-element`, leaving the index at the `,` or the end that follows it; `nil` when it breaks
    /// the grammar.
    private mutating func parseElement() -> Connection.ForwardedElement? {
        var element = Connection.ForwardedElement()
        var seen: (for: Bool, by: Bool, host: Bool, proto: Bool) = (false, false, false, false)
        while true {
            skipOWS()
            guard let c = peek(), c != UInt8(ascii: ",") else { return element }
            if c == UInt8(ascii: ";") {
                index += 1  // `[ forwarded-pair ]`: a pair may be empty
                continue
            }
            let nameStart = index
            while let b = peek(), HTTPTokens.isTokenChar(b) { index += 1 }
            let name = bytes[nameStart..<index]
            guard !name.isEmpty, peek() == UInt8(ascii: "=") else { return nil }
            index += 1
            let value: [UInt8]
            if peek() == UInt8(ascii: "\"") {
                guard let unquoted = HTTPTokens.quotedString(bytes, at: &index) else { return nil }
                value = unquoted
            } else {
                let valueStart = index
                while let b = peek(), HTTPTokens.isTokenChar(b) { index += 1 }
                guard index > valueStart else { return nil }
                value = Array(bytes[valueStart..<index])
            }
            // RFC 7239 §4: "Each parameter MUST NOT occur more than once per forwarded-element."
            if Self.isName(name, "for") {
                guard !seen.for, let node = Connection.ForwardedNode(parsing: value) else { return nil }
                seen.for = true
                element.for = node
            } else if Self.isName(name, "by") {
                guard !seen.by, let node = Connection.ForwardedNode(parsing: value) else { return nil }
                seen.by = true
                element.by = node
            } else if Self.isName(name, "host") {
                guard !seen.host, Self.isHost(value) else { return nil }
                seen.host = true
                element.host = String(decoding: value, as: UTF8.self)
            } else if Self.isName(name, "proto") {
                // RFC 7239 §5.4: "The syntax of a "proto" value [is] defined in Section 3.1 of [RFC3986]".
                guard !seen.proto, let first = value.first, URISyntax.isAlpha(first),
                      value.allSatisfy(URISyntax.isSchemeByte) else { return nil }
                seen.proto = true
                element.proto = String(decoding: value.map(URISyntax.lowercased), as: UTF8.self)
            }
            skipOWS()
            guard let next = peek(), next != UInt8(ascii: ",") else { return element }
            guard next == UInt8(ascii: ";") else { return nil }
            index += 1
        }
    }

    /// Whether a parameter name is `expected` (lower-case), in any case: RFC 7239 §4, "The parameter
    /// names are case-insensitive".
    private static func isName(_ name: ArraySlice<UInt8>, _ expected: StaticString) -> Bool {
        name.count == expected.utf8CodeUnitCount
            && expected.withUTF8Buffer { name.elementsEqual($0) { asciiLowercased($0) == $1 } }
    }

    /// RFC 7239 §5.3: `Host = uri-host [ ":" port ]`. Only what can be in one: RFC 3986's
    /// unreserved, sub-delims, `%` of an escape, `:` and the brackets of an IPv6 literal. Not empty.
    private static func isHost(_ value: [UInt8]) -> Bool {
        !value.isEmpty && value.allSatisfy {
            URISyntax.isUnreserved($0) || URISyntax.isSubDelim($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: ":")
                || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]")
        }
    }

    /// Moves from the start of a malformed element to the next `,` outside a quoted-string, or the end.
    /// Started again from the element's first byte, so that a failure inside a quoted-string does not
    /// read its closing quote as an opening one.
    private mutating func skipElement(from start: Int) {
        index = start
        var quoted = false
        while let c = peek() {
            if quoted {
                if c == UInt8(ascii: "\\") {
                    index += 1  // the escaped byte, whatever it is
                } else if c == UInt8(ascii: "\"") {
                    quoted = false
                }
            } else if c == UInt8(ascii: "\"") {
                quoted = true
            } else if c == UInt8(ascii: ",") {
                return
            }
            index += 1
        }
        index = bytes.count
    }

    private mutating func skipOWS() {
        while let c = peek(), HTTPTokens.isOWS(c) { index += 1 }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }
}
