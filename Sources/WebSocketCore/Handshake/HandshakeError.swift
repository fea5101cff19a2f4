// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Why an opening handshake is invalid, for either role. A server answers each with ``httpStatus``.
    public struct HandshakeError: Error, Sendable, Hashable {
        // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
        // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
        // `catch HandshakeError.x`), and a property per case reads what it carries.
        enum Base: Sendable, Hashable {
            // HTTP syntax and limits (both roles).
            /// The request line is not `METHOD SP target SP HTTP/x.y`.
            case malformedRequestLine
            /// The status line is not `HTTP/x.y SP 3DIGIT SP reason`.
            case malformedStatusLine
            /// A header line is not `name: value` with a token name, or holds forbidden characters.
            case malformedHeader
            /// A header line starts with whitespace (obsolete line folding, rejected per RFC 9112 §5.2).
            case obsoleteLineFolding
            /// The request line is longer than ``Connection/Limits/maxRequestLineLength``.
            case requestLineTooLong
            /// The head is larger than ``Connection/Limits/maxHeaderBytes``.
            case headTooLarge
            /// More header fields than ``Connection/Limits/maxHeaderCount``.
            case tooManyHeaders
            /// Not HTTP/1.1 or later.
            case unsupportedHTTPVersion

            // Request checks (server, RFC 6455 §4.2.1).
            /// The method is not GET.
            case methodNotAllowed(String)
            /// No `Host` header, or more than one.
            case invalidHost
            /// `Upgrade` does not list `websocket`.
            case missingUpgrade
            /// `Connection` does not list `upgrade`.
            case missingConnectionUpgrade
            /// No `Sec-WebSocket-Key`, more than one, or not base64 of exactly 16 bytes.
            case invalidKey
            /// `Sec-WebSocket-Version` is missing or not 13.
            case unsupportedWebSocketVersion(String?)
            /// The request announces a body (`Content-Length` other than 0, or `Transfer-Encoding`).
            case unexpectedBody
            /// `Sec-WebSocket-Protocol` is not a list of tokens.
            case invalidSubprotocolHeader
            /// `Sec-WebSocket-Extensions` does not follow RFC 6455 §9.1.
            case invalidExtensionsHeader

            // Response checks (client, RFC 6455 §4.1).
            /// `Upgrade` in the 101 response is not `websocket`.
            case responseMissingUpgrade
            /// `Connection` in the 101 response does not list `upgrade`.
            case responseMissingConnectionUpgrade
            /// `Sec-WebSocket-Accept` is missing, repeated, or not the value the key calls for.
            case invalidAccept
            /// The server chose a subprotocol the client did not offer, or more than one.
            case unexpectedSubprotocol(String)
            /// The server accepted an extension the client did not offer.
            case unexpectedExtension(String)
            /// The server's response for an offered extension has parameters the extension cannot accept
            /// (RFC 7692 §7: unknown, repeated or out-of-range parameters, or more than one element).
            case invalidExtensionResponse(String)
            /// The response given to the 101 checks has another status (the caller reads refusals as such).
            case unexpectedStatus(Int)
        }

        /// Which error this is, with what it carries.
        let base: Base

        init(_ base: Base) { self.base = base }

        /// The request line is not `METHOD SP target SP HTTP/x.y`.
        public static let malformedRequestLine = HandshakeError(.malformedRequestLine)

        /// The status line is not `HTTP/x.y SP 3DIGIT SP reason`.
        public static let malformedStatusLine = HandshakeError(.malformedStatusLine)

        /// A header line is not `name: value` with a token name, or holds forbidden characters.
        public static let malformedHeader = HandshakeError(.malformedHeader)

        /// A header line starts with whitespace (obsolete line folding, rejected per RFC 9112 §5.2).
        public static let obsoleteLineFolding = HandshakeError(.obsoleteLineFolding)

        /// The request line is longer than ``Connection/Limits/maxRequestLineLength``.
        public static let requestLineTooLong = HandshakeError(.requestLineTooLong)

        /// The head is larger than ``Connection/Limits/maxHeaderBytes``.
        public static let headTooLarge = HandshakeError(.headTooLarge)

        /// More header fields than ``Connection/Limits/maxHeaderCount``.
        public static let tooManyHeaders = HandshakeError(.tooManyHeaders)

        /// Not HTTP/1.1 or later.
        public static let unsupportedHTTPVersion = HandshakeError(.unsupportedHTTPVersion)

        /// The method is not GET.
        public static func methodNotAllowed(_ value: String) -> HandshakeError { HandshakeError(.methodNotAllowed(value)) }

        /// What ``methodNotAllowed(_:)`` carries; `nil` for any other error.
        public var methodNotAllowed: String? {
            if case .methodNotAllowed(let value) = base { return value }
            return nil
        }

        /// No `Host` header, or more than one.
        public static let invalidHost = HandshakeError(.invalidHost)

        /// `Upgrade` does not list `websocket`.
        public static let missingUpgrade = HandshakeError(.missingUpgrade)

        /// `Connection` does not list `upgrade`.
        public static let missingConnectionUpgrade = HandshakeError(.missingConnectionUpgrade)

        /// No `Sec-WebSocket-Key`, more than one, or not base64 of exactly 16 bytes.
        public static let invalidKey = HandshakeError(.invalidKey)

        /// `Sec-WebSocket-Version` is missing or not 13.
        public static func unsupportedWebSocketVersion(_ value: String?) -> HandshakeError { HandshakeError(.unsupportedWebSocketVersion(value)) }

        /// What ``unsupportedWebSocketVersion(_:)`` carries; `nil` for any other error.
        public var unsupportedWebSocketVersion: String?? {
            if case .unsupportedWebSocketVersion(let value) = base { return value }
            return nil
        }

        /// The request announces a body (`Content-Length` other than 0, or `Transfer-Encoding`).
        public static let unexpectedBody = HandshakeError(.unexpectedBody)

        /// `Sec-WebSocket-Protocol` is not a list of tokens.
        public static let invalidSubprotocolHeader = HandshakeError(.invalidSubprotocolHeader)

        /// `Sec-WebSocket-Extensions` does not follow RFC 6455 §9.1.
        public static let invalidExtensionsHeader = HandshakeError(.invalidExtensionsHeader)

        /// `Upgrade` in the 101 response is not `websocket`.
        public static let responseMissingUpgrade = HandshakeError(.responseMissingUpgrade)

        /// `Connection` in the 101 response does not list `upgrade`.
        public static let responseMissingConnectionUpgrade = HandshakeError(.responseMissingConnectionUpgrade)

        /// `Sec-WebSocket-Accept` is missing, repeated, or not the value the key calls for.
        public static let invalidAccept = HandshakeError(.invalidAccept)

        /// The server chose a subprotocol the client did not offer, or more than one.
        public static func unexpectedSubprotocol(_ value: String) -> HandshakeError { HandshakeError(.unexpectedSubprotocol(value)) }

        /// What ``unexpectedSubprotocol(_:)`` carries; `nil` for any other error.
        public var unexpectedSubprotocol: String? {
            if case .unexpectedSubprotocol(let value) = base { return value }
            return nil
        }

        /// The server accepted an extension the client did not offer.
        public static func unexpectedExtension(_ value: String) -> HandshakeError { HandshakeError(.unexpectedExtension(value)) }

        /// What ``unexpectedExtension(_:)`` carries; `nil` for any other error.
        public var unexpectedExtension: String? {
            if case .unexpectedExtension(let value) = base { return value }
            return nil
        }

        /// The server's response for an offered extension has parameters the extension cannot accept
        /// (RFC 7692 §7: unknown, repeated or out-of-range parameters, or more than one element).
        public static func invalidExtensionResponse(_ value: String) -> HandshakeError { HandshakeError(.invalidExtensionResponse(value)) }

        /// What ``invalidExtensionResponse(_:)`` carries; `nil` for any other error.
        public var invalidExtensionResponse: String? {
            if case .invalidExtensionResponse(let value) = base { return value }
            return nil
        }

        /// The response given to the 101 checks has another status (the caller reads refusals as such).
        public static func unexpectedStatus(_ value: Int) -> HandshakeError { HandshakeError(.unexpectedStatus(value)) }

        /// What ``unexpectedStatus(_:)`` carries; `nil` for any other error.
        public var unexpectedStatus: Int? {
            if case .unexpectedStatus(let value) = base { return value }
            return nil
        }

        #if !hasFeature(Embedded)  // no `any Error`, no dynamic casts there
        /// Whether `value` is this HandshakeError: lets `catch HandshakeError.x` match a thrown error.
        public static func ~= (pattern: HandshakeError, value: any Error) -> Bool { (value as? HandshakeError) == pattern }
        #endif

        /// The status a server answers with: 405 for a method other than GET, 414 for a long request line,
        /// 431 for too large a head, 426 (with `Sec-WebSocket-Version: 13`) for another WebSocket version,
        /// 426 (with `Upgrade: websocket`) for a request that is no upgrade at all, 505 for an HTTP version
        /// before 1.1, 400 for everything else.
        public var httpStatus: Int {
            switch base {
            case .methodNotAllowed: return 405
            case .requestLineTooLong: return 414
            case .headTooLarge, .tooManyHeaders: return 431
            case .unsupportedWebSocketVersion, .missingUpgrade: return 426
            case .unsupportedHTTPVersion: return 505
            case .malformedRequestLine, .malformedStatusLine, .malformedHeader, .obsoleteLineFolding, .invalidHost,
                 .missingConnectionUpgrade, .invalidKey, .unexpectedBody, .invalidSubprotocolHeader,
                 .invalidExtensionsHeader, .responseMissingUpgrade, .responseMissingConnectionUpgrade, .invalidAccept,
                 .unexpectedSubprotocol, .unexpectedExtension, .unexpectedStatus, .invalidExtensionResponse:
                return 400
            }
        }

        /// A one-line explanation, sent as the body of a server's error response.
        public var reason: String {
            switch base {
            case .malformedRequestLine: return "malformed request line"
            case .malformedStatusLine: return "malformed status line"
            case .malformedHeader: return "malformed header field"
            case .obsoleteLineFolding: return "obsolete line folding is not accepted"
            case .requestLineTooLong: return "request line too long"
            case .headTooLarge: return "request header fields too large"
            case .tooManyHeaders: return "too many header fields"
            case .unsupportedHTTPVersion: return "HTTP/1.1 or later required"
            case .methodNotAllowed(let m): return "method \(m) not allowed: the opening handshake is a GET"
            case .invalidHost: return "exactly one Host header required"
            case .missingUpgrade: return "Upgrade: websocket required"
            case .missingConnectionUpgrade: return "Connection: Upgrade required"
            case .invalidKey: return "Sec-WebSocket-Key must be base64 of 16 bytes, sent once"
            case .unsupportedWebSocketVersion: return "Sec-WebSocket-Version: 13 required"
            case .unexpectedBody: return "the opening handshake carries no body"
            case .invalidSubprotocolHeader: return "invalid Sec-WebSocket-Protocol"
            case .invalidExtensionsHeader: return "invalid Sec-WebSocket-Extensions"
            case .responseMissingUpgrade: return "response lacks Upgrade: websocket"
            case .responseMissingConnectionUpgrade: return "response lacks Connection: Upgrade"
            case .invalidAccept: return "wrong or missing Sec-WebSocket-Accept"
            case .unexpectedSubprotocol(let p): return "server chose subprotocol \(p), which was not offered"
            case .unexpectedExtension(let e): return "server accepted extension \(e), which was not offered"
            case .invalidExtensionResponse(let why): return "unacceptable extension response: \(why)"
            case .unexpectedStatus(let s): return "expected status 101 Switching Protocols, got \(s)"
            }
        }
    }
}
extension Connection.HandshakeError: CustomStringConvertible {
    /// The ``reason``.
    public var description: String { reason }
}

// A server whose HTTP stack checks the request answers the error itself.
extension Connection.HandshakeError {

    /// (Server) The header fields to answer this error with, for a server that checks requests with
    /// ``Connection/HandshakeRequest/init(validating:)`` and writes its own response (status
    /// ``httpStatus``): `Content-Type` and `Content-Length` of ``responseBody``, `Connection: close`
    /// (`Connection: Upgrade, close` and `Upgrade: websocket` on a 426, as RFC 9110 §15.5.22 and §7.8
    /// require), `Sec-WebSocket-Version: 13` for a version this server does not speak (RFC 6455
    /// §4.4), and `Allow: GET` on a 405 (RFC 9110 §15.5.6). The same fields a server ``Connection``
    /// sends.
    public var responseHeaders: Connection.HTTPHeaders { ServerHandshake.errorHeaders(for: self) }

    /// (Server) The body to answer this error with: ``reason`` and a line feed, plain UTF-8 text.
    public var responseBody: [UInt8] { ServerHandshake.errorBody(for: self) }

    /// (Server) The whole response, as a server ``Connection`` writes it: `HTTP/1.1`, ``httpStatus``
    /// and its reason phrase, ``responseHeaders``, ``responseBody``.
    public var response: [UInt8] { ServerHandshake.errorResponse(for: self) }
}
