extension Connection {
    /// Runs the opening handshake over the buffered input (RFC 6455 §4).
    mutating func stepHandshake() -> Step {
        switch phase {
        case .clientAwaitingResponse(let key):
            switch consumeHead() {
            case .needMore:
                return inputEnded ? failHandshake(.endOfStream) : .needInput
            case .failure(let error):
                return failHandshake(.invalidResponse(error))
            case .request:
                preconditionFailure("a response parser returned a request")
            case .response(let head):
                return handleResponse(head, key: key)
            }

        case .clientReadingRejection(let head):
            guard var reader = bodyReader else { preconditionFailure("no body reader") }
            bodyReader = nil
            let (consumed, isComplete) = inbox.withUnsafeBytes { raw in
                reader.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]))
            }
            inboxStart += consumed
            if isComplete || inputEnded {
                if !isComplete { reader.finish() }
                return failHandshake(.rejected(HTTPResponse(head: head, body: reader.body)))
            }
            bodyReader = reader
            return .needInput

        case .serverAwaitingRequest:
            switch consumeHead() {
            case .needMore:
                return inputEnded ? failHandshake(.endOfStream) : .needInput
            case .failure(let error):
                return rejectInvalidRequest(error)
            case .response:
                preconditionFailure("a request parser returned a response")
            case .request(let head):
                headParser = HTTPHeadParser(kind: .request, limits: configuration.limits)
                switch ServerHandshake.validate(request: head) {
                case .failure(let error):
                    return rejectInvalidRequest(error)
                case .success(let request):
                    enterHandshakePhase(.serverAwaitingDecision(request))
                    return .event(.handshakeRequest(request))
                }
            }

        case .serverAwaitingDecision, .open, .closingLocally, .closingRemotely, .closed:
            preconditionFailure("stepHandshake outside the handshake")
        }
    }

    /// Feeds the buffered input to the head parser; it consumes up to the end of the head at most.
    private mutating func consumeHead() -> HTTPHeadParser.Outcome {
        let (consumed, outcome) = inbox.withUnsafeBytes { raw in
            headParser.consume(UnsafeRawBufferPointer(rebasing: raw[inboxStart...]))
        }
        inboxStart += consumed
        return outcome
    }

    private mutating func handleResponse(_ head: HTTPResponseHead, key: String) -> Step {
        guard case .client(let options) = role else { preconditionFailure("response on a server") }
        // A fresh parser releases the stored head (or reads the next one after an interim response).
        headParser = HTTPHeadParser(kind: .response, limits: configuration.limits)
        switch head.status {
        case 101:
            let offered = Self.offeredOptions(options, configuration)
            switch ClientHandshake.validate(response: head, key: key, options: offered) {
            case .failure(let error):
                return failHandshake(.invalidResponse(error))
            case .success(let result):
                switch negotiatedTransform(for: result, options: offered) {
                case .failure(let error):
                    return failHandshake(.invalidResponse(error))
                case .success(let negotiated):
                    transform = negotiated
                    transformBits = negotiated?.reservedBits ?? 0
                    enterOpen()
                    return .event(.handshakeCompleted(result))
                }
            }
        case 100..<200:
            // Interim responses (100 Continue, 103 Early Hints) precede the final one (RFC 9110 §15.2).
            return .progress
        default:
            bodyReader = HTTPBodyReader(head: head, limit: max(0, configuration.limits.maxRejectionBodySize))
            enterHandshakePhase(.clientReadingRejection(head))
            return .progress
        }
    }

    /// (Server) Answers an invalid request with its HTTP error and fails the handshake.
    private mutating func rejectInvalidRequest(_ error: HandshakeError) -> Step {
        outbox.append(contentsOf: ServerHandshake.errorResponse(for: error))
        return failHandshake(.invalidRequest(error))
    }

    mutating func failHandshake(_ failure: HandshakeFailure) -> Step {
        enqueue(.handshakeFailed(failure))
        bodyReader = nil
        enterClosed(CloseStatus(code: .abnormalClosure, reason: "opening handshake failed", wasClean: false))
        return .progress
    }

    // MARK: Server decisions

    /// The request waiting for ``accept(subprotocol:extensions:headers:)`` or
    /// ``reject(status:headers:body:)``, if any.
    public var pendingHandshakeRequest: HandshakeRequest? {
        if case .serverAwaitingDecision(let request) = phase { return request }
        return nil
    }

    /// (Server) Accepts the pending opening handshake request: queues the 101 response and opens the
    /// connection. A ``Event/handshakeCompleted(_:)`` event follows, and frames that arrived with the
    /// request are read from then on.
    ///
    /// - Parameters:
    ///   - subprotocol: one of the subprotocols the client offered, or `nil` for none.
    ///   - extensions: header-level extensions to list in the response, each one the client offered
    ///     (RFC 6455 §9.1). The extensions in ``Configuration/extensions`` negotiate by themselves and
    ///     are added after these.
    ///   - headers: more headers for the response (cookies, for instance).
    /// - Throws: ``ConnectionError/noPendingHandshakeRequest`` without a pending request;
    ///   ``ConnectionError/subprotocolNotOffered(_:)``, ``ConnectionError/extensionNotOffered(_:)`` or
    ///   ``ConnectionError/invalidHeader(_:)`` for a choice the RFC does not allow.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public mutating func accept(subprotocol: String? = nil, extensions: [ExtensionHeader] = [],
                                headers: HTTPHeaders = [:]) throws(ConnectionError) {
        guard case .serverAwaitingDecision(let request) = phase else { throw .noPendingHandshakeRequest }
        let negotiated = negotiateExtensions(for: request)
        let inUse = extensions + negotiated.responses
        let response = try ServerHandshake.acceptResponse(for: request, subprotocol: subprotocol,
                                                          extensions: inUse, headers: headers)
        outbox.append(contentsOf: response)
        transform = negotiated.transform
        transformBits = negotiated.transform?.reservedBits ?? 0
        enterOpen()
        enqueue(.handshakeCompleted(HandshakeResult(subprotocol: subprotocol, extensions: inUse,
                                                    headers: request.head.headers, resource: request.resource)))
    }

    /// (Server) Refuses the pending opening handshake request with an HTTP response (for example 401,
    /// 403 or 404); the connection closes once it is written.
    ///
    /// - Throws: ``ConnectionError/noPendingHandshakeRequest``, ``ConnectionError/invalidStatus(_:)`` for
    ///   101 or a status outside 200-599, ``ConnectionError/invalidHeader(_:)``.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public mutating func reject(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) throws(ConnectionError) {
        guard case .serverAwaitingDecision = phase else { throw .noPendingHandshakeRequest }
        let response = try ServerHandshake.rejectionResponse(status: status, headers: headers, body: body)
        outbox.append(contentsOf: response)
        enterClosed(CloseStatus(code: .abnormalClosure, reason: "opening handshake rejected", wasClean: false))
    }
}

// MARK: Extension negotiation

extension Connection {
    /// The client's options with the configured extensions' offers added after the caller's own.
    static func offeredOptions(_ options: ClientOptions, _ configuration: Configuration) -> ClientOptions {
        var offered = options
        for ext in configuration.extensions { offered.extensions += ext.makeOffers() }
        return offered
    }

    /// (Client) Lets each configured extension accept its element of the server's response.
    func negotiatedTransform(for result: HandshakeResult, options: ClientOptions) -> Result<(any MessageTransform)?, HandshakeError> {
        var chosen: (any MessageTransform)? = nil
        for element in result.extensions {
            guard let ext = configuration.extensions.first(where: { $0.name.asciiCaseInsensitiveEquals(element.name) }) else {
                continue  // an extension the caller offered by hand: header-level only
            }
            // RFC 7692 §7.1: a response with more than one element for the same extension is invalid.
            guard chosen == nil else { return .failure(.invalidExtensionResponse("\(element.name) accepted twice")) }
            switch ext.accept(response: element, offers: ext.makeOffers()) {
            case .failure(let error): return .failure(.invalidExtensionResponse(error.reason))
            case .success(let transform): chosen = transform
            }
        }
        return .success(chosen)
    }

    /// (Server) Lets each configured extension pick among the client's offers of its name.
    func negotiateExtensions(for request: HandshakeRequest) -> (responses: [ExtensionHeader], transform: (any MessageTransform)?) {
        Self.negotiateExtensions(offers: request.extensions, configuration: configuration)
    }

    /// (Server) ``negotiateExtensions(for:)`` without a connection, for ``HandshakeRequest/answer(configuration:subprotocol:extensions:headers:)``.
    static func negotiateExtensions(offers offered: [ExtensionHeader],
                                    configuration: Configuration) -> (responses: [ExtensionHeader], transform: (any MessageTransform)?) {
        var responses: [ExtensionHeader] = []
        var chosen: (any MessageTransform)? = nil
        for ext in configuration.extensions where chosen == nil {
            let offers = offered.filter { $0.name.asciiCaseInsensitiveEquals(ext.name) }
            guard !offers.isEmpty, let (response, transform) = ext.negotiate(offers: offers) else { continue }
            responses.append(response)
            chosen = transform
        }
        return (responses, chosen)
    }
}
