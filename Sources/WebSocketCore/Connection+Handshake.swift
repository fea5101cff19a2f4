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
            switch ClientHandshake.validate(response: head, key: key, options: options) {
            case .failure(let error):
                return failHandshake(.invalidResponse(error))
            case .success(let result):
                enterOpen()
                return .event(.handshakeCompleted(result))
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
    ///   - extensions: the extensions in use, each one the client offered (RFC 6455 §9.1).
    ///   - headers: more headers for the response (cookies, for instance).
    /// - Throws: ``ConnectionError/noPendingHandshakeRequest`` without a pending request;
    ///   ``ConnectionError/subprotocolNotOffered(_:)``, ``ConnectionError/extensionNotOffered(_:)`` or
    ///   ``ConnectionError/invalidHeader(_:)`` for a choice the RFC does not allow.
    ///
    /// RFC 6455 §4.2.2: <https://www.rfc-editor.org/rfc/rfc6455#section-4.2.2>
    public mutating func accept(subprotocol: String? = nil, extensions: [ExtensionHeader] = [],
                                headers: HTTPHeaders = [:]) throws(ConnectionError) {
        guard case .serverAwaitingDecision(let request) = phase else { throw .noPendingHandshakeRequest }
        let response = try ServerHandshake.acceptResponse(for: request, subprotocol: subprotocol,
                                                          extensions: extensions, headers: headers)
        outbox.append(contentsOf: response)
        enterOpen()
        enqueue(.handshakeCompleted(HandshakeResult(subprotocol: subprotocol, extensions: extensions,
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
