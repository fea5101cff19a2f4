extension Connection {
    /// Why an opening handshake failed.
    public enum HandshakeFailure: Error, Sendable, Hashable {
        /// (Client) The server answered with a status other than 101; its status, headers and body.
        case rejected(Connection.HTTPResponse)
        /// (Client) The server's response was malformed or did not complete the handshake correctly.
        case invalidResponse(Connection.HandshakeError)
        /// (Server) The request was not a valid opening handshake; the response with ``Connection/HandshakeError/httpStatus``
        /// has been queued.
        case invalidRequest(Connection.HandshakeError)
        /// The handshake did not finish within ``Connection/Timeouts/handshake``.
        case timedOut
        /// The transport ended before the handshake finished.
        case endOfStream
    }
}
extension Connection.HandshakeFailure: CustomStringConvertible {
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
