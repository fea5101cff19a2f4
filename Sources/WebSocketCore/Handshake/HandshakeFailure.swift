// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Why an opening handshake failed.
    public struct HandshakeFailure: Error, Sendable, Hashable {
        // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
        // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
        // `catch HandshakeFailure.x`), and a property per case reads what it carries.
        enum Base: Sendable, Hashable {
            /// (Client) The server answered with a status other than 101; its status, headers and body.
            case rejected(Connection.HTTPResponse)
            /// (Client) The server answered with a redirect (301, 302, 303, 307, 308) to a `ws`/`wss`
            /// URL; following it is the caller's choice.
            case redirected(Connection.Redirect)
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

        /// Which error this is, with what it carries.
        let base: Base

        init(_ base: Base) { self.base = base }

        /// (Client) The server answered with a status other than 101; its status, headers and body.
        public static func rejected(_ value: Connection.HTTPResponse) -> HandshakeFailure { HandshakeFailure(.rejected(value)) }

        /// What ``rejected(_:)`` carries; `nil` for any other error.
        public var rejected: Connection.HTTPResponse? {
            if case .rejected(let value) = base { return value }
            return nil
        }

        /// (Client) The server answered with a redirect (301, 302, 303, 307, 308) to a `ws`/`wss`
        /// URL; following it is the caller's choice. A redirect without a usable `Location` is
        /// ``rejected(_:)``.
        public static func redirected(_ value: Connection.Redirect) -> HandshakeFailure { HandshakeFailure(.redirected(value)) }

        /// What ``redirected(_:)`` carries; `nil` for any other error.
        public var redirected: Connection.Redirect? {
            if case .redirected(let value) = base { return value }
            return nil
        }

        /// The server's refusing response: that of ``rejected(_:)`` or of ``redirected(_:)``; `nil`
        /// for any other error.
        public var response: Connection.HTTPResponse? {
            switch base {
            case .rejected(let response): return response
            case .redirected(let redirect): return redirect.response
            case .invalidResponse, .invalidRequest, .timedOut, .endOfStream: return nil
            }
        }

        /// (Client) The server's response was malformed or did not complete the handshake correctly.
        public static func invalidResponse(_ value: Connection.HandshakeError) -> HandshakeFailure { HandshakeFailure(.invalidResponse(value)) }

        /// What ``invalidResponse(_:)`` carries; `nil` for any other error.
        public var invalidResponse: Connection.HandshakeError? {
            if case .invalidResponse(let value) = base { return value }
            return nil
        }

        /// (Server) The request was not a valid opening handshake; the response with ``Connection/HandshakeError/httpStatus``
        /// has been queued.
        public static func invalidRequest(_ value: Connection.HandshakeError) -> HandshakeFailure { HandshakeFailure(.invalidRequest(value)) }

        /// What ``invalidRequest(_:)`` carries; `nil` for any other error.
        public var invalidRequest: Connection.HandshakeError? {
            if case .invalidRequest(let value) = base { return value }
            return nil
        }

        /// The handshake did not finish within ``Connection/Timeouts/handshake``.
        public static let timedOut = HandshakeFailure(.timedOut)

        /// The transport ended before the handshake finished.
        public static let endOfStream = HandshakeFailure(.endOfStream)

        #if !hasFeature(Embedded)  // no `any Error`, no dynamic casts there
        /// Whether `value` is this HandshakeFailure: lets `catch HandshakeFailure.x` match a thrown error.
        public static func ~= (pattern: HandshakeFailure, value: any Error) -> Bool { (value as? HandshakeFailure) == pattern }
        #endif
    }
}
extension Connection.HandshakeFailure: CustomStringConvertible {
    /// Why the opening handshake failed, e.g. "handshake rejected: HTTP 403 Forbidden: no token".
    /// A refusal shows its status, its reason phrase and the first line of its body (printable
    /// characters only, at most 200 bytes of it).
    public var description: String {
        switch base {
        case .rejected(let response):
            var line = "handshake rejected: HTTP \(response.status)"
            let phrase = printable(response.head.reason)
            if !phrase.isEmpty { line += " " + phrase }
            let body = String(decoding: response.body.prefix(200), as: UTF8.self)
            if let first = body.split(whereSeparator: { $0.isNewline }).first {
                let text = printable(String(first))
                if !text.isEmpty { line += ": " + text }
            }
            return line
        case .redirected(let redirect):
            return "handshake redirected: HTTP \(redirect.status) to \(redirect.target)"
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
