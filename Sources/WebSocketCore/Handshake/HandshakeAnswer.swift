// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// The answer to an opening handshake request that your own HTTP server sends: the 101 response's
    /// header fields, and what to hand to ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``
    /// once it is sent.
    ///
    /// Made by ``Connection/HandshakeRequest/answer(configuration:subprotocol:extensions:headers:)`` with the same
    /// checks and the same extension negotiation as ``Connection/accept(subprotocol:extensions:headers:)``,
    /// whose response is ``response`` byte for byte.
    ///
    /// ```swift
    /// let request = try HandshakeRequest(validating: head)            // the head your server parsed
    /// let answer = try request.answer(configuration: configuration,
    ///                                 subprotocol: request.subprotocols.contains("chat") ? "chat" : nil)
    /// try yourServer.respond(status: 101, headers: answer.headers)     // or write answer.response
    /// var ws = try Connection(openedAs: .server, configuration: configuration,
    ///                         subprotocol: answer.subprotocol, extensions: answer.extensions)
    /// ```
    public struct HandshakeAnswer: Sendable, Hashable {
        /// The chosen subprotocol, or `nil`.
        public var subprotocol: String?
        /// The extensions in use, as the response lists them: yours first, then those the configured
        /// extensions negotiated.
        public var extensions: [Connection.ExtensionHeader]
        /// The response's header fields, in order: `Upgrade`, `Connection`, `Sec-WebSocket-Accept`,
        /// `Sec-WebSocket-Protocol` and `Sec-WebSocket-Extensions` when there is something to say, then
        /// your extra headers.
        public var headers: Connection.HTTPHeaders
        /// The whole response, `HTTP/1.1 101 Switching Protocols` and these headers, for a server that
        /// writes bytes.
        public var response: [UInt8]
    }
}

extension Connection.HandshakeRequest {
    /// Checks a request head your HTTP server parsed, as a server ``Connection`` checks the one it reads
    /// (RFC 6455 §4.2.1: method, version, target, `Upgrade`, `Connection`, `Sec-WebSocket-Version: 13`,
    /// `Sec-WebSocket-Key`, `Host`, no body, the `Sec-WebSocket-Protocol` and `Sec-WebSocket-Extensions`
    /// syntax).
    ///
    /// - Throws: the first problem found; answer it with its ``Connection/HandshakeError/httpStatus`` (426 comes
    ///   with `Sec-WebSocket-Version: 13`).
    ///
    /// RFC 6455 §4.2.1: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.1>
    public init(validating head: Connection.HTTPRequestHead) throws(Connection.HandshakeError) {
        switch ServerHandshake.validate(request: head) {
        case .success(let request): self = request
        case .failure(let error): throw error
        }
    }

    /// The `Sec-WebSocket-Accept` value for this request's key.
    ///
    /// RFC 6455 §4.2.2 step 5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public var acceptValue: String { Self.acceptValue(forKey: key) }

    /// The `Sec-WebSocket-Accept` value for a `Sec-WebSocket-Key`: base64(SHA-1(key + the RFC's GUID)),
    /// the key taken as sent (without surrounding whitespace), not decoded.
    ///
    /// RFC 6455 §4.2.2 step 5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public static func acceptValue(forKey key: String) -> String {
        AcceptKey.accept(forKey: String(HTTPTokens.trimmingOWS(key[...])))
    }

    /// Accepts this request as ``Connection/accept(subprotocol:extensions:headers:)`` would, without a
    /// connection: chooses the extensions with `configuration`'s, and builds the 101 response for your
    /// server to send. Pass the answer's ``Connection/HandshakeAnswer/subprotocol`` and
    /// ``Connection/HandshakeAnswer/extensions`` to ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``
    /// with the same configuration.
    ///
    /// - Parameters:
    ///   - configuration: whose ``Connection/Configuration/extensions`` negotiate (permessage-deflate, say).
    ///   - subprotocol: one of ``subprotocols``, or `nil` for none.
    ///   - extensions: header-level extensions to list, each one the client offered, before the
    ///     negotiated ones.
    ///   - headers: more headers for the response.
    /// - Throws: ``Connection/UsageError/subprotocolNotOffered(_:)``, ``Connection/UsageError/extensionNotOffered(_:)``
    ///   or ``Connection/UsageError/invalidHeader(_:)``, as ``Connection/accept(subprotocol:extensions:headers:)``.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public func answer(configuration: Connection.Configuration, subprotocol: String? = nil, extensions: [Connection.ExtensionHeader] = [],
                       headers: Connection.HTTPHeaders = [:]) throws(Connection.UsageError) -> Connection.HandshakeAnswer {
        let negotiated = Connection.negotiateExtensions(offers: self.extensions, configuration: configuration)
        let inUse = extensions + negotiated.responses
        let response = try ServerHandshake.acceptResponse(for: self, subprotocol: subprotocol, extensions: inUse,
                                                          headers: headers)
        var fields: Connection.HTTPHeaders = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": acceptValue]
        if let subprotocol { fields.append(name: "Sec-WebSocket-Protocol", value: subprotocol) }
        if !inUse.isEmpty { fields.append(name: "Sec-WebSocket-Extensions", value: Connection.ExtensionHeader.headerValue(inUse)) }
        for field in headers { fields.append(name: field.name, value: field.value) }
        return Connection.HandshakeAnswer(subprotocol: subprotocol, extensions: inUse, headers: fields, response: response)
    }
}

extension Connection.Configuration {
    /// (Server) The response elements the configured extensions choose for a client's
    /// `Sec-WebSocket-Extensions` offers (parse them with ``Connection/ExtensionHeader/parseList(_:)``), exactly as
    /// a server ``Connection`` chooses them: for an upgrade without `Sec-WebSocket-Key`, such as
    /// RFC 8441's extended CONNECT over HTTP/2. Send them with ``Connection/ExtensionHeader/headerValue(_:)`` and
    /// pass them to ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``.
    ///
    /// RFC 6455 §9.1: <https://www.rfc-editor.org/rfc/rfc6455#section-9.1>
    public func negotiatedExtensions(forOffers offers: [Connection.ExtensionHeader]) -> [Connection.ExtensionHeader] {
        Connection.negotiateExtensions(offers: offers, configuration: self).responses
    }

    /// (Client) The `Sec-WebSocket-Extensions` offers of the configured extensions, in order, as a
    /// client ``Connection`` sends them: for a request your own HTTP stack sends.
    public var extensionOffers: [Connection.ExtensionHeader] { configuredExtensions.flatMap { $0.box.makeOffers() } }
}
