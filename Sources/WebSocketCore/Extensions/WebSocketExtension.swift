/// An extension that a connection can negotiate in its opening handshake (RFC 6455 §9) and that then
/// transforms message payloads, such as permessage-deflate (RFC 7692).
///
/// The core knows nothing of any particular extension: it sends the client's offers, asks the
/// extension to accept the server's response (client) or to pick among the client's offers (server),
/// and then runs the negotiated ``MessageTransform`` on every message whose first frame carries the
/// transform's reserved bits. Limits and UTF-8 validation stay with the core, applied to the
/// transformed (for example decompressed) bytes as they come out.
///
/// Configure extensions with ``Connection/Configuration/extensions``. At most one negotiated extension may define
/// reserved bits; the first that negotiates wins.
public protocol WebSocketExtension: Sendable {
    /// The extension token, as in `Sec-WebSocket-Extensions` (compared case-insensitively).
    var name: String { get }

    /// (Client) The offers to send, in order of preference (RFC 6455 §9.1).
    func makeOffers() -> [Connection.ExtensionHeader]

    /// (Client) Checks the server's response element for this extension and returns the agreed
    /// transform, or why the response is unacceptable (the handshake then fails).
    func accept(response: Connection.ExtensionHeader, offers: [Connection.ExtensionHeader]) -> Result<any MessageTransform, Connection.ExtensionNegotiationError>

    /// (Server) Picks the first acceptable offer among `offers` (all of this extension's name, in the
    /// client's order) and returns the response element and the transform; `nil` declines them all.
    func negotiate(offers: [Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: any MessageTransform)?

    /// (Server) The transform for an agreement reached outside the connection: `response` is the
    /// element the server's answer listed (a 101 response, or an RFC 8441 200 over HTTP/2), for a
    /// connection made with ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``.
    /// Returns why the agreement cannot be honoured when it is not one this extension can run.
    ///
    /// The default treats `response` as an offer: it succeeds when ``negotiate(offers:)`` answers
    /// `[response]` with `response` itself (names and parameters compared case-insensitively), which
    /// holds for an extension that echoes what it accepts. An extension whose answer depends on a
    /// policy (permessage-deflate's) implements this from the agreed parameters instead.
    func transform(forAgreed response: Connection.ExtensionHeader) -> Result<any MessageTransform, Connection.ExtensionNegotiationError>
}

extension WebSocketExtension {
    /// The default agreement check: `response` taken as an offer must be answered with itself (see
    /// the requirement); the transform is the one ``negotiate(offers:)`` returns for it.
    public func transform(forAgreed response: Connection.ExtensionHeader) -> Result<any MessageTransform, Connection.ExtensionNegotiationError> {
        guard let (answer, transform) = negotiate(offers: [response]),
              Connection.ExtensionHeader.headerValue([answer]).asciiCaseInsensitiveEquals(Connection.ExtensionHeader.headerValue([response])) else {
            return .failure(Connection.ExtensionNegotiationError("\(name) cannot run the agreement \(Connection.ExtensionHeader.headerValue([response]))"))
        }
        return .success(transform)
    }
}
