// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A misuse of the connection by its caller: a send or a decision that the current state does not
    /// allow. Throwing it leaves the connection unchanged.
    public struct UsageError: Error, Sendable, Hashable {
        // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
        // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
        // `catch UsageError.x`), and a property per case reads what it carries.
        enum Base: Sendable, Hashable {
            /// Data, pings and closes need an open connection (or a closing one, for pongs and closes).
            case notOpen
            /// A Close frame was already sent: RFC 6455 §5.5.1 forbids any data frame after it.
            case closeAlreadySent
            /// A whole message or a control frame of another kind was sent while a fragmented message sent with
            /// ``Connection/sendFragment(_:kind:isFinal:compress:)`` is unfinished.
            case messageInProgress
            /// A fragment continued a message of the other kind.
            case fragmentKindMismatch
            /// Control frame payloads are limited to 125 bytes (RFC 6455 §5.5).
            case controlPayloadTooLarge
            /// The close code may not be sent (RFC 6455 §7.4: 1005, 1006, 1015 and unassigned ranges).
            case invalidCloseCode(Connection.CloseCode)
            /// A close reason longer than 123 bytes of UTF-8 does not fit a control frame.
            case closeReasonTooLong
            /// Text fragments must be valid UTF-8 when joined.
            case invalidUTF8
            /// The output buffer holds more than ``Connection/Limits/maxBufferedOutput``: write it out first.
            case outputBufferFull
            /// Only a server accepts or rejects handshakes, and only while a request waits for a decision.
            case noPendingHandshakeRequest
            /// The chosen subprotocol was not among those the client offered.
            case subprotocolNotOffered(String)
            /// The accepted extension was not among those the client offered.
            case extensionNotOffered(String)
            /// A header name or value that cannot be written safely (a CR, LF or other control character).
            case invalidHeader(String)
            /// A rejection status must be an HTTP status from 200 to 599 other than 101.
            case invalidStatus(Int)
            /// Only a server sends a ``Connection/PreparedMessage``: a client masks every frame with a fresh key
            /// (RFC 6455 §5.3), so its frames cannot be prepared once for many connections.
            case preparedMessageFromClient
            /// A ``Connection/PreparedMessage`` frame holds this many payload bytes, more than the connection's
            /// ``Connection/Configuration/fragmentationSize``: prepare it with that size.
            case preparedFrameTooLarge(Int)
            /// (``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``) A configured
            /// extension cannot run the agreed element (invalid or contradictory parameters, one the role
            /// cannot have agreed to, an extension agreed twice): the reason, naming the extension.
            case invalidExtensionAgreement(String)
            /// ``Connection/Limits/maxAwaitedPings`` awaited pings are pending or have outcomes not taken:
            /// take them with ``Connection/nextPingOutcome()``, or wait for pongs or timeouts.
            case tooManyAwaitedPings
        }

        /// Which error this is, with what it carries.
        let base: Base

        init(_ base: Base) { self.base = base }

        /// Data, pings and closes need an open connection (or a closing one, for pongs and closes).
        public static let notOpen = UsageError(.notOpen)

        /// A Close frame was already sent: RFC 6455 §5.5.1 forbids any data frame after it.
        public static let closeAlreadySent = UsageError(.closeAlreadySent)

        /// A whole message or a control frame of another kind was sent while a fragmented message sent with
        /// ``Connection/sendFragment(_:kind:isFinal:compress:)`` is unfinished.
        public static let messageInProgress = UsageError(.messageInProgress)

        /// A fragment continued a message of the other kind.
        public static let fragmentKindMismatch = UsageError(.fragmentKindMismatch)

        /// Control frame payloads are limited to 125 bytes (RFC 6455 §5.5).
        public static let controlPayloadTooLarge = UsageError(.controlPayloadTooLarge)

        /// The close code may not be sent (RFC 6455 §7.4: 1005, 1006, 1015 and unassigned ranges).
        public static func invalidCloseCode(_ value: Connection.CloseCode) -> UsageError { UsageError(.invalidCloseCode(value)) }

        /// What ``invalidCloseCode(_:)`` carries; `nil` for any other error.
        public var invalidCloseCode: Connection.CloseCode? {
            if case .invalidCloseCode(let value) = base { return value }
            return nil
        }

        /// A close reason longer than 123 bytes of UTF-8 does not fit a control frame.
        public static let closeReasonTooLong = UsageError(.closeReasonTooLong)

        /// Text fragments must be valid UTF-8 when joined.
        public static let invalidUTF8 = UsageError(.invalidUTF8)

        /// The output buffer holds more than ``Connection/Limits/maxBufferedOutput``: write it out first.
        public static let outputBufferFull = UsageError(.outputBufferFull)

        /// Only a server accepts or rejects handshakes, and only while a request waits for a decision.
        public static let noPendingHandshakeRequest = UsageError(.noPendingHandshakeRequest)

        /// The chosen subprotocol was not among those the client offered.
        public static func subprotocolNotOffered(_ value: String) -> UsageError { UsageError(.subprotocolNotOffered(value)) }

        /// What ``subprotocolNotOffered(_:)`` carries; `nil` for any other error.
        public var subprotocolNotOffered: String? {
            if case .subprotocolNotOffered(let value) = base { return value }
            return nil
        }

        /// The accepted extension was not among those the client offered.
        public static func extensionNotOffered(_ value: String) -> UsageError { UsageError(.extensionNotOffered(value)) }

        /// What ``extensionNotOffered(_:)`` carries; `nil` for any other error.
        public var extensionNotOffered: String? {
            if case .extensionNotOffered(let value) = base { return value }
            return nil
        }

        /// A header name or value that cannot be written safely (a CR, LF or other control character).
        public static func invalidHeader(_ value: String) -> UsageError { UsageError(.invalidHeader(value)) }

        /// What ``invalidHeader(_:)`` carries; `nil` for any other error.
        public var invalidHeader: String? {
            if case .invalidHeader(let value) = base { return value }
            return nil
        }

        /// A rejection status must be an HTTP status from 200 to 599 other than 101.
        public static func invalidStatus(_ value: Int) -> UsageError { UsageError(.invalidStatus(value)) }

        /// What ``invalidStatus(_:)`` carries; `nil` for any other error.
        public var invalidStatus: Int? {
            if case .invalidStatus(let value) = base { return value }
            return nil
        }

        /// Only a server sends a ``Connection/PreparedMessage``: a client masks every frame with a fresh key
        /// (RFC 6455 §5.3), so its frames cannot be prepared once for many connections.
        public static let preparedMessageFromClient = UsageError(.preparedMessageFromClient)

        /// A ``Connection/PreparedMessage`` frame holds this many payload bytes, more than the connection's
        /// ``Connection/Configuration/fragmentationSize``: prepare it with that size.
        public static func preparedFrameTooLarge(_ value: Int) -> UsageError { UsageError(.preparedFrameTooLarge(value)) }

        /// What ``preparedFrameTooLarge(_:)`` carries; `nil` for any other error.
        public var preparedFrameTooLarge: Int? {
            if case .preparedFrameTooLarge(let value) = base { return value }
            return nil
        }

        /// (``Connection/init(openedAs:configuration:subprotocol:extensions:random:)``) A configured
        /// extension cannot run the agreed element (invalid or contradictory parameters, one the role
        /// cannot have agreed to, an extension agreed twice): the reason, naming the extension.
        public static func invalidExtensionAgreement(_ value: String) -> UsageError { UsageError(.invalidExtensionAgreement(value)) }

        /// What ``invalidExtensionAgreement(_:)`` carries; `nil` for any other error.
        public var invalidExtensionAgreement: String? {
            if case .invalidExtensionAgreement(let value) = base { return value }
            return nil
        }

        /// ``Connection/Limits/maxAwaitedPings`` awaited pings are pending or have outcomes not taken:
        /// take them with ``Connection/nextPingOutcome()``, or wait for pongs or timeouts.
        public static let tooManyAwaitedPings = UsageError(.tooManyAwaitedPings)

        #if !hasFeature(Embedded)  // no `any Error`, no dynamic casts there
        /// Whether `value` is this UsageError: lets `catch UsageError.x` match a thrown error.
        public static func ~= (pattern: UsageError, value: any Error) -> Bool { (value as? UsageError) == pattern }
        #endif
    }
}
extension Connection.UsageError: CustomStringConvertible {
    /// What the connection refused, e.g. "close code 1006 may not be sent".
    public var description: String {
        switch base {
        case .notOpen: return "the connection is not open"
        case .closeAlreadySent: return "the connection is closing: a Close frame was sent"
        case .messageInProgress: return "a fragmented message is being sent"
        case .fragmentKindMismatch: return "a fragment continues a message of the other kind"
        case .controlPayloadTooLarge: return "control frame payloads are limited to 125 bytes"
        case .invalidCloseCode(let code): return "close code \(code) may not be sent"
        case .closeReasonTooLong: return "close reasons are limited to 123 bytes"
        case .invalidUTF8: return "text fragments must be valid UTF-8"
        case .outputBufferFull: return "the output buffer is full"
        case .noPendingHandshakeRequest: return "no handshake request is waiting for a decision"
        case .subprotocolNotOffered(let p): return "subprotocol \(quoted(p)) was not offered"
        case .extensionNotOffered(let e): return "extension \(quoted(e)) was not offered"
        case .invalidHeader(let name): return "invalid header \(quoted(name))"
        case .invalidStatus(let status): return "invalid rejection status \(status)"
        case .preparedMessageFromClient: return "only a server sends prepared messages: a client masks each frame"
        case .preparedFrameTooLarge(let size): return "a prepared frame of \(size) bytes exceeds the fragmentation size"
        case .invalidExtensionAgreement(let reason): return "invalid extension agreement: \(printable(reason))"
        case .tooManyAwaitedPings: return "too many awaited pings: their pongs or outcomes are pending"
        }
    }
}
