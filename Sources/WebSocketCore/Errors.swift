/// A misuse of the connection by its caller: a send or a decision that the current state does not
/// allow. Throwing it leaves the connection unchanged.
public enum ConnectionError: Error, Sendable, Hashable {
    /// Data, pings and closes need an open connection (or a closing one, for pongs and closes).
    case notOpen
    /// A Close frame was already sent: RFC 6455 §5.5.1 forbids any data frame after it.
    case closeAlreadySent
    /// A whole message or a control frame of another kind was sent while a fragmented message sent with
    /// ``Connection/sendFragment(_:kind:isFinal:compress:)`` is unfinished.
    case messageInProgress
    /// A fragment continued a message of the other kind.
    case fragmentKindMismatch
    /// Control frame payloads are limited to 125 bytes (RFC 6455 §5.5).
    case controlPayloadTooLarge
    /// The close code may not be sent (RFC 6455 §7.4: 1005, 1006, 1015 and unassigned ranges).
    case invalidCloseCode(CloseCode)
    /// A close reason longer than 123 bytes of UTF-8 does not fit a control frame.
    case closeReasonTooLong
    /// Text fragments must be valid UTF-8 when joined.
    case invalidUTF8
    /// The output buffer holds more than ``Limits/maxBufferedOutput``: write it out first.
    case outputBufferFull
    /// Only a server accepts or rejects handshakes, and only while a request waits for a decision.
    case noPendingHandshakeRequest
    /// The chosen subprotocol was not among those the client offered.
    case subprotocolNotOffered(String)
    /// The accepted extension was not among those the client offered.
    case extensionNotOffered(String)
    /// A header name or value that cannot be written safely (a CR, LF or other control character).
    case invalidHeader(String)
    /// A rejection status must be an HTTP status from 200 to 599 other than 101.
    case invalidStatus(Int)
    /// Only a server sends a ``PreparedMessage``: a client masks every frame with a fresh key
    /// (RFC 6455 §5.3), so its frames cannot be prepared once for many connections.
    case preparedMessageFromClient
    /// A ``PreparedMessage`` frame holds this many payload bytes, more than the connection's
    /// ``Configuration/fragmentationSize``: prepare it with that size.
    case preparedFrameTooLarge(Int)
    /// (``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``) A configured
    /// extension cannot run the agreed element (invalid or contradictory parameters, one the role
    /// cannot have agreed to, an extension agreed twice): the reason, naming the extension.
    case invalidExtensionAgreement(String)
}

/// A violation of RFC 6455 by the peer, found in its frames. The connection answers it with a Close
/// frame carrying ``closeCode`` and fails (RFC 6455 §7.1.7).
public struct ProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the peer did wrong, with the RFC 6455 section that forbids it.
    public enum Kind: Sendable, Hashable {
        /// RSV1-3 set without an extension that defines them (§5.2).
        case reservedBitsSet
        /// An opcode RFC 6455 does not define (§5.2).
        case unknownOpcode(UInt8)
        /// A control frame with FIN clear (§5.5).
        case fragmentedControlFrame
        /// A control frame payload over 125 bytes (§5.5).
        case controlFrameTooLarge
        /// A continuation frame with no message to continue (§5.4).
        case unexpectedContinuation
        /// A new text or binary frame while a fragmented message is unfinished (§5.4).
        case expectedContinuation
        /// A client frame without a mask (§5.1).
        case unmaskedFrame
        /// A server frame with a mask (§5.1).
        case maskedFrame
        /// A 64-bit length with its most significant bit set (§5.2).
        case invalidLength
        /// A frame larger than ``Limits/maxFrameSize``.
        case frameTooLarge
        /// A message larger than ``Limits/maxMessageSize``.
        case messageTooLarge
        /// A message in more frames than ``Limits/maxFragmentsPerMessage``.
        case tooManyFragments
        /// A text message that is not valid UTF-8 (§8.1).
        case invalidUTF8
        /// A Close frame with a 1-byte payload (§5.5.1).
        case invalidClosePayload
        /// A Close frame with a code that may not be sent (§7.4).
        case invalidCloseCode(UInt16)
        /// A Close frame whose reason is not valid UTF-8 (§5.5.1).
        case invalidCloseReason
        /// A data frame after the peer's Close frame (§5.5.1).
        case dataAfterClose
        /// A transformed message the negotiated extension cannot decode (corrupt compressed data).
        case invalidTransformedData
    }

    /// What the peer did wrong.
    public var kind: Kind

    /// A violation of the given kind; its ``closeCode`` and ``reason`` follow from it.
    public init(_ kind: Kind) { self.kind = kind }

    /// The code the connection sends for this violation: 1007 for bad UTF-8, 1009 for exceeded limits,
    /// 1002 for the rest.
    public var closeCode: CloseCode {
        switch kind {
        case .invalidUTF8, .invalidCloseReason, .invalidTransformedData: return .invalidPayloadData
        case .frameTooLarge, .messageTooLarge, .tooManyFragments: return .messageTooBig
        case .reservedBitsSet, .unknownOpcode, .fragmentedControlFrame, .controlFrameTooLarge,
             .unexpectedContinuation, .expectedContinuation, .unmaskedFrame, .maskedFrame, .invalidLength,
             .invalidClosePayload, .invalidCloseCode, .dataAfterClose:
            return .protocolError
        }
    }

    /// A short reason, sent in the Close frame.
    public var reason: String {
        switch kind {
        case .reservedBitsSet: return "reserved bits set"
        case .unknownOpcode(let op): return "unknown opcode \(op)"
        case .fragmentedControlFrame: return "fragmented control frame"
        case .controlFrameTooLarge: return "control frame too large"
        case .unexpectedContinuation: return "unexpected continuation frame"
        case .expectedContinuation: return "expected continuation frame"
        case .unmaskedFrame: return "client frame not masked"
        case .maskedFrame: return "server frame masked"
        case .invalidLength: return "invalid payload length"
        case .frameTooLarge: return "frame too large"
        case .messageTooLarge: return "message too large"
        case .tooManyFragments: return "too many fragments"
        case .invalidUTF8: return "invalid UTF-8 in text message"
        case .invalidClosePayload: return "close payload of 1 byte"
        case .invalidCloseCode(let code): return "invalid close code \(code)"
        case .invalidCloseReason: return "invalid UTF-8 in close reason"
        case .dataAfterClose: return "data frame after close"
        case .invalidTransformedData: return "undecodable extension data"
        }
    }

    /// The reason and the code, as in `"invalid UTF-8 in text message (1007)"`.
    public var description: String { "\(reason) (\(closeCode))" }
}
