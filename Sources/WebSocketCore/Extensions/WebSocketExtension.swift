/// An extension that a connection can negotiate in its opening handshake (RFC 6455 §9) and that then
/// transforms message payloads, such as permessage-deflate (RFC 7692).
///
/// The core knows nothing of any particular extension: it sends the client's offers, asks the
/// extension to accept the server's response (client) or to pick among the client's offers (server),
/// and then runs the negotiated ``MessageTransform`` on every message whose first frame carries the
/// transform's reserved bits. Limits and UTF-8 validation stay with the core, applied to the
/// transformed (for example decompressed) bytes as they come out.
///
/// Configure extensions with ``Configuration/extensions``. At most one negotiated extension may define
/// reserved bits; the first that negotiates wins.
public protocol WebSocketExtension: Sendable {
    /// The extension token, as in `Sec-WebSocket-Extensions` (compared case-insensitively).
    var name: String { get }

    /// (Client) The offers to send, in order of preference (RFC 6455 §9.1).
    func makeOffers() -> [ExtensionHeader]

    /// (Client) Checks the server's response element for this extension and returns the agreed
    /// transform, or why the response is unacceptable (the handshake then fails).
    func accept(response: ExtensionHeader, offers: [ExtensionHeader]) -> Result<any MessageTransform, ExtensionNegotiationError>

    /// (Server) Picks the first acceptable offer among `offers` (all of this extension's name, in the
    /// client's order) and returns the response element and the transform; `nil` declines them all.
    func negotiate(offers: [ExtensionHeader]) -> (response: ExtensionHeader, transform: any MessageTransform)?

    /// (Server) The transform for an agreement reached outside the connection: `response` is the
    /// element the server's answer listed (a 101 response, or an RFC 8441 200 over HTTP/2), for a
    /// connection made with ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``.
    /// Returns why the agreement cannot be honoured when it is not one this extension can run.
    ///
    /// The default treats `response` as an offer: it succeeds when ``negotiate(offers:)`` answers
    /// `[response]` with `response` itself (names and parameters compared case-insensitively), which
    /// holds for an extension that echoes what it accepts. An extension whose answer depends on a
    /// policy (permessage-deflate's) implements this from the agreed parameters instead.
    func transform(forAgreed response: ExtensionHeader) -> Result<any MessageTransform, ExtensionNegotiationError>
}

extension WebSocketExtension {
    /// The default agreement check: `response` taken as an offer must be answered with itself (see
    /// the requirement); the transform is the one ``negotiate(offers:)`` returns for it.
    public func transform(forAgreed response: ExtensionHeader) -> Result<any MessageTransform, ExtensionNegotiationError> {
        guard let (answer, transform) = negotiate(offers: [response]),
              ExtensionHeader.headerValue([answer]).asciiCaseInsensitiveEquals(ExtensionHeader.headerValue([response])) else {
            return .failure(ExtensionNegotiationError("\(name) cannot run the agreement \(ExtensionHeader.headerValue([response]))"))
        }
        return .success(transform)
    }
}

/// Why a server's extension response is unacceptable.
public struct ExtensionNegotiationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the response, for the ``HandshakeError`` that fails the handshake (as in
    /// `"server_max_window_bits out of range"`).
    public var reason: String
    /// An error with the given reason.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}

/// The per-connection state of a negotiated extension that transforms payloads in both directions.
///
/// A transform must behave as a value: copying a ``Connection`` copies its transform, and the two
/// copies must then go their own ways (an implementation holding a reference to native state copies
/// it on write).
///
/// Only messages whose first frame carries ``reservedBits`` are transformed; a message without them
/// is plain, in both directions, and leaves the transform's state alone (for permessage-deflate,
/// RFC 7692 §6: an uncompressed message has RSV1 clear). A transform may therefore never require
/// every message to be transformed: ``shouldEncode(messageOfSize:)`` may decline any message, and
/// ``Connection/send(text:compress:)`` with `compress: false` and ``Connection/send(_:)`` (a
/// ``PreparedMessage``, framed once for many connections) send plain frames whatever was
/// negotiated. An extension whose protocol forbids plain messages cannot be built on this protocol.
public protocol MessageTransform: Sendable {
    /// The reserved bits (`0x40` for RSV1, `0x20` RSV2, `0x10` RSV3) that mark a transformed message on
    /// its first frame.
    var reservedBits: UInt8 { get }

    /// Decodes the next piece of a transformed message's payload; `isFinal` marks the end of the
    /// message (the piece may be empty). Decoded bytes go to `output` in chunks of bounded size as they
    /// are produced; when `output` returns `false` (a limit was reached, the text is invalid), decoding
    /// stops at once and the call returns ``TransformResult/stopped``.
    mutating func decode(_ input: UnsafeRawBufferPointer, isFinal: Bool,
                         output: (UnsafeRawBufferPointer) -> Bool) -> TransformResult

    /// Whether an outgoing message of `size` bytes should be transformed (a compressor skips tiny and
    /// empty messages, for instance). Called once per message, before its first ``encode(_:isFinal:)``.
    func shouldEncode(messageOfSize size: Int?) -> Bool

    /// Encodes the next piece of an outgoing message (all of it, or one fragment the caller streams);
    /// `isFinal` marks the end of the message. Returns the bytes to put in the frame.
    mutating func encode(_ input: UnsafeRawBufferPointer, isFinal: Bool) -> [UInt8]
}

/// The outcome of ``MessageTransform/decode(_:isFinal:output:)``.
public enum TransformResult: Sendable, Hashable {
    /// Every input byte was consumed.
    case consumed
    /// The output closure asked to stop.
    case stopped
    /// The input is not valid for the transform (corrupt compressed data, for instance).
    case failed(String)
}
