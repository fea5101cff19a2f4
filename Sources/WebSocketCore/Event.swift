/// Something that happened on a connection, pulled with ``Connection/nextEvent()``.
public enum Event: Sendable, Hashable {
    // The handshake cases are indirect: their payloads are large, and the frequent events (messages)
    // should not pay for moving them around.

    /// (Server) A valid opening handshake request arrived. Answer it with
    /// ``Connection/accept(subprotocol:extensions:headers:)`` or ``Connection/reject(status:headers:body:)``;
    /// no frame is read before then.
    indirect case handshakeRequest(HandshakeRequest)
    /// The opening handshake succeeded: the connection is open.
    indirect case handshakeCompleted(HandshakeResult)
    /// The opening handshake failed; the connection is closed and the transport should be closed.
    indirect case handshakeFailed(HandshakeFailure)
    /// A whole text message (``Delivery/messages``).
    case text(String)
    /// A whole binary message (``Delivery/messages``).
    case binary([UInt8])
    /// A piece of a message's payload (``Delivery/fragments``).
    case fragment(Fragment)
    /// A ping, with its payload. Answered automatically unless turned off.
    case ping([UInt8])
    /// A pong, with its payload. Unsolicited pongs are reported too.
    case pong([UInt8])
    /// The peer sent a Close frame. A reply has been queued, unless this answers ours.
    case closeReceived(CloseFrame)
    /// The peer violated the protocol: the Close frame with ``ProtocolViolation/closeCode`` is queued and
    /// a ``closed(_:)`` event follows.
    case protocolViolation(ProtocolViolation)
    /// The WebSocket connection is closed; nothing more can be sent or received.
    indirect case closed(CloseStatus)
}

/// A piece of a data message delivered as it arrives (``Delivery/fragments``).
public struct Fragment: Sendable, Hashable {
    /// The kind of the message this piece belongs to.
    public var kind: MessageKind
    /// The payload bytes of this piece; text pieces may split a UTF-8 sequence (the whole message has
    /// been checked so far).
    public var bytes: [UInt8]
    /// Whether this is the first piece of its message.
    public var isFirst: Bool
    /// Whether this piece ends its message.
    public var isFinal: Bool
    /// A piece as the connection delivers it; for tests and for adapters that re-deliver pieces.
    public init(kind: MessageKind, bytes: [UInt8], isFirst: Bool, isFinal: Bool) {
        self.kind = kind
        self.bytes = bytes
        self.isFirst = isFirst
        self.isFinal = isFinal
    }
}

/// The content of a Close frame.
public struct CloseFrame: Sendable, Hashable {
    /// The status code; ``CloseCode/noStatusReceived`` (1005) for a Close frame without one.
    public var code: CloseCode
    /// The reason text after the code, valid UTF-8 (checked on receipt, RFC 6455 §5.5.1); empty when
    /// the frame carries none. At most 123 bytes, as a control frame's payload is at most 125.
    public var reason: String
    /// A Close frame's content; `reason` defaults to none.
    public init(code: CloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}

/// How a connection ended (RFC 6455 §7.1.5, §7.1.6).
public struct CloseStatus: Sendable, Hashable {
    /// The peer's close code when it sent one; the code we sent when we failed the connection;
    /// ``CloseCode/abnormalClosure`` (1006) when the connection was lost without a Close frame.
    public var code: CloseCode
    /// The reason that came with ``code``: the peer's, the violation's, or empty.
    public var reason: String
    /// `true` when Close frames were exchanged in both directions.
    public var wasClean: Bool
    /// Why the connection ended, when not by a normal closing handshake.
    public var failure: Failure?

    /// Why a connection ended other than by a closing handshake (RFC 6455 §7.1.7, "fail the
    /// WebSocket connection"), or after a timeout.
    public enum Failure: Sendable, Hashable {
        /// The peer violated the protocol; we sent the violation's close code.
        case protocolViolation(ProtocolViolation)
        /// No pong came back within ``Timeouts/keepaliveTimeout``.
        case keepaliveTimeout
        /// The peer did not finish the closing handshake within ``Timeouts/close``.
        case closeTimeout
        /// The transport ended before the closing handshake did.
        case unexpectedEndOfStream
        /// The caller aborted the connection (``Connection/abort()``).
        case aborted
    }

    /// A status as the connection reports it; for tests and for adapters that report a status of
    /// their own (a transport error, say).
    public init(code: CloseCode, reason: String, wasClean: Bool, failure: Failure? = nil) {
        self.code = code
        self.reason = reason
        self.wasClean = wasClean
        self.failure = failure
    }
}

/// Why an opening handshake failed.
public enum HandshakeFailure: Error, Sendable, Hashable {
    /// (Client) The server answered with a status other than 101; its status, headers and body.
    case rejected(HTTPResponse)
    /// (Client) The server's response was malformed or did not complete the handshake correctly.
    case invalidResponse(HandshakeError)
    /// (Server) The request was not a valid opening handshake; the response with ``HandshakeError/httpStatus``
    /// has been queued.
    case invalidRequest(HandshakeError)
    /// The handshake did not finish within ``Timeouts/handshake``.
    case timedOut
    /// The transport ended before the handshake finished.
    case endOfStream
}
