// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// An extension that a connection can negotiate in its opening handshake (RFC 6455 §9) and that then
/// transforms message payloads, such as permessage-deflate (RFC 7692).
///
/// The core knows nothing of any particular extension: it sends the client's offers, asks the
/// extension to accept the server's response (client) or to pick among the client's offers (server),
/// and then runs the negotiated ``MessageTransform`` on every message whose first frame carries the
/// transform's reserved bits. Limits and UTF-8 validation stay with the core, applied to the
/// transformed (for example decompressed) bytes as they come out.
///
/// Configure extensions with ``Connection/Configuration/extensions`` (or, where `any WebSocketExtension`
/// does not exist, in Embedded Swift, ``Connection/Configuration/add(_:)``). At most one negotiated
/// extension may define reserved bits; the first that negotiates wins.
public protocol WebSocketExtension: Sendable {
    /// The extension token, as in `Sec-WebSocket-Extensions` (compared case-insensitively).
    var name: String { get }

    /// (Client) The offers to send, in order of preference (RFC 6455 §9.1).
    func makeOffers() -> [Connection.ExtensionHeader]

    /// (Client) Checks the server's response element for this extension and returns the agreed
    /// transform (``Connection/Transform/init(_:)`` boxes yours), or why the response is unacceptable
    /// (the handshake then fails).
    func accept(response: Connection.ExtensionHeader, offers: [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>

    /// (Server) Picks the first acceptable offer among `offers` (all of this extension's name, in the
    /// client's order) and returns the response element and the transform; `nil` declines them all.
    func negotiate(offers: [Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)?

    /// (Server) The transform for an agreement reached outside the connection: `response` is the
    /// element the server's answer listed (a 101 response, or an RFC 8441 200 over HTTP/2), for a
    /// connection made with ``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``.
    /// Returns why the agreement cannot be honoured when it is not one this extension can run.
    ///
    /// The default treats `response` as an offer: it succeeds when ``negotiate(offers:)`` answers
    /// `[response]` with `response` itself (names and parameters compared case-insensitively), which
    /// holds for an extension that echoes what it accepts. An extension whose answer depends on a
    /// policy (permessage-deflate's) implements this from the agreed parameters instead.
    func transform(forAgreed response: Connection.ExtensionHeader) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>
}

extension WebSocketExtension {
    /// The default agreement check: `response` taken as an offer must be answered with itself (see
    /// the requirement); the transform is the one ``negotiate(offers:)`` returns for it.
    public func transform(forAgreed response: Connection.ExtensionHeader) -> Result<Connection.Transform, Connection.ExtensionNegotiationError> {
        guard let (answer, transform) = negotiate(offers: [response]),
              Connection.ExtensionHeader.headerValue([answer]).asciiCaseInsensitiveEquals(Connection.ExtensionHeader.headerValue([response])) else {
            return .failure(Connection.ExtensionNegotiationError("\(name) cannot run the agreement \(Connection.ExtensionHeader.headerValue([response]))"))
        }
        return .success(transform)
    }
}

extension Connection {
    /// An extension in a ``Connection/Configuration``: the ``WebSocketExtension`` you configured, in a
    /// class box shared by copies of the configuration (it is immutable). A box instead of
    /// `any WebSocketExtension`, so that the core builds in Embedded Swift.
    public struct ConfiguredExtension: Sendable {
        let box: ExtensionBox
        #if !hasFeature(Embedded)
        /// The extension itself, for ``Connection/Configuration/extensions``.
        let configured: any WebSocketExtension
        #endif

        /// `configured`, boxed.
        public init(_ configured: some WebSocketExtension) {
            box = ExtensionBox.make(configured)
            #if !hasFeature(Embedded)
            self.configured = configured
            #endif
        }

        /// The extension's ``WebSocketExtension/name``.
        public var name: String { box.name }
    }
}

/// A configured extension behind closures. `@unchecked Sendable`: the extension is `Sendable` and
/// immutable here; the closures only call its non-mutating requirements.
final class ExtensionBox: @unchecked Sendable {
    let name: String
    let makeOffers: () -> [Connection.ExtensionHeader]
    let accept: (Connection.ExtensionHeader, [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>
    let negotiate: ([Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)?
    let transformForAgreed: (Connection.ExtensionHeader) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>

    private init(name: String, makeOffers: @escaping () -> [Connection.ExtensionHeader],
                 accept: @escaping (Connection.ExtensionHeader, [Connection.ExtensionHeader]) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>,
                 negotiate: @escaping ([Connection.ExtensionHeader]) -> (response: Connection.ExtensionHeader, transform: Connection.Transform)?,
                 transformForAgreed: @escaping (Connection.ExtensionHeader) -> Result<Connection.Transform, Connection.ExtensionNegotiationError>) {
        self.name = name
        self.makeOffers = makeOffers
        self.accept = accept
        self.negotiate = negotiate
        self.transformForAgreed = transformForAgreed
    }

    /// Generic here, not in an initializer: Embedded Swift rejects a generic initializer on a class.
    static func make<E: WebSocketExtension>(_ configured: E) -> ExtensionBox {
        ExtensionBox(name: configured.name, makeOffers: { configured.makeOffers() },
                     accept: { configured.accept(response: $0, offers: $1) }, negotiate: { configured.negotiate(offers: $0) },
                     transformForAgreed: { configured.transform(forAgreed: $0) })
    }
}
