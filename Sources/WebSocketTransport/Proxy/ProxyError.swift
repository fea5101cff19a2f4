// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// Why a proxy could not be used: a proxy URL or environment variable that does not parse, a tunnel
/// that the proxy refused, a proxy that does not speak the protocol. A tunnel layer that fails reports
/// it as ``WebSocketError/proxy(_:)``.
///
/// The kind of failure is ``code``, a struct with static members rather than an enum, so that new
/// kinds can be added without breaking a `switch` (which therefore needs a `default:`):
///
/// ```swift
/// catch WebSocketError.proxy(let error) where error.code == .authenticationRequired {
///     print("the proxy wants credentials:", error.headers["Proxy-Authenticate"] ?? "")
/// }
/// ```
///
/// Each error has a one-line ``description``; none of them holds a password.
public struct ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of proxy failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case invalidURL, invalidTarget, invalidCredentials, invalidHeader, refused, authenticationRequired
            case authenticationFailed, noAcceptableMethods, unexpectedMethod, malformedReply
            case responseTooLarge, endOfStream, limitExceeded
        }

        fileprivate let value: Value

        /// A proxy URL (or a proxy environment variable) that cannot be used: a scheme other than
        /// `http`, `https`, `socks5` and `socks5h`, a bad host or port, a path, bad percent-encoding.
        public static let invalidURL = Code(value: .invalidURL)
        /// The host or port to tunnel to cannot be sent to the proxy (an empty host, a character that
        /// would end the request line, a SOCKS host name longer than 255 bytes).
        public static let invalidTarget = Code(value: .invalidTarget)
        /// Credentials that cannot be sent: a Basic user-id with a colon or either part with a control
        /// character (RFC 7617 §2), a SOCKS user name or password not 1 to 255 bytes (RFC 1929 §2).
        public static let invalidCredentials = Code(value: .invalidCredentials)
        /// A header field given for the `CONNECT` request whose name is not a token, whose value holds
        /// CR, LF or NUL (RFC 9110 §5.1, §5.5), or that the tunnel writes itself (`Host`, and
        /// `Proxy-Authorization` when it has credentials).
        public static let invalidHeader = Code(value: .invalidHeader)
        /// The proxy refused the tunnel: an HTTP status other than 2xx and 407 (``ProxyError/status``,
        /// ``ProxyError/headers``), or a SOCKS reply other than success (``ProxyError/socksReply``).
        public static let refused = Code(value: .refused)
        /// The HTTP proxy answered 407 (Proxy Authentication Required): no credentials were sent, or
        /// they were wrong. ``ProxyError/headers`` holds its `Proxy-Authenticate` challenge.
        public static let authenticationRequired = Code(value: .authenticationRequired)
        /// The SOCKS5 proxy refused the user name and password (RFC 1929 §2: a status other than 0).
        public static let authenticationFailed = Code(value: .authenticationFailed)
        /// The SOCKS5 proxy accepts none of the methods offered (RFC 1928 §3: `X'FF'`): it wants
        /// credentials that were not given, or a method this library does not implement (GSSAPI).
        public static let noAcceptableMethods = Code(value: .noAcceptableMethods)
        /// The SOCKS5 proxy chose a method that was not offered.
        public static let unexpectedMethod = Code(value: .unexpectedMethod)
        /// The proxy's reply is not the protocol's: not an HTTP status line or header field, a SOCKS
        /// version other than 5 (1 for the authentication reply), an unknown address type.
        public static let malformedReply = Code(value: .malformedReply)
        /// The HTTP proxy's response head exceeds ``ProxyLimits/maxResponseHeadBytes`` or
        /// ``ProxyLimits/maxResponseHeaderCount``.
        public static let responseTooLarge = Code(value: .responseTooLarge)
        /// The stream ended before the proxy's reply was complete.
        public static let endOfStream = Code(value: .endOfStream)
        /// More than ``ProxyLimits/maxBufferedSend`` bytes were sent from above before the tunnel was
        /// up.
        public static let limitExceeded = Code(value: .limitExceeded)

        /// A short name, e.g. `refused`.
        public var description: String {
            switch value {
            case .invalidURL: return "invalidURL"
            case .invalidTarget: return "invalidTarget"
            case .invalidCredentials: return "invalidCredentials"
            case .invalidHeader: return "invalidHeader"
            case .refused: return "refused"
            case .authenticationRequired: return "authenticationRequired"
            case .authenticationFailed: return "authenticationFailed"
            case .noAcceptableMethods: return "noAcceptableMethods"
            case .unexpectedMethod: return "unexpectedMethod"
            case .malformedReply: return "malformedReply"
            case .responseTooLarge: return "responseTooLarge"
            case .endOfStream: return "endOfStream"
            case .limitExceeded: return "limitExceeded"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// Details (the part of the URL that is wrong, the byte that is not the protocol's); may be empty.
    /// Never a password.
    public var reason: String
    /// The HTTP proxy's status code, for ``Code/refused`` and ``Code/authenticationRequired`` from an
    /// HTTP proxy; otherwise `nil`.
    public var status: Int?
    /// The HTTP proxy's response header fields, with ``status``; otherwise empty.
    public var headers: Connection.HTTPHeaders
    /// The SOCKS5 proxy's reply, for ``Code/refused`` from a SOCKS5 proxy; otherwise `nil`.
    public var socksReply: SOCKS5ReplyCode?

    /// An error of the given kind; the other details default to none.
    public init(_ code: Code, reason: String = "", status: Int? = nil, headers: Connection.HTTPHeaders = Connection.HTTPHeaders(),
                socksReply: SOCKS5ReplyCode? = nil) {
        self.code = code
        self.reason = reason
        self.status = status
        self.headers = headers
        self.socksReply = socksReply
    }

    /// One line, e.g. `proxy refused the tunnel: HTTP 403 (Forbidden)`.
    public var description: String {
        let what: String
        switch code.value {
        case .invalidURL: what = "invalid proxy URL"
        case .invalidTarget: what = "cannot tunnel to that host"
        case .invalidCredentials: what = "proxy credentials cannot be sent"
        case .invalidHeader: what = "header field cannot be sent to the proxy"
        case .refused:
            if let status { what = "proxy refused the tunnel: HTTP \(status)" }
            else if let socksReply { what = "SOCKS5 proxy refused the connection: \(socksReply)" }
            else { what = "proxy refused the tunnel" }
        case .authenticationRequired:
            what = "proxy requires authentication (HTTP \(status ?? 407))"
        case .authenticationFailed: what = "SOCKS5 proxy refused the user name and password"
        case .noAcceptableMethods: what = "SOCKS5 proxy accepts none of the authentication methods offered"
        case .unexpectedMethod: what = "SOCKS5 proxy chose an authentication method that was not offered"
        case .malformedReply: what = "the proxy's reply is malformed"
        case .responseTooLarge: what = "the proxy's response head is too large"
        case .endOfStream: what = "the proxy closed the connection before its reply was complete"
        case .limitExceeded: what = "too many bytes sent before the proxy tunnel was up"
        }
        return reason.isEmpty ? what : "\(what) (\(reason))"
    }
}
