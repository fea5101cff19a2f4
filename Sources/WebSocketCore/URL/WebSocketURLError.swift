// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why a string is not a usable `ws://` or `wss://` URI (RFC 6455 §3, with the syntax of RFC 3986).
///
/// The cases about the user info carry no text, so that logging an error never shows a password.
public struct WebSocketURLError: Error, Sendable, Hashable, CustomStringConvertible {
    // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
    // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
    // `catch WebSocketURLError.x`), and a property per case reads what it carries.
    enum Base: Sendable, Hashable {
        /// The string does not start with `scheme:` (RFC 3986 §3.1), as in `example.com/chat`.
        case missingScheme
        /// The scheme, lowercased, is not `ws` or `wss`. RFC 6455 §3 defines only these two, so `http` and
        /// `https` are refused rather than mapped to them.
        case unsupportedScheme(String)
        /// The scheme is not followed by `//` and an authority: a WebSocket URI always names its host
        /// (RFC 6455 §3).
        case missingAuthority
        /// The user info holds a character RFC 3986 §3.2.1 does not allow there: whitespace, a control
        /// character, or one of `"<>[\]^`{|}`. Such characters are accepted only percent-encoded.
        case invalidUserInfo
        /// A `%` in the user info or the host is not followed by two hex digits (RFC 3986 §2.1).
        case invalidPercentEncoding
        /// The percent-decoded user info or host is not valid UTF-8 (RFC 3986 §2.5, §3.2.2).
        case invalidUTF8
        /// The authority has no host, as in `ws://`, `ws://:80` or `ws://user@/`.
        case emptyHost
        /// The host, as written, holds a character a registered name may not hold (RFC 3986 §3.2.2: letters,
        /// digits, `-._~`, sub-delims and percent-escapes), an escape for whitespace or a control character,
        /// a colon outside brackets other than the one before the port (an IPv6 address needs brackets),
        /// or something other than `:port` after `]`.
        case invalidHost(String)
        /// The host, as written, ends in a number, so resolvers would read it as an IPv4 address, but it is
        /// not a dotted quad of decimal octets 0-255 without leading zeros (RFC 3986 §3.2.2 `IPv4address`).
        case invalidIPv4Address(String)
        /// The text between the brackets is not an IPv6 address (RFC 4291 §2.2, RFC 3986 §3.2.2), optionally
        /// followed by a zone ID written `%25zone` (RFC 6874 §2).
        case invalidIPv6Address(String)
        /// A `[` opens an IPv6 literal that no `]` closes.
        case unclosedIPv6Literal
        /// The port, as written, holds something other than decimal digits (RFC 3986 §3.2.3).
        case invalidPort(String)
        /// The port, as written, is 0 or above 65535.
        case portOutOfRange(String)
        /// The URI has a fragment: RFC 6455 §3 forbids them, and a `#` in the resource must be sent as `%23`.
        case fragmentNotAllowed
    }

    /// Which error this is, with what it carries.
    let base: Base

    init(_ base: Base) { self.base = base }

    /// The string does not start with `scheme:` (RFC 3986 §3.1), as in `example.com/chat`.
    public static let missingScheme = WebSocketURLError(.missingScheme)

    /// The scheme, lowercased, is not `ws` or `wss`. RFC 6455 §3 defines only these two, so `http` and
    /// `https` are refused rather than mapped to them.
    public static func unsupportedScheme(_ value: String) -> WebSocketURLError { WebSocketURLError(.unsupportedScheme(value)) }

    /// What ``unsupportedScheme(_:)`` carries; `nil` for any other error.
    public var unsupportedScheme: String? {
        if case .unsupportedScheme(let value) = base { return value }
        return nil
    }

    /// The scheme is not followed by `//` and an authority: a WebSocket URI always names its host
    /// (RFC 6455 §3).
    public static let missingAuthority = WebSocketURLError(.missingAuthority)

    /// The user info holds a character RFC 3986 §3.2.1 does not allow there: whitespace, a control
    /// character, or one of `"<>[\]^`{|}`. Such characters are accepted only percent-encoded.
    public static let invalidUserInfo = WebSocketURLError(.invalidUserInfo)

    /// A `%` in the user info or the host is not followed by two hex digits (RFC 3986 §2.1).
    public static let invalidPercentEncoding = WebSocketURLError(.invalidPercentEncoding)

    /// The percent-decoded user info or host is not valid UTF-8 (RFC 3986 §2.5, §3.2.2).
    public static let invalidUTF8 = WebSocketURLError(.invalidUTF8)

    /// The authority has no host, as in `ws://`, `ws://:80` or `ws://user@/`.
    public static let emptyHost = WebSocketURLError(.emptyHost)

    /// The host, as written, holds a character a registered name may not hold (RFC 3986 §3.2.2: letters,
    /// digits, `-._~`, sub-delims and percent-escapes), an escape for whitespace or a control character,
    /// a colon outside brackets other than the one before the port (an IPv6 address needs brackets),
    /// or something other than `:port` after `]`.
    public static func invalidHost(_ value: String) -> WebSocketURLError { WebSocketURLError(.invalidHost(value)) }

    /// What ``invalidHost(_:)`` carries; `nil` for any other error.
    public var invalidHost: String? {
        if case .invalidHost(let value) = base { return value }
        return nil
    }

    /// The host, as written, ends in a number, so resolvers would read it as an IPv4 address, but it is
    /// not a dotted quad of decimal octets 0-255 without leading zeros (RFC 3986 §3.2.2 `IPv4address`).
    public static func invalidIPv4Address(_ value: String) -> WebSocketURLError { WebSocketURLError(.invalidIPv4Address(value)) }

    /// What ``invalidIPv4Address(_:)`` carries; `nil` for any other error.
    public var invalidIPv4Address: String? {
        if case .invalidIPv4Address(let value) = base { return value }
        return nil
    }

    /// The text between the brackets is not an IPv6 address (RFC 4291 §2.2, RFC 3986 §3.2.2), optionally
    /// followed by a zone ID written `%25zone` (RFC 6874 §2).
    public static func invalidIPv6Address(_ value: String) -> WebSocketURLError { WebSocketURLError(.invalidIPv6Address(value)) }

    /// What ``invalidIPv6Address(_:)`` carries; `nil` for any other error.
    public var invalidIPv6Address: String? {
        if case .invalidIPv6Address(let value) = base { return value }
        return nil
    }

    /// A `[` opens an IPv6 literal that no `]` closes.
    public static let unclosedIPv6Literal = WebSocketURLError(.unclosedIPv6Literal)

    /// The port, as written, holds something other than decimal digits (RFC 3986 §3.2.3).
    public static func invalidPort(_ value: String) -> WebSocketURLError { WebSocketURLError(.invalidPort(value)) }

    /// What ``invalidPort(_:)`` carries; `nil` for any other error.
    public var invalidPort: String? {
        if case .invalidPort(let value) = base { return value }
        return nil
    }

    /// The port, as written, is 0 or above 65535.
    public static func portOutOfRange(_ value: String) -> WebSocketURLError { WebSocketURLError(.portOutOfRange(value)) }

    /// What ``portOutOfRange(_:)`` carries; `nil` for any other error.
    public var portOutOfRange: String? {
        if case .portOutOfRange(let value) = base { return value }
        return nil
    }

    /// The URI has a fragment: RFC 6455 §3 forbids them, and a `#` in the resource must be sent as `%23`.
    public static let fragmentNotAllowed = WebSocketURLError(.fragmentNotAllowed)

    #if !hasFeature(Embedded)  // no `any Error`, no dynamic casts there
    /// Whether `value` is this WebSocketURLError: lets `catch WebSocketURLError.x` match a thrown error.
    public static func ~= (pattern: WebSocketURLError, value: any Error) -> Bool { (value as? WebSocketURLError) == pattern }
    #endif

    /// A one-line explanation. Texts from the URI are quoted with escapes, so control characters in
    /// them cannot forge log lines.
    public var description: String {
        switch base {
        case .missingScheme: return "missing scheme: expected ws:// or wss://"
        case .unsupportedScheme(let s): return "unsupported scheme \(quoted(s)): expected ws or wss"
        case .missingAuthority: return "missing // and host after the scheme"
        case .invalidUserInfo: return "invalid character in the user info"
        case .invalidPercentEncoding: return "% not followed by two hex digits"
        case .invalidUTF8: return "percent-decoded text is not valid UTF-8"
        case .emptyHost: return "empty host"
        case .invalidHost(let h): return "invalid host \(quoted(h))"
        case .invalidIPv4Address(let h): return "invalid IPv4 address \(quoted(h))"
        case .invalidIPv6Address(let h): return "invalid IPv6 address \(quoted(h))"
        case .unclosedIPv6Literal: return "IPv6 address without its closing ]"
        case .invalidPort(let p): return "invalid port \(quoted(p))"
        case .portOutOfRange(let p): return "port \(quoted(p)) is not in 1...65535"
        case .fragmentNotAllowed: return "WebSocket URIs may not have a fragment (#)"
        }
    }
}
