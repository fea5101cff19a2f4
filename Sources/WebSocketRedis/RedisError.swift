// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why a Redis URL, a reply or a subscriber connection's handshake is not what it should be.
///
/// The kind is ``code``, a struct with static members (a `switch` over it needs a `default:`), as for
/// ``RESPError``; ``description`` is one line for a log and never holds a password.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case invalidURL, authenticationFailed, authenticationRequired, serverError, unexpectedReply
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

        /// A short name, e.g. `authenticationFailed`.
        public var description: String {
            switch value {
            case .invalidURL: return "invalidURL"
            case .authenticationFailed: return "authenticationFailed"
            case .authenticationRequired: return "authenticationRequired"
            case .serverError: return "serverError"
            case .unexpectedReply: return "unexpectedReply"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// Details: what was expected, the server's error message.
    public var reason: String

    /// An error of the given kind.
    public init(_ code: Code, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// One line, e.g. `Redis: authenticationFailed: WRONGPASS invalid username-password pair`.
    public var description: String { "Redis: \(code): \(reason)" }
}
