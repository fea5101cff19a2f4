// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why a Redis URL, a reply, a connection's handshake or the connection itself is not what it should
/// be, or why a call cannot be made now.
///
/// The kind is ``code``, a struct with static members (a `switch` over it needs a `default:`), as for
/// ``RESPError``; ``description`` is one line for a log and never holds a password.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case invalidURL, authenticationFailed, authenticationRequired, serverError, unexpectedReply
            case malformedReply, connectFailed, connectionClosed, timedOut, notReady, limitExceeded
        }

        fileprivate let value: Value

        /// A Redis URL that ``RedisEndpoint/init(parsing:)`` does not accept.
        public static let invalidURL = Code(value: .invalidURL)
        /// The server refused the credentials (`WRONGPASS`, or an error reply to `AUTH`).
        public static let authenticationFailed = Code(value: .authenticationFailed)
        /// The server wants credentials and none were given (`NOAUTH`).
        public static let authenticationRequired = Code(value: .authenticationRequired)
        /// The server answered a command with an error reply the handshake cannot go on from.
        public static let serverError = Code(value: .serverError)
        /// A reply or push that has no place where it came: not the reply a command expects, or on a
        /// subscriber connection not a Pub/Sub message or confirmation.
        public static let unexpectedReply = Code(value: .unexpectedReply)
        /// Bytes that are not RESP, or a value over ``RESPDecoder/Limits`` (the reason holds the
        /// ``RESPError``).
        public static let malformedReply = Code(value: .malformedReply)
        /// No connection: the name did not resolve, every address refused, TLS is needed and not
        /// configured, or the TLS handshake failed (an untrusted certificate).
        public static let connectFailed = Code(value: .connectFailed)
        /// The server closed the connection, or it was reset.
        public static let connectionClosed = Code(value: .connectionClosed)
        /// The connect, the handshake or a `PING` took longer than allowed.
        public static let timedOut = Code(value: .timedOut)
        /// A call that needs a ready connection (a publish) while there is none: the connection is
        /// still logging in, cut off, or failed.
        public static let notReady = Code(value: .notReady)
        /// A call that would exceed a limit of ``RedisClient/Limits`` (replies awaited, output queued):
        /// the server does not keep up.
        public static let limitExceeded = Code(value: .limitExceeded)

        /// A short name, e.g. `authenticationFailed`.
        public var description: String {
            switch value {
            case .invalidURL: return "invalidURL"
            case .authenticationFailed: return "authenticationFailed"
            case .authenticationRequired: return "authenticationRequired"
            case .serverError: return "serverError"
            case .unexpectedReply: return "unexpectedReply"
            case .malformedReply: return "malformedReply"
            case .connectFailed: return "connectFailed"
            case .connectionClosed: return "connectionClosed"
            case .timedOut: return "timedOut"
            case .notReady: return "notReady"
            case .limitExceeded: return "limitExceeded"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// Details: what was expected, the server's error message. One line of at most
    /// ``maxReasonLength`` characters: a server's text comes as it is sent, up to the decoder's
    /// limits, so control characters (a bulk error may hold line breaks) are escaped and a long text
    /// is cut, ending in `…`.
    public var reason: String

    /// The most characters of ``reason``.
    public static let maxReasonLength = 512

    /// An error of the given kind; `reason` is made one bounded line (see ``reason``).
    public init(_ code: Code, reason: String) {
        self.code = code
        self.reason = Self.oneLine(reason)
    }

    /// `text` with its control characters escaped (`\r`, `\n`, `\t`, `\u{1B}`), cut to
    /// ``maxReasonLength`` characters.
    static func oneLine(_ text: String) -> String {
        var line = ""
        var length = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar {
            case "\r": piece = "\\r"
            case "\n": piece = "\\n"
            case "\t": piece = "\\t"
            case _ where scalar.value < 0x20 || (0x7F ... 0x9F).contains(scalar.value):
                piece = "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: piece = String(scalar)
            }
            guard length + piece.unicodeScalars.count <= maxReasonLength - 1 else {
                line += "…"
                return line
            }
            line += piece
            length += piece.unicodeScalars.count
        }
        return line
    }

    /// One line, e.g. `Redis: authenticationFailed: WRONGPASS invalid username-password pair`.
    public var description: String { "Redis: \(code): \(reason)" }
}
