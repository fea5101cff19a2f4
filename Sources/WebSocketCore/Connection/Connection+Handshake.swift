// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Reads the buffered input in the phases that do not read frames: the opening handshake (RFC 6455
    /// §4), and nothing at all while a server decides, after the peer's Close frame (RFC 6455 §5.5.1)
    /// or once closed.
    mutating func stepHandshake() -> Step {
        var consumed = 0
        return stepHandshake(lent: nil, consumed: &consumed)
    }

    /// ``stepHandshake()``, a head read from `lent` (where it lies; `consumed` says how much of it)
    /// rather than from the inbox, when given: ``readHeadInPlace(_:at:)``.
    mutating func stepHandshake(lent: UnsafeRawBufferPointer?, consumed: inout Int) -> Step {
        switch phase {
        case .clientAwaitingResponse(let key, let offered, _):
            let (outcome, fields) = consumeHead(lent: lent, consumed: &consumed)
            switch outcome {
            case .needMore:
                return inputEnded ? progress(.endOfStream) : .needInput
            case .failure(let error):
                return progress(.handshakeFailed(.invalidResponse(error)))
            case .request:
                // A response parser never returns a request; were it to, the status line was not one.
                return progress(.handshakeFailed(.invalidResponse(.malformedStatusLine)))
            case .response(let head):
                return handleResponse(head, fields: fields, key: key, offered: offered.value)
            }

        case .clientReadingRejection:
            let (consumed, isComplete) = inbox.withUnsafeBytes { raw in
                bodyReader.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]))
            }
            inboxStart += consumed
            if isComplete { return progress(.refusalBodyRead) }
            return inputEnded ? progress(.endOfStream) : .needInput

        case .serverAwaitingRequest:
            let (outcome, fields) = consumeHead(lent: lent, consumed: &consumed)
            switch outcome {
            case .needMore:
                return inputEnded ? progress(.endOfStream) : .needInput
            case .failure(let error):
                return rejectInvalidRequest(error)
            case .response:
                // A request parser never returns a response; were it to, the request line was not one.
                return rejectInvalidRequest(.malformedRequestLine)
            case .request(let head):
                switch ServerHandshake.validate(request: head, fields: fields) {
                case .failure(let error):
                    if configuration.answersPlainRequests, let plain = ServerHandshake.plainRequest(head, fields: fields) {
                        return progress(.requestRead(plain))
                    }
                    return rejectInvalidRequest(error)
                case .success(let request):
                    return progress(.requestRead(request))
                }
            }

        case .serverAwaitingDecision, .closingRemotely, .closed:
            return .needInput

        case .open, .closingLocally:
            return stepFrames()
        }
    }

    private mutating func handleResponse(_ head: Connection.HTTPResponseHead, fields: HandshakeFields, key: String,
                                         offered: Connection.ClientOptions) -> Step {
        // The parser that read this head is gone: after an interim response the next head gets a
        // fresh one (see `consumeHead(lent:consumed:)`).
        switch head.status {
        case 101:
            switch ClientHandshake.validate(response: head, fields: fields, key: key, options: offered) {
            case .failure(let error):
                return progress(.handshakeFailed(.invalidResponse(error)))
            case .success(let result):
                switch negotiatedTransform(for: result, options: offered) {
                case .failure(let error):
                    return progress(.handshakeFailed(.invalidResponse(error)))
                case .success(let negotiated):
                    return progress(.handshakeCompleted(result, transform: negotiated))
                }
            }
        case 100..<200:
            // Interim responses (100 Continue, 103 Early Hints) precede the final one (RFC 9110 §15.2).
            return .progress
        default:
            return progress(.refusalRead(head))
        }
    }

    /// (Server) Answers an invalid request with its HTTP error and fails the handshake.
    private mutating func rejectInvalidRequest(_ error: Connection.HandshakeError) -> Step {
        appendOutput(contentsOf: ServerHandshake.errorResponse(for: error))
        return progress(.handshakeFailed(.invalidRequest(error)))
    }

    /// Runs the transition for what a reader found; its events are queued, so the caller steps again.
    mutating func progress(_ input: PhaseInput) -> Step {
        transition(input)
        return .progress
    }

    // MARK: Server decisions

    /// The request waiting for ``accept(subprotocol:extensions:headers:)`` or
    /// ``reject(status:headers:body:)``, if any.
    @inlinable
    public var pendingHandshakeRequest: Connection.HandshakeRequest? { phaseSummary.pendingRequest }

    /// (Server) Accepts the pending opening handshake request: queues the 101 response and opens the
    /// connection. A ``Connection/Event/handshakeCompleted(_:)`` event follows, and frames that arrived with the
    /// request are read from then on.
    ///
    /// - Parameters:
    ///   - subprotocol: one of the subprotocols the client offered, or `nil` for none.
    ///   - extensions: header-level extensions to list in the response, each one the client offered
    ///     (RFC 6455 §9.1). The extensions in ``Connection/Configuration/extensions`` negotiate by themselves and
    ///     are added after these.
    ///   - headers: more headers for the response (cookies, for instance).
    /// - Throws: ``Connection/UsageError/noPendingHandshakeRequest`` without a pending request;
    ///   ``Connection/UsageError/subprotocolNotOffered(_:)``, ``Connection/UsageError/extensionNotOffered(_:)`` or
    ///   ``Connection/UsageError/invalidHeader(_:)`` for a choice the RFC does not allow.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public mutating func accept(subprotocol: String? = nil, extensions: [Connection.ExtensionHeader] = [],
                                headers: Connection.HTTPHeaders = [:]) throws(Connection.UsageError) {
        guard let request = pendingHandshakeRequest else { throw .noPendingHandshakeRequest }
        guard request.kind == .upgrade else {
            // Nothing to upgrade: the answer the core gives such a request without the hook.
            appendOutput(contentsOf: ServerHandshake.errorResponse(for: .missingUpgrade, sendsBody: request.head.method != "HEAD"))
            transition(.handshakeRejected)
            return
        }
        let negotiated = negotiateExtensions(for: request)
        // Joined only when both have some: `+` allocated an array even for two empty ones (about
        // 150 instructions of every accepted connection without extensions).
        let inUse = negotiated.responses.isEmpty ? extensions
            : extensions.isEmpty ? negotiated.responses : extensions + negotiated.responses
        let response = try ServerHandshake.acceptResponse(for: request, subprotocol: subprotocol,
                                                          extensions: inUse, headers: headers)
        appendOutput(contentsOf: response)
        transition(.handshakeCompleted(Connection.HandshakeResult(subprotocol: subprotocol, extensions: inUse,
                                                       headers: request.head.headers, resource: request.resource),
                                       transform: negotiated.transform))
    }

    /// (Server) Refuses the pending opening handshake request with an HTTP response (for example 401,
    /// 403 or 404); the connection closes once it is written. A plain request
    /// (``Connection/HandshakeRequest/Kind/plain``) is answered this way, with any status: the answer to
    /// a `HEAD` carries the `Content-Length` of `body` but not the body (RFC 9110 §9.3.2).
    ///
    /// - Throws: ``Connection/UsageError/noPendingHandshakeRequest``, ``Connection/UsageError/invalidStatus(_:)`` for
    ///   101 or a status outside 200-599, ``Connection/UsageError/invalidHeader(_:)``.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public mutating func reject(status: Int, headers: Connection.HTTPHeaders = [:], body: [UInt8] = []) throws(Connection.UsageError) {
        guard let request = pendingHandshakeRequest else { throw .noPendingHandshakeRequest }
        let response = try ServerHandshake.rejectionResponse(status: status, headers: headers, body: body,
                                                             sendsBody: request.head.method != "HEAD")
        appendOutput(contentsOf: response)
        transition(.handshakeRejected)
    }
}

// MARK: Extension negotiation

extension Connection {
    /// The client's options with the configured extensions' offers added after the caller's own.
    static func offeredOptions(_ options: Connection.ClientOptions, _ configuration: Connection.Configuration) -> Connection.ClientOptions {
        var offered = options
        for ext in configuration.configuredExtensions { offered.extensions += ext.box.makeOffers() }
        return offered
    }

    /// (Client) Lets each configured extension accept its element of the server's response.
    func negotiatedTransform(for result: Connection.HandshakeResult, options: Connection.ClientOptions) -> Result<Connection.Transform?, Connection.HandshakeError> {
        var chosen: Connection.Transform? = nil
        for element in result.extensions {
            guard let ext = configuration.configuredExtensions.first(where: { $0.name.asciiCaseInsensitiveEquals(element.name) }) else {
                continue  // an extension the caller offered by hand: header-level only
            }
            // RFC 7692 §7.1: a response with more than one element for the same extension is invalid.
            guard chosen == nil else { return .failure(.invalidExtensionResponse("\(element.name) accepted twice")) }
            switch ext.box.accept(element, ext.box.makeOffers()) {
            case .failure(let error): return .failure(.invalidExtensionResponse(error.reason))
            case .success(let transform): chosen = transform
            }
        }
        return .success(chosen)
    }

    /// (Server) Lets each configured extension pick among the client's offers of its name.
    func negotiateExtensions(for request: Connection.HandshakeRequest) -> (responses: [Connection.ExtensionHeader], transform: Connection.Transform?) {
        Self.negotiateExtensions(offers: request.extensions, configuration: configuration)
    }

    /// (Server) ``negotiateExtensions(for:)`` without a connection, for ``Connection/HandshakeRequest/answer(configuration:subprotocol:extensions:headers:)``.
    static func negotiateExtensions(offers offered: [Connection.ExtensionHeader],
                                    configuration: Connection.Configuration) -> (responses: [Connection.ExtensionHeader], transform: Connection.Transform?) {
        var responses: [Connection.ExtensionHeader] = []
        var chosen: Connection.Transform? = nil
        for ext in configuration.configuredExtensions where chosen == nil {
            let offers = offered.filter { $0.name.asciiCaseInsensitiveEquals(ext.name) }
            guard !offers.isEmpty, let (response, transform) = ext.box.negotiate(offers) else { continue }
            responses.append(response)
            chosen = transform
        }
        return (responses, chosen)
    }
}
