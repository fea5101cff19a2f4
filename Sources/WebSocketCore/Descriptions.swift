// One-line descriptions of the core's errors and outcomes, fit for a log line or a command-line error
// message: what happened, never a dump of bytes, and only printable characters from the peer.

extension ConnectionError: CustomStringConvertible {
    /// What the connection refused, e.g. "close code 1006 may not be sent".
    public var description: String {
        switch self {
        case .notOpen: return "the connection is not open"
        case .closeAlreadySent: return "the connection is closing: a Close frame was sent"
        case .messageInProgress: return "a fragmented message is being sent"
        case .fragmentKindMismatch: return "a fragment continues a message of the other kind"
        case .controlPayloadTooLarge: return "control frame payloads are limited to 125 bytes"
        case .invalidCloseCode(let code): return "close code \(code) may not be sent"
        case .closeReasonTooLong: return "close reasons are limited to 123 bytes"
        case .invalidUTF8: return "text fragments must be valid UTF-8"
        case .outputBufferFull: return "the output buffer is full"
        case .noPendingHandshakeRequest: return "no handshake request is waiting for a decision"
        case .subprotocolNotOffered(let p): return "subprotocol \(String(reflecting: p)) was not offered"
        case .extensionNotOffered(let e): return "extension \(String(reflecting: e)) was not offered"
        case .invalidHeader(let name): return "invalid header \(String(reflecting: name))"
        case .invalidStatus(let status): return "invalid rejection status \(status)"
        case .preparedMessageFromClient: return "only a server sends prepared messages: a client masks each frame"
        case .preparedFrameTooLarge(let size): return "a prepared frame of \(size) bytes exceeds the fragmentation size"
        case .invalidExtensionAgreement(let reason): return "invalid extension agreement: \(printable(reason))"
        }
    }
}

extension HandshakeFailure: CustomStringConvertible {
    /// Why the opening handshake failed, e.g. "handshake rejected: HTTP 403 Forbidden: no token".
    /// A refusal shows its status, its reason phrase and the first line of its body (printable
    /// characters only, at most 200 bytes of it).
    public var description: String {
        switch self {
        case .rejected(let response):
            var line = "handshake rejected: HTTP \(response.status)"
            let phrase = printable(response.head.reason)
            if !phrase.isEmpty { line += " " + phrase }
            let body = String(decoding: response.body.prefix(200), as: UTF8.self)
            if let first = body.split(whereSeparator: \.isNewline).first {
                let text = printable(String(first))
                if !text.isEmpty { line += ": " + text }
            }
            return line
        case .invalidResponse(let error):
            return "invalid handshake response: \(error.reason)"
        case .invalidRequest(let error):
            return "invalid handshake request: \(error.reason)"
        case .timedOut:
            return "opening handshake timed out"
        case .endOfStream:
            return "connection closed during the opening handshake"
        }
    }
}

extension HandshakeError: CustomStringConvertible {
    /// The ``reason``.
    public var description: String { reason }
}

extension CloseStatus: CustomStringConvertible {
    /// How the connection ended, e.g. `1000 (normal closure)`, `4000 "bye"`,
    /// `1006 (abnormal closure): connection lost without a close frame`.
    public var description: String {
        var text = "\(code)"
        if let name = code.name { text += " (\(name))" }
        // The peer's reason; a failure's own reason is said by the failure's text.
        if failure == nil, !reason.isEmpty { text += " " + String(reflecting: printable(reason)) }
        switch failure {
        case .protocolViolation(let violation)?: text += ": peer violated the protocol: \(violation.reason)"
        case .keepaliveTimeout?: text += ": keepalive timeout"
        case .closeTimeout?: text += ": closing handshake timed out"
        case .unexpectedEndOfStream?: text += ": connection lost without a close frame"
        case .aborted?: text += ": connection aborted"
        case nil: break
        }
        return text
    }
}

extension CloseCode {
    /// The code's name in RFC 6455 §7.4.1 and the IANA registry ("normal closure"), if it has one.
    public var name: String? {
        switch self {
        case .normalClosure: return "normal closure"
        case .goingAway: return "going away"
        case .protocolError: return "protocol error"
        case .unsupportedData: return "unsupported data"
        case .noStatusReceived: return "no status code"
        case .abnormalClosure: return "abnormal closure"
        case .invalidPayloadData: return "invalid payload data"
        case .policyViolation: return "policy violation"
        case .messageTooBig: return "message too big"
        case .mandatoryExtension: return "mandatory extension"
        case .internalError: return "internal error"
        case .serviceRestart: return "service restart"
        case .tryAgainLater: return "try again later"
        case .badGateway: return "bad gateway"
        case .tlsHandshakeFailure: return "TLS handshake failure"
        default: return nil
        }
    }
}

/// `text` without control characters: what a peer sends must not drive a terminal.
func printable(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
}
