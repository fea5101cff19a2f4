// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The server's side of the opening handshake (RFC 6455 §4.2): the checks on the client's request,
/// and the responses that accept or refuse it.
enum ServerHandshake {
    /// Checks a request head against RFC 6455 §4.2.1, reporting the most specific problem first: the
    /// method, the HTTP version, the request target, `Upgrade`, `Connection`, `Sec-WebSocket-Version`,
    /// `Sec-WebSocket-Key`, `Host`, then the body and the optional fields.
    static func validate(request head: Connection.HTTPRequestHead) -> Result<Connection.HandshakeRequest, Connection.HandshakeError> {
        validate(request: head, fields: HandshakeFields(head.headers))
    }

    /// ``validate(request:)`` with the fields it reads already gathered from `head`'s headers (by
    /// the head parser, as it read them).
    static func validate(request head: Connection.HTTPRequestHead,
                         fields: HandshakeFields) -> Result<Connection.HandshakeRequest, Connection.HandshakeError> {
        // Item 1: "An HTTP/1.1 or higher GET request, including a "Request-URI"". Methods are
        // case-sensitive (RFC 9110 §9.1).
        guard head.method == "GET" else { return .failure(.methodNotAllowed(head.method)) }
        guard head.version >= .http1_1, head.version.major == 1 else { return .failure(.unsupportedHTTPVersion) }
        guard let resource = resource(fromTarget: head.target) else { return .failure(.malformedRequestLine) }
        // Item 3: "An |Upgrade| header field containing the value "websocket", treated as an ASCII
        // case-insensitive value."
        guard fields.upgradesToWebSocket else { return .failure(.missingUpgrade) }
        // Item 4: "A |Connection| header field that includes the token "Upgrade", treated as an ASCII
        // case-insensitive value."
        guard fields.connectionUpgrades else { return .failure(.missingConnectionUpgrade) }
        // Item 6: "A |Sec-WebSocket-Version| header field, with a value of 13." §4.4: otherwise the
        // server answers 426 with the versions it supports.
        guard fields.versionCount == 1, fields.versionIs13 else {
            let versions = head.headers.values(for: "Sec-WebSocket-Version")
            return .failure(.unsupportedWebSocketVersion(versions.isEmpty ? nil : versions.joined(separator: ", ")))
        }
        // Item 5: "A |Sec-WebSocket-Key| header field with a base64-encoded (see Section 4 of [RFC4648])
        // value that, when decoded, is 16 bytes in length." §11.3.1: it "MUST NOT appear more than once
        // in an HTTP request".
        guard fields.keyCount == 1, fields.key.isValid else {
            return .failure(.invalidKey)
        }
        // Item 2: "A |Host| header field containing the server's authority." RFC 9112 §3.2: "A server
        // MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a
        // Host header field and to any request message that contains more than one Host header field".
        guard fields.hostCount == 1, let host = fields.host, !host.isEmpty else { return .failure(.invalidHost) }
        // A GET upgrade carries no content: bytes after the head are frames. A body announced anyway
        // would be read as frames, so it is refused (RFC 9112 §6.3 framing: any Transfer-Encoding, or a
        // Content-Length other than 0).
        guard !fields.hasTransferEncoding, fields.contentLengthsAreZero else { return .failure(.unexpectedBody) }
        // Item 8 (optional): `Sec-WebSocket-Protocol = 1#token` (§4.3), over every field line.
        let protocolValues = fields.protocolValues
        guard let subprotocols = HTTPTokens.tokenList(protocolValues),
              protocolValues.isEmpty || !subprotocols.isEmpty else {
            return .failure(.invalidSubprotocolHeader)
        }
        // Item 9 (optional): `Sec-WebSocket-Extensions`, RFC 6455 §9.1.
        guard let extensions = Connection.ExtensionHeader.parseList(fields.extensionValues) else {
            return .failure(.invalidExtensionsHeader)
        }
        return .success(Connection.HandshakeRequest(head: head, resource: resource, host: host, origin: fields.origin,
                                                    key: fields.key, subprotocols: subprotocols, extensions: extensions))
    }

    /// A plain HTTP request for ``Connection/Configuration/answersPlainRequests``, or `nil` when `head` is
    /// none: `GET` or `HEAD` (RFC 9110 §9.3.1, §9.3.2), HTTP/1.0 or 1.1, a resource in its target, no
    /// `Upgrade: websocket` (an upgrade attempt, valid or not, takes the handshake's checks), no body
    /// (RFC 9112 §6.3: no `Transfer-Encoding`, no `Content-Length` but 0), and for HTTP/1.1 one
    /// non-empty `Host` (RFC 9112 §3.2).
    static func plainRequest(_ head: Connection.HTTPRequestHead) -> Connection.HandshakeRequest? {
        plainRequest(head, fields: HandshakeFields(head.headers))
    }

    /// ``plainRequest(_:)`` with the fields it reads already gathered from `head`'s headers.
    static func plainRequest(_ head: Connection.HTTPRequestHead, fields: HandshakeFields) -> Connection.HandshakeRequest? {
        guard head.method == "GET" || head.method == "HEAD", head.version.major == 1,
              let resource = resource(fromTarget: head.target) else { return nil }
        guard !fields.upgradesToWebSocket, !fields.hasTransferEncoding, fields.contentLengthsAreZero else { return nil }
        if head.version >= .http1_1 {
            guard fields.hostCount == 1, let host = fields.host, !host.isEmpty else { return nil }
        } else {
            guard fields.hostCount <= 1 else { return nil }
        }
        return Connection.HandshakeRequest(head: head, resource: resource, host: fields.host ?? "", origin: fields.origin,
                                           key: ClientKey(""), subprotocols: [], extensions: [], kind: .plain)
    }

    /// The resource name (path and query) of a request target (RFC 9112 §3.2): an origin-form target as
    /// it is, or the path and query of an absolute-form target (`ws://host/path?q`, `http://...`),
    /// which RFC 9112 §3.2.2 says a server MUST accept. Other forms (`*`, `host:port`) are no
    /// resource: `nil`. A fragment, which no target should carry, is dropped.
    static func resource(fromTarget target: String) -> String? {
        // The usual origin-form ("/chat?room=1") with no fragment is the target itself: no copy.
        // Its bytes are read where they lie: the UTF-8 view's `contains` cost about 30
        // instructions a byte.
        let isOriginForm = target.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.first == UInt8(ascii: "/") && !bytes.contains(UInt8(ascii: "#"))
        }
        if isOriginForm ?? (target.utf8.first == UInt8(ascii: "/") && !target.utf8.contains(UInt8(ascii: "#"))) {
            return target
        }
        let bytes = Array(target.utf8)
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        if bytes.first == UInt8(ascii: "/") {
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
        // absolute-URI = scheme ":" hier-part [ "?" query ], hier-part = "//" authority path-abempty.
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        guard ["ws", "wss", "http", "https"].contains(where: { $0.asciiCaseInsensitiveEquals(scheme) }),
              bytes[(colon + 1)...].starts(with: "//".utf8) else { return nil }
        let authorityStart = colon + 3
        let pathStart = bytes[authorityStart..<end].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }
            ?? end
        guard pathStart > authorityStart else { return nil }
        let rest = bytes[pathStart..<end]
        if rest.first == UInt8(ascii: "/") { return String(decoding: rest, as: UTF8.self) }
        return "/" + String(decoding: rest, as: UTF8.self)
    }

    /// Header fields the 101 response writes itself, which the caller's extra headers may not repeat.
    /// RFC 9110 §8.6: "A server MUST NOT send a Content-Length header field in any response with a
    /// status code of 1xx"; Transfer-Encoding likewise has no place in a response without content.
    static let reservedAcceptHeaderNames = [
        "Upgrade", "Connection", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions",
        "Content-Length", "Transfer-Encoding",
    ]

    /// The start of every 101 response, written out once: the status line, step 5.2's "|Upgrade|
    /// header field with value "websocket"", step 5.3's "|Connection| header field with value
    /// "Upgrade"", and the name of step 5.4's `Sec-WebSocket-Accept`, whose value follows. Written
    /// field by field, these lines cost about 1,300 instructions per handshake.
    static let acceptResponsePrefix: [UInt8] = Array(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ".utf8)

    /// The 101 response (RFC 6455 §4.2.2 step 5): status line, `Upgrade`, `Connection`,
    /// `Sec-WebSocket-Accept`, the chosen subprotocol and extensions if any, then `headers`.
    static func acceptResponse(for request: Connection.HandshakeRequest, subprotocol: String?, extensions: [Connection.ExtensionHeader],
                               headers: Connection.HTTPHeaders) throws(Connection.UsageError) -> [UInt8] {
        // The status line, Upgrade and Connection (steps 5.2 and 5.3), and the accept value's name.
        var head = HTTPHeadWriter(prefix: acceptResponsePrefix, reserving: 256)
        // Step 5.4: "A |Sec-WebSocket-Accept| header field. The value of this header field is constructed
        // by concatenating /key/ ... with the string "258EAFA5-E914-47DA-95CA-C5AB0DC85B11", taking the
        // SHA-1 hash of this concatenated value to obtain a 20-byte value and base64-encoding".
        head.appendValue { AcceptKey.appendAccept(for: request.clientKey, to: &$0) }
        // Step 5.5: "Optionally, a |Sec-WebSocket-Protocol| header field, with a value /subprotocol/". §4.2.2
        // step 4: "The value chosen MUST be derived from the client's handshake, specifically by
        // selecting one of the values from the |Sec-WebSocket-Protocol| field".
        if let subprotocol {
            guard request.subprotocols.contains(subprotocol) else { throw .subprotocolNotOffered(subprotocol) }
            head.appendUnchecked(name: "Sec-WebSocket-Protocol", value: subprotocol)
        }
        // Step 5.6: "Optionally, a |Sec-WebSocket-Extensions| header field". §9.1: "the server ... MUST
        // NOT ... include any extension that was not listed by the client".
        if !extensions.isEmpty {
            for accepted in extensions {
                guard request.extensions.contains(where: { $0.name.asciiCaseInsensitiveEquals(accepted.name) }) else {
                    throw .extensionNotOffered(accepted.name)
                }
                guard accepted.isWritable else { throw .invalidHeader("Sec-WebSocket-Extensions") }
            }
            head.appendUnchecked(name: "Sec-WebSocket-Extensions", value: Connection.ExtensionHeader.headerValue(extensions))
        }
        for field in headers {
            guard !reservedAcceptHeaderNames.contains(where: { $0.asciiCaseInsensitiveEquals(field.name) }) else {
                throw .invalidHeader(field.name)
            }
            try head.append(name: field.name, value: field.value)
        }
        return head.finish()
    }

    /// A response refusing the handshake (RFC 6455 §4.2.2: "the server MAY ... send an appropriate HTTP
    /// error code"), after which the connection closes: the status line with its standard reason
    /// phrase, the caller's `headers`, a computed `Content-Length`, `Connection: close`, and `body`.
    ///
    /// The caller's `Content-Length` and `Connection` fields are replaced by the computed ones; a
    /// `Transfer-Encoding` would contradict the framing and throws. For 204 and 304, which RFC 9110
    /// §15.3.5 and §15.4.5 say end at the header section, no `Content-Length` and no body are sent.
    /// Without `sendsBody` (the answer to a `HEAD`) the body is left out, its length still stated.
    static func rejectionResponse(status: Int, headers: Connection.HTTPHeaders, body: [UInt8],
                                  sendsBody: Bool = true) throws(Connection.UsageError) -> [UInt8] {
        guard (200...599).contains(status) else { throw .invalidStatus(status) }
        var head = HTTPHeadWriter(startLine: "HTTP/1.1 \(status) \(HTTPReasonPhrase.phrase(for: status))")
        for field in headers {
            if field.name.asciiCaseInsensitiveEquals("Content-Length") || field.name.asciiCaseInsensitiveEquals("Connection") {
                continue
            }
            guard !field.name.asciiCaseInsensitiveEquals("Transfer-Encoding") else { throw .invalidHeader(field.name) }
            try head.append(name: field.name, value: field.value)
        }
        let hasContent = status != 204 && status != 304
        if hasContent {
            head.appendUnchecked(name: "Content-Length", value: String(body.count))
        }
        head.appendUnchecked(name: "Connection", value: "close")
        var bytes = head.finish()
        if hasContent, sendsBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The response to an invalid request: `error.httpStatus` with its reason phrase, the fields of
    /// `errorHeaders(for:)`, and `error.reason` as a plain-text body.
    /// Without `sendsBody` (the answer to a `HEAD`, RFC 9110 §9.3.2) the body is left out, its length
    /// still stated.
    static func errorResponse(for error: Connection.HandshakeError, sendsBody: Bool = true) -> [UInt8] {
        let status = error.httpStatus
        var head = HTTPHeadWriter(startLine: "HTTP/1.1 \(status) \(HTTPReasonPhrase.phrase(for: status))")
        let body = errorBody(for: error)
        for field in errorHeaders(for: error, bodyCount: body.count) { head.appendUnchecked(name: field.name, value: field.value) }
        var bytes = head.finish()
        if sendsBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// `error.reason` and a line feed.
    static func errorBody(for error: Connection.HandshakeError) -> [UInt8] {
        Array((error.reason + "\n").utf8)
    }

    /// The header fields of the response to an invalid request. RFC 6455 §4.4: a version mismatch
    /// gets `Sec-WebSocket-Version: 13`, the versions this server speaks. RFC 9110 §15.5.22: "The
    /// server MUST send an Upgrade header field in a 426 response to indicate the required
    /// protocol(s)", and §7.8: "When Upgrade is sent, the sender MUST also send a Connection header
    /// field ... that contains an "upgrade" connection option", hence `Connection: Upgrade, close` on a
    /// 426. RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a 405 response".
    static func errorHeaders(for error: Connection.HandshakeError, bodyCount: Int? = nil) -> Connection.HTTPHeaders {
        let status = error.httpStatus
        var headers = Connection.HTTPHeaders()
        headers.append(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.append(name: "Content-Length", value: String(bodyCount ?? errorBody(for: error).count))
        if status == 426 {
            headers.append(name: "Connection", value: "Upgrade, close")
            headers.append(name: "Upgrade", value: "websocket")
        } else {
            headers.append(name: "Connection", value: "close")
        }
        if case .unsupportedWebSocketVersion = error.base {
            headers.append(name: "Sec-WebSocket-Version", value: "13")
        }
        if status == 405 {
            headers.append(name: "Allow", value: "GET")
        }
        return headers
    }
}
