// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// A connection whose opening handshake happened elsewhere: an HTTP server (or an HTTP/2 stack, RFC 8441)
// that parsed the upgrade request and sent the response itself hands the agreed subprotocol and
// extensions over, and the connection starts in `.open`. The negotiated extension is installed through
// the same calls as after a handshake, and the phase is entered through the transition's `.openedExternally`, so that from the
// first byte on it behaves as a connection that did the handshake itself.

extension Connection {
    /// Creates a connection that is already open: the opening handshake was done by someone else (your
    /// HTTP server, or an HTTP/2 stack with extended CONNECT, RFC 8441), who read the request, chose
    /// the subprotocol and extensions, and sent the response.
    ///
    /// From then on it behaves exactly as a connection of the same role that did the handshake itself
    /// and agreed the same things: the same frames, masking, limits, keepalive and closing, and for
    /// an extension such as permessage-deflate the same transform, installed through the same calls.
    /// ``state`` is ``Connection/State/open`` at once and you may send right away.
    ///
    /// ```swift
    /// // Your HTTP server answered the upgrade with 101 (see HandshakeRequest.answer(configuration:)).
    /// var ws = try Connection(openedAs: .server, configuration: configuration,
    ///                         subprotocol: answer.subprotocol, extensions: answer.extensions)
    /// ws.receive(bytesYourServerReadAfterTheRequest)   // frames that came with the request, if any
    /// ```
    ///
    /// - No ``Connection/Event/handshakeCompleted(_:)`` is emitted (and no ``Connection/Event/handshakeRequest(_:)``): you
    ///   hold what it would report. The first events are the peer's messages.
    /// - Nothing is queued: the response was yours to send. Frames you send go out after it.
    /// - Timers: the handshake timeout is off; the keepalive ping (``Connection/Timeouts/keepaliveInterval``)
    ///   arms as it does when a handshake completes, one interval after the first time you report with
    ///   ``advanceTime(to:)`` (or after the last one reported, for a copy).
    ///
    /// - Parameters:
    ///   - role: `.server`, or `.client(options)`: a client's options say what it offered (its
    ///     subprotocols and hand-made extension offers; the URL gives the resource). Nothing is sent
    ///     from them.
    ///   - configuration: as for ``init(role:configuration:random:)``. Its ``Connection/Configuration/extensions``
    ///     run the agreed extensions: configure the same extension (with the same client offers) that
    ///     negotiated. An agreed element no configured extension has the name of is kept at header
    ///     level, as with ``accept(subprotocol:extensions:headers:)`` (no payload transform): a
    ///     permessage-deflate agreement needs `PerMessageDeflate` in the configuration.
    ///   - subprotocol: the agreed subprotocol (`Sec-WebSocket-Protocol` of the response), or `nil`.
    ///   - extensions: the agreed extensions, as the response's `Sec-WebSocket-Extensions` listed them
    ///     (``Connection/ExtensionHeader/parseList(_:)`` parses that header), for instance
    ///     `permessage-deflate; server_no_context_takeover; client_max_window_bits=10`.
    ///   - random: the source of masking keys (a client's), as for ``init(role:configuration:random:)``.
    ///     No handshake key is drawn from it: the first draw masks the first frame.
    /// - Throws: ``Connection/UsageError/invalidHeader(_:)`` for a subprotocol that is not a token or an
    ///   extension that cannot be written (and, for a client, options ``init(role:configuration:random:)``
    ///   refuses); for a client, ``Connection/UsageError/subprotocolNotOffered(_:)`` and
    ///   ``Connection/UsageError/extensionNotOffered(_:)`` for what it did not offer (RFC 6455 §4.1, checks 5
    ///   and 6); ``Connection/UsageError/invalidExtensionAgreement(_:)`` when a configured extension cannot
    ///   run its agreed element (permessage-deflate: an unknown or repeated parameter, a window outside
    ///   8...15, `client_max_window_bits` without a value, which only an offer may have; for a client,
    ///   a response that fits none of its offers) or when two transforming extensions are agreed.
    ///
    /// RFC 6455 §4: <https://www.rfc-editor.org/rfc/rfc6455#section-4>;
    /// RFC 8441 §5: <https://www.rfc-editor.org/rfc/rfc8441#section-5>
    public init(openedAs role: Connection.Role, configuration: Connection.Configuration = Connection.Configuration(), subprotocol: String? = nil,
                extensions: [Connection.ExtensionHeader] = [],
                random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) throws(Connection.UsageError) {
        // RFC 6455 §4.2.2 step 5.5: the subprotocol is one token; §9.1: extensions are tokens too.
        if let subprotocol, !HTTPTokens.isToken(subprotocol) { throw .invalidHeader("Sec-WebSocket-Protocol") }
        guard extensions.allSatisfy({ $0.isWritable }) else { throw .invalidHeader("Sec-WebSocket-Extensions") }
        // The initial phase of the role; its handshake output (a client's request) is dropped below.
        try self.init(role: role, configuration: configuration, random: random)
        var agreed: Connection.Transform? = nil
        switch role {
        case .client(let options):
            let offered = Self.offeredOptions(options, configuration)
            // RFC 6455 §4.1, check 6: a subprotocol the client did not offer fails the connection.
            if let subprotocol, !offered.subprotocols.contains(subprotocol) { throw .subprotocolNotOffered(subprotocol) }
            // Check 5: so does an extension it did not offer.
            if let unoffered = extensions.first(where: { agreed in
                !offered.extensions.contains { $0.name.asciiCaseInsensitiveEquals(agreed.name) }
            }) {
                throw .extensionNotOffered(unoffered.name)
            }
            // The handshake's own path from the response's elements to the transform.
            let result = Connection.HandshakeResult(subprotocol: subprotocol, extensions: extensions, headers: [:],
                                         resource: options.url.resource)
            switch negotiatedTransform(for: result, options: offered) {
            case .failure(let error):
                throw .invalidExtensionAgreement(error.invalidExtensionResponse ?? error.reason)
            case .success(let negotiated):
                agreed = negotiated
            }
            // No handshake key was sent: the masking keys start from the caller's generator as given.
            self.random = Self.randomStorage(random)
            outbox.removeAll()
            outboxStart = 0
            outboxEnd = 0
        case .server:
            switch Self.agreedTransform(for: extensions, configuration: configuration) {
            case .failure(let error): throw .invalidExtensionAgreement(error.reason)
            case .success(let transform): agreed = transform
            }
        }
        transition(.openedExternally(transform: agreed))
    }

    /// (Server) Lets each configured extension take up its agreed element, in the response's order: the
    /// server's counterpart of ``negotiatedTransform(for:options:)``.
    static func agreedTransform(for extensions: [Connection.ExtensionHeader],
                                configuration: Connection.Configuration) -> Result<Connection.Transform?, Connection.ExtensionNegotiationError> {
        var chosen: Connection.Transform? = nil
        for element in extensions {
            guard let ext = configuration.configuredExtensions.first(where: { $0.name.asciiCaseInsensitiveEquals(element.name) }) else {
                continue  // listed by the caller at header level, as accept(extensions:) allows
            }
            // RFC 7692 §7.1: one element per extension in a response; and one transform per connection.
            guard chosen == nil else { return .failure(Connection.ExtensionNegotiationError("\(element.name) agreed twice")) }
            switch ext.box.transformForAgreed(element) {
            case .failure(let error): return .failure(error)
            case .success(let transform): chosen = transform
            }
        }
        return .success(chosen)
    }
}
