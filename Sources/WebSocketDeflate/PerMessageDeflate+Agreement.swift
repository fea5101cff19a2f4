// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

// permessage-deflate agreed outside the connection: for a server whose own HTTP server (or HTTP/2 stack)
// answered the upgrade, and then opens a `Connection(openedAs:)` with the agreed element.

extension PerMessageDeflate {
    /// The four permessage-deflate parameters both ends agreed on (RFC 7692 §7.1), each with its value
    /// in effect: a window of 15 bits and context takeover when the response did not say otherwise.
    ///
    /// ```swift
    /// let agreement = PerMessageDeflate.Agreement(serverNoContextTakeover: true, clientMaxWindowBits: 10)
    /// ExtensionHeader.headerValue([agreement.header])
    /// // "permessage-deflate; server_no_context_takeover; client_max_window_bits=10"
    /// ```
    public struct Agreement: Sendable, Hashable {
        /// The server resets its compressor after every message (`server_no_context_takeover`).
        public var serverNoContextTakeover: Bool
        /// The client resets its compressor after every message (`client_no_context_takeover`).
        public var clientNoContextTakeover: Bool
        /// The server's compression window, 8...15 (`server_max_window_bits`). Default 15.
        public var serverMaxWindowBits: Int
        /// The client's compression window, 8...15 (`client_max_window_bits`). Default 15.
        public var clientMaxWindowBits: Int

        /// An agreement with these parameters; the defaults are those of a response that lists
        /// none (context takeover both ways, 15-bit windows). Windows outside 8...15 make an element
        /// that a connection refuses (``WebSocketCore/Connection/UsageError/invalidExtensionAgreement(_:)``).
        public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                    serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits
            self.clientMaxWindowBits = clientMaxWindowBits
        }

        /// Reads a response element (`permessage-deflate; ...`) as RFC 7692 §7.1 defines it: no unknown
        /// or repeated parameter, windows from 8 to 15, `client_max_window_bits` with a value (without
        /// one it belongs to an offer).
        ///
        /// - Throws: why the element is not a valid response.
        ///
        /// RFC 7692 §7.1: <https://www.rfc-editor.org/rfc/rfc7692#section-7.1>
        public init(response: Connection.ExtensionHeader) throws(Connection.ExtensionNegotiationError) {
            guard response.name.lowercased() == "permessage-deflate" else {
                throw Connection.ExtensionNegotiationError("\(response.name) is not permessage-deflate")
            }
            switch DeflateParameters.parse(response, isResponse: true) {
            case .failure(let error):
                throw Connection.ExtensionNegotiationError("permessage-deflate: \(error.reason)")
            case .success(let params):
                self.init(serverNoContextTakeover: params.serverNoContextTakeover,
                          clientNoContextTakeover: params.clientNoContextTakeover,
                          serverMaxWindowBits: params.serverMaxWindowBits ?? 15,
                          clientMaxWindowBits: (params.clientMaxWindowBits ?? nil) ?? 15)
            }
        }

        /// The element stating this agreement, as a response lists it: the parameters that differ from
        /// the defaults, in the RFC's order.
        public var header: Connection.ExtensionHeader {
            var parameters: [Connection.ExtensionHeader.Parameter] = []
            if serverNoContextTakeover { parameters.append(.init(name: "server_no_context_takeover")) }
            if clientNoContextTakeover { parameters.append(.init(name: "client_no_context_takeover")) }
            if serverMaxWindowBits != 15 {
                parameters.append(.init(name: "server_max_window_bits", value: String(serverMaxWindowBits)))
            }
            if clientMaxWindowBits != 15 {
                parameters.append(.init(name: "client_max_window_bits", value: String(clientMaxWindowBits)))
            }
            return Connection.ExtensionHeader(name: "permessage-deflate", parameters: parameters)
        }
    }

    /// (Server) Answers a client's `Sec-WebSocket-Extensions` offers as a server ``WebSocketCore/Connection`` with
    /// this extension would: the first acceptable permessage-deflate offer, following
    /// ``serverPolicy``. Returns the element to send in the response
    /// (``WebSocketCore/Connection/ExtensionHeader/headerValue(_:)`` gives the field value) and the agreement it makes, or
    /// `nil` when no offer is acceptable (answer without the extension then). Elements of other
    /// extensions are skipped.
    ///
    /// Give the response element to ``WebSocketCore/Connection/init(openedAs:configuration:subprotocol:extensions:random:)``
    /// with this extension in the configuration. (The agreement's ``Agreement/clientMaxWindowBits`` is
    /// the client's own limit when its offer set one that the response need not repeat.)
    ///
    /// - Parameter headerValues: the request's `Sec-WebSocket-Extensions` field values, as sent.
    /// - Returns: `nil` as well when the values are not a valid extension list (RFC 6455 §9.1).
    ///
    /// RFC 7692 §5, §7.1: <https://www.rfc-editor.org/rfc/rfc7692#section-7.1>
    public func serverAgreement(forOffers headerValues: [String]) -> (response: Connection.ExtensionHeader, agreement: Agreement)? {
        guard let offered = Connection.ExtensionHeader.parseList(headerValues) else { return nil }
        let offers = offered.filter { $0.name.lowercased() == "permessage-deflate" }
        guard let (response, agreed) = serverAnswer(offers: offers) else { return nil }
        return (response, Agreement(serverNoContextTakeover: agreed.sendNoContextTakeover,
                                    clientNoContextTakeover: agreed.receiveNoContextTakeover,
                                    serverMaxWindowBits: agreed.sendWindowBits,
                                    clientMaxWindowBits: agreed.receiveWindowBits))
    }

    /// (Server) The transform for a response element agreed outside the connection: the server's
    /// compressor takes the `server_*` parameters, its decompressor the `client_*` ones, exactly as
    /// after ``negotiate(offers:)`` answered with that element; the configured ``serverPolicy`` plays
    /// no part (the agreement was made), ``compression`` does.
    ///
    /// One difference can remain: when a client's offer limited its own window
    /// (`client_max_window_bits=N`) and the response did not repeat it, the element does not carry N,
    /// and the decompressor gets a 15-bit window. It decodes every valid message the same; it costs
    /// up to 32 KiB more, and does not catch a client that breaks its own limit.
    public func transform(forAgreed response: Connection.ExtensionHeader) -> Result<Connection.Transform, Connection.ExtensionNegotiationError> {
        let agreement: Agreement
        do {
            agreement = try Agreement(response: response)
        } catch {
            return .failure(error)
        }
        let ours = DeflateTransform.Agreement(sendWindowBits: agreement.serverMaxWindowBits,
                                              sendNoContextTakeover: agreement.serverNoContextTakeover,
                                              receiveWindowBits: agreement.clientMaxWindowBits,
                                              receiveNoContextTakeover: agreement.clientNoContextTakeover)
        return .success(Connection.Transform(DeflateTransform(agreement: ours, compression: compression)))
    }
}
