// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The client's side of the opening handshake (RFC 6455 §4.1): the key, the request, and the checks
/// on the server's 101 response.
enum ClientHandshake {
    /// Header fields the request builds from ``Connection/ClientOptions`` and that a caller may not add again
    /// through ``Connection/ClientOptions/headers``: a second copy would make the server refuse the request
    /// (`Sec-WebSocket-Key`, `Sec-WebSocket-Version`) or make the response checks wrong
    /// (`Sec-WebSocket-Protocol`, `Sec-WebSocket-Extensions` offered behind the checks' back).
    static let reservedHeaderNames = [
        "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol",
        "Sec-WebSocket-Extensions", "Sec-WebSocket-Accept",
    ]

    /// 16 random bytes (two next() calls of the generator; first call's bytes first, little-endian),
    /// base64. RFC 6455 §4.1 item 7: "The request MUST include a header field with the name
    /// |Sec-WebSocket-Key|. The value of this header field MUST be a nonce consisting of a randomly
    /// selected 16-byte value that has been base64-encoded".
    static func makeKey(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return Base64.encode(bytes)
    }

    /// The request bytes (RFC 6455 §4.1 items 1-12), in a fixed order: the request line, `Host`,
    /// `Upgrade`, `Connection`, `Sec-WebSocket-Key`, `Sec-WebSocket-Version`, then `Origin`,
    /// `Sec-WebSocket-Protocol`, `Sec-WebSocket-Extensions`, `Authorization`, `Cookie` when there is
    /// something to send, then ``Connection/ClientOptions/headers`` in their order, then the empty line.
    ///
    /// `Host`, `Origin`, `Authorization` and `Cookie` given in ``Connection/ClientOptions/headers`` replace the
    /// ones the options would produce. Throws ``Connection/UsageError/invalidHeader(_:)`` for anything that
    /// cannot be written safely: a header name that is not a token, a value with control characters
    /// (no header injection), a subprotocol that is not a token, a cookie with `;`, or a handshake
    /// header listed in ``reservedHeaderNames``.
    static func request(options: Connection.ClientOptions, key: String) throws(Connection.UsageError) -> [UInt8] {
        let url = options.url
        let userHeaders = options.headers
        for field in userHeaders {
            guard !reservedHeaderNames.contains(where: { $0.asciiCaseInsensitiveEquals(field.name) }) else {
                throw .invalidHeader(field.name)
            }
        }

        // RFC 6455 §4.1 item 2: "The method of the request MUST be GET, and the HTTP version MUST be at
        // least 1.1." Item 3: the Request-URI is the resource name (/path?query).
        var head = HTTPHeadWriter(startLine: "GET \(try requestTarget(url.resource)) HTTP/1.1")

        // Item 4: "The request MUST contain a |Host| header field whose value contains /host/ plus
        // optionally ":" followed by /port/ (when not using the default port)."
        if !userHeaders.contains(name: "Host") {
            let host = url.hostHeaderValue
            guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
                throw .invalidHeader("Host")
            }
            head.appendUnchecked(name: "Host", value: host)
        }
        // Item 5: "The request MUST contain an |Upgrade| header field whose value MUST include the
        // "websocket" keyword."
        head.appendUnchecked(name: "Upgrade", value: "websocket")
        // Item 6: "The request MUST contain a |Connection| header field whose value MUST include the
        // "Upgrade" token."
        head.appendUnchecked(name: "Connection", value: "Upgrade")
        // Item 7: the nonce.
        try head.append(name: "Sec-WebSocket-Key", value: key)
        // Item 9: "The request MUST include a header field with the name |Sec-WebSocket-Version|. The
        // value of this header field MUST be 13."
        head.appendUnchecked(name: "Sec-WebSocket-Version", value: "13")
        // Item 8: Origin, when the client has one.
        if let origin = options.origin, !userHeaders.contains(name: "Origin") {
            try head.append(name: "Origin", value: origin)
        }
        // Item 10: "The request MAY include a header field with the name |Sec-WebSocket-Protocol|. If
        // present, this value indicates one or more comma-separated subprotocol the client wishes to
        // speak, ordered by preference. The elements that comprise this value MUST be non-empty strings
        // with characters in the range U+0021 to U+007E not including separator characters".
        if !options.subprotocols.isEmpty {
            guard options.subprotocols.allSatisfy({ HTTPTokens.isToken($0) }) else {
                throw .invalidHeader("Sec-WebSocket-Protocol")
            }
            head.appendUnchecked(name: "Sec-WebSocket-Protocol", value: options.subprotocols.joined(separator: ", "))
        }
        // Item 11: the extensions the client would like to use (RFC 6455 §9.1 grammar).
        if !options.extensions.isEmpty {
            guard options.extensions.allSatisfy({ $0.isWritable }) else { throw .invalidHeader("Sec-WebSocket-Extensions") }
            head.appendUnchecked(name: "Sec-WebSocket-Extensions", value: Connection.ExtensionHeader.headerValue(options.extensions))
        }
        // Item 12: other fields, such as credentials (RFC 7617 Basic, from the URI's userinfo) and
        // cookies (RFC 6265 §5.4: one Cookie field, pairs separated by "; ").
        if url.user != nil, !userHeaders.contains(name: "Authorization") {
            // RFC 7617 §2: a user-id with a colon (`ws://a%3Ab:c@host/`) would reach the server as
            // user "a", password "b:c"; such credentials are refused rather than sent wrong.
            guard let authorization = url.basicAuthorization else { throw .invalidHeader("Authorization") }
            head.appendUnchecked(name: "Authorization", value: authorization)
        }
        if !options.cookies.isEmpty, !userHeaders.contains(name: "Cookie") {
            for cookie in options.cookies {
                // RFC 6265 §4.2.1: `cookie-pair = cookie-name "=" cookie-value`, the name a token; a ";"
                // in the value would inject another cookie.
                guard HTTPTokens.isToken(cookie.name),
                      HTTPHeadWriter.isValidFieldValue(cookie.value),
                      !cookie.value.utf8.contains(UInt8(ascii: ";")) else { throw .invalidHeader("Cookie") }
            }
            head.appendUnchecked(name: "Cookie",
                                 value: options.cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
        }
        for field in userHeaders {
            try head.append(name: field.name, value: field.value)
        }
        return head.finish()
    }

    /// The request target: the resource, `/` when empty. Control characters and spaces cannot be sent
    /// (they would break the request line); other non-ASCII bytes are percent-encoded (RFC 3986 §2.1).
    private static func requestTarget(_ resource: String) throws(Connection.UsageError) -> String {
        guard !resource.isEmpty else { return "/" }
        guard !resource.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .invalidHeader("Request-Target") }
        return String(decoding: PercentEncoding.encode(resource.utf8) { $0 < 0x80 }, as: UTF8.self)
    }

    /// Validates a 101 response head (RFC 6455 §4.1, the client's checks 1-6). Statuses other than 101
    /// are the caller's business (a refusal, read with ``HTTPBodyReader``); given one anyway, this
    /// returns ``Connection/HandshakeError/unexpectedStatus(_:)``.
    static func validate(response: Connection.HTTPResponseHead, key: String,
                         options: Connection.ClientOptions) -> Result<Connection.HandshakeResult, Connection.HandshakeError> {
        validate(response: response, fields: HandshakeFields(response.headers), key: key, options: options)
    }

    /// ``validate(response:key:options:)`` with the fields it reads already gathered from
    /// `response`'s headers (by the head parser, as it read them).
    static func validate(response: Connection.HTTPResponseHead, fields: HandshakeFields, key: String,
                         options: Connection.ClientOptions) -> Result<Connection.HandshakeResult, Connection.HandshakeError> {
        // Check 1: "If the status code received from the server is not 101, the client handles the
        // response per HTTP [RFC2616] procedures."
        guard response.status == 101 else { return .failure(.unexpectedStatus(response.status)) }
        // 101 exists from HTTP/1.1 on (RFC 9110 §15.2: a server MUST NOT send a 1xx to an HTTP/1.0
        // client); the parser has already refused versions other than 1.x.
        guard response.version >= .http1_1 else { return .failure(.unsupportedHTTPVersion) }
        let headers = response.headers

        // Check 2: "If the response lacks an |Upgrade| header field or the |Upgrade| header field
        // contains a value that is not an ASCII case-insensitive match for the value "websocket", the
        // client MUST _Fail the WebSocket Connection_."
        guard fields.upgradesToWebSocket else {
            return .failure(.responseMissingUpgrade)
        }
        // Check 3: "If the response lacks a |Connection| header field or the |Connection| header field
        // doesn't contain a token that is an ASCII case-insensitive match for the value "Upgrade", the
        // client MUST _Fail the WebSocket Connection_."
        guard fields.connectionUpgrades else {
            return .failure(.responseMissingConnectionUpgrade)
        }
        // Check 4: "If the response lacks a |Sec-WebSocket-Accept| header field or the
        // |Sec-WebSocket-Accept| contains a value other than the base64-encoded SHA-1 of the
        // concatenation of the |Sec-WebSocket-Key| (as a string, not base64-decoded) with the string
        // "258EAFA5-E914-47DA-95CA-C5AB0DC85B11" but ignoring any leading and trailing whitespace, the
        // client MUST _Fail the WebSocket Connection_."
        guard fields.acceptCount == 1, let accept = fields.accept,
              HTTPTokens.trimmingOWS(accept[...]) == AcceptKey.accept(forKey: key) else {
            return .failure(.invalidAccept)
        }
        // Check 5: "If the response includes a |Sec-WebSocket-Extensions| header field and this header
        // field indicates the use of an extension that was not present in the client's handshake (the
        // server has indicated an extension not requested by the client), the client MUST _Fail the
        // WebSocket Connection_."
        guard let extensions = Connection.ExtensionHeader.parseList(fields.extensionValues) else {
            return .failure(.invalidExtensionsHeader)
        }
        let unoffered = extensions.first { accepted in
            !options.extensions.contains { $0.name.asciiCaseInsensitiveEquals(accepted.name) }
        }
        if let unoffered { return .failure(.unexpectedExtension(unoffered.name)) }
        // Check 6: "If the response includes a |Sec-WebSocket-Protocol| header field and this header field
        // indicates the use of a subprotocol that was not present in the client's handshake (the server
        // has indicated a subprotocol not requested by the client), the client MUST _Fail the WebSocket
        // Connection_." RFC 6455 §4.2.2 has the server send one value, so a list or a repeated field
        // fails too. Subprotocol names are compared exactly as offered.
        let protocols = fields.protocolValues
        var subprotocol: String?
        if !protocols.isEmpty {
            let chosen = String(HTTPTokens.trimmingOWS(protocols.joined(separator: ", ")[...]))
            guard protocols.count == 1, HTTPTokens.isToken(chosen), options.subprotocols.contains(chosen) else {
                return .failure(.unexpectedSubprotocol(chosen))
            }
            subprotocol = chosen
        }
        return .success(Connection.HandshakeResult(subprotocol: subprotocol, extensions: extensions, headers: headers,
                                        resource: options.url.resource))
    }
}
