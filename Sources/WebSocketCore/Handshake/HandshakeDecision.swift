// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A server's answer to an opening handshake request (RFC 6455 §4.2.2), as the adapters' `handshake`
    /// callbacks return it, applied with ``Connection/respond(to:)``.
    ///
    /// ```swift
    /// { request in
    ///     guard request.resource == "/chat" else { return .reject(status: 404, body: Array("no such endpoint\n".utf8)) }
    ///     return .accept(subprotocol: request.subprotocols.first { $0 == "chat.v1" })
    /// }
    /// ```
    public enum HandshakeDecision: Sendable, Hashable {
        /// Accept: answer 101 with this subprotocol (one the client offered, or `nil`), these extensions
        /// (each one the client offered) and these extra headers.
        case accept(subprotocol: String? = nil, extensions: [Connection.ExtensionHeader] = [], headers: Connection.HTTPHeaders = [:])
        /// Refuse with this HTTP status (200-599, not 101), headers and body; the client reports them as
        /// ``Connection/HandshakeFailure/rejected(_:)`` and the connection then closes.
        case reject(status: Int, headers: Connection.HTTPHeaders = [:], body: [UInt8] = [])
    }
}

extension Connection {
    /// (Server) Answers the pending handshake request with `decision`. An answer that
    /// ``accept(subprotocol:extensions:headers:)`` or ``reject(status:headers:body:)`` refuses (a
    /// subprotocol the client did not offer, an invalid status or header) is the application's error,
    /// not the client's: the request is then refused with 500, so the handshake still ends.
    ///
    /// - Returns: the status of the answer written: 101 for an accepted upgrade, 426 for a plain
    ///   request accepted (nothing to upgrade), the rejection's status, or 500 for an answer refused.
    /// - Throws: ``Connection/UsageError/noPendingHandshakeRequest`` when no request waits for an answer
    ///   (it timed out meanwhile, say); nothing changes then.
    @discardableResult
    public mutating func respond(to decision: Connection.HandshakeDecision) throws(Connection.UsageError) -> Int {
        guard let request = pendingHandshakeRequest else { throw .noPendingHandshakeRequest }
        do throws(Connection.UsageError) {
            switch decision {
            case .accept(let subprotocol, let extensions, let headers):
                try accept(subprotocol: subprotocol, extensions: extensions, headers: headers)
                return request.kind == .upgrade ? 101 : 426
            case .reject(let status, let headers, let body):
                try reject(status: status, headers: headers, body: body)
                return status
            }
        } catch {
            try reject(status: 500)
            return 500
        }
    }
}
