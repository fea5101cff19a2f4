import WebSocketCore

/// Why a ``BlockingWebSocket`` or a ``BlockingWebSocketServer`` call failed. Each case has a one-line
/// ``description`` fit for a command-line error message.
///
/// The end of a connection is not an error: ``BlockingWebSocket/receive()`` returns `nil` and
/// ``BlockingWebSocket/closeStatus`` says how it ended (1006 when the transport was lost).
public enum BlockingWebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What ran out of time.
    public enum Timeout: Sendable, Hashable {
        /// No address accepted the TCP connection within ``SocketOptions/connectTimeout``.
        case connect
        /// No message arrived within the receive timeout. Not fatal: call `receive` again.
        case receive
        /// The peer accepted no byte for ``SocketOptions/writeTimeout``. Fatal: a frame may be half
        /// written, so the connection is closed (1006).
        case write
    }

    /// The URL is not a `ws://` or `ws+unix://` URL; the reason.
    case invalidURL(String)
    /// `wss://` needs TLS, which this module does not provide.
    case tlsNotSupported
    /// The host name could not be resolved; the resolver's message.
    case addressResolutionFailed(host: String, reason: String)
    /// No address accepted the connection: the last address tried and its error (connection
    /// refused, host or network unreachable, no such socket file…).
    case connectFailed(SocketAddress, Errno)
    /// A server could not bind or listen on the address.
    case bindFailed(SocketAddress, Errno)
    /// A wait ran out.
    case timedOut(Timeout)
    /// The opening handshake failed: the server refused it (``HandshakeFailure/rejected(_:)`` carries
    /// the status, headers and body), answered invalidly, did not answer within
    /// ``Timeouts/handshake``, or closed the connection.
    case handshakeFailed(HandshakeFailure)
    /// A system call on the socket failed (the connection was reset, say).
    case transport(Errno)
    /// The connection refused the call in its current state: sending after a close, a close code that
    /// may not be sent, a control payload over 125 bytes…
    case connection(ConnectionError)
    /// An argument this module cannot use (a Unix socket path too long, a second `serve`).
    case invalidArgument(String)

    /// A one-line explanation, e.g. "cannot connect to 127.0.0.1:9001: Connection refused".
    public var description: String {
        switch self {
        case .invalidURL(let reason):
            return "invalid URL: \(reason)"
        case .tlsNotSupported:
            return "wss:// needs TLS, which WebSocketPOSIX does not provide: use ws:// or a TLS-terminating proxy"
        case .addressResolutionFailed(let host, let reason):
            return "cannot resolve \(String(reflecting: host)): \(reason)"
        case .connectFailed(let address, let errno):
            return "cannot connect to \(address): \(errno)"
        case .bindFailed(let address, let errno):
            return "cannot listen on \(address): \(errno)"
        case .timedOut(.connect):
            return "timed out connecting"
        case .timedOut(.receive):
            return "timed out waiting for a message"
        case .timedOut(.write):
            return "timed out writing: the peer stopped reading"
        case .handshakeFailed(let failure):
            return Self.describe(failure)
        case .transport(let errno):
            return "connection failed: \(errno)"
        case .connection(let error):
            return Self.describe(error)
        case .invalidArgument(let reason):
            return reason
        }
    }

    private static func describe(_ failure: HandshakeFailure) -> String {
        switch failure {
        case .rejected(let response):
            var line = "handshake rejected: HTTP \(response.status) \(response.head.reason)"
            let body = String(decoding: response.body.prefix(200), as: UTF8.self)
            if let first = body.split(whereSeparator: \.isNewline).first, !first.isEmpty {
                // Only printable characters from the peer reach a terminal.
                line += ": " + String(first.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
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

    private static func describe(_ error: ConnectionError) -> String {
        switch error {
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
        }
    }
}
