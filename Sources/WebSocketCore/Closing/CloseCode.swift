// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A close status code (RFC 6455 §7.4).
    ///
    /// Any `UInt16` can be represented, so that what a peer sent can be reported; ``isValidOnWire`` says
    /// whether a code may appear in a Close frame at all.
    public struct CloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as it appears on the wire, the first two bytes of a Close frame's payload
        /// (big-endian, RFC 6455 §5.5.1).
        public var rawValue: UInt16
        /// A code from its numeric value, as in `CloseCode(rawValue: 4000)` for an application's own
        /// code (4000-4999 are for private use, RFC 6455 §7.4.2); any value is accepted,
        /// ``isValidOnWire`` says whether it may be sent.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// 1000: the purpose for which the connection was established has been fulfilled.
        public static let normalClosure = Connection.CloseCode(rawValue: 1000)
        /// 1001: an endpoint is going away (server shutdown, page navigation).
        public static let goingAway = Connection.CloseCode(rawValue: 1001)
        /// 1002: the peer violated the protocol.
        public static let protocolError = Connection.CloseCode(rawValue: 1002)
        /// 1003: a data type the endpoint cannot accept.
        public static let unsupportedData = Connection.CloseCode(rawValue: 1003)
        /// 1005: reserved; reports a Close frame without a status code. Never sent.
        public static let noStatusReceived = Connection.CloseCode(rawValue: 1005)
        /// 1006: reserved; reports a connection lost without a Close frame. Never sent.
        public static let abnormalClosure = Connection.CloseCode(rawValue: 1006)
        /// 1007: data inconsistent with the message type (invalid UTF-8 in a text message).
        public static let invalidPayloadData = Connection.CloseCode(rawValue: 1007)
        /// 1008: a message violates the endpoint's policy.
        public static let policyViolation = Connection.CloseCode(rawValue: 1008)
        /// 1009: a message too big to process.
        public static let messageTooBig = Connection.CloseCode(rawValue: 1009)
        /// 1010: (client) the server did not negotiate an extension the client requires.
        public static let mandatoryExtension = Connection.CloseCode(rawValue: 1010)
        /// 1011: the server met an unexpected condition.
        public static let internalError = Connection.CloseCode(rawValue: 1011)
        /// 1012: the service is restarting (IANA registry).
        public static let serviceRestart = Connection.CloseCode(rawValue: 1012)
        /// 1013: try again later (IANA registry).
        public static let tryAgainLater = Connection.CloseCode(rawValue: 1013)
        /// 1014: a gateway received an invalid response (IANA registry).
        public static let badGateway = Connection.CloseCode(rawValue: 1014)
        /// 1015: reserved; reports a TLS handshake failure. Never sent.
        public static let tlsHandshakeFailure = Connection.CloseCode(rawValue: 1015)

        /// Whether the code may be carried by a Close frame (RFC 6455 §7.4.1, §7.4.2 and the IANA registry):
        /// 1000-1003, 1007-1014 and 3000-4999. Codes below 1000, 1004-1006, 1015, 1016-2999 and 5000 and up
        /// may not be sent, and a peer that sends them violates the protocol.
        public var isValidOnWire: Bool {
            switch rawValue {
            case 1000...1003, 1007...1014, 3000...4999: return true
            default: return false
            }
        }

        /// The number alone, as in `"1000"`; ``Connection/CloseStatus`` adds the name.
        public var description: String { String(rawValue) }
    }
}
extension Connection.CloseCode {
    /// The code's name in RFC 6455 §7.4.1 and the IANA registry ("normal closure"), if it has one.
    public var name: String? {
        switch self {
        case .normalClosure: return "normal closure"
        case .goingAway: return "going away"
        case .protocolError: return "protocol error"
        case .unsupportedData: return "unsupported data"
        case .noStatusReceived: return "no status code"
        case .abnormalClosure: return "abnormal closure"
        case .invalidPayloadData: return "invalid payload data"
        case .policyViolation: return "policy violation"
        case .messageTooBig: return "message too big"
        case .mandatoryExtension: return "mandatory extension"
        case .internalError: return "internal error"
        case .serviceRestart: return "service restart"
        case .tryAgainLater: return "try again later"
        case .badGateway: return "bad gateway"
        case .tlsHandshakeFailure: return "TLS handshake failure"
        default: return nil
        }
    }
}
