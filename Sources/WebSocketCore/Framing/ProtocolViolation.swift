// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// A violation of RFC 6455 by the peer, found in its frames. The connection answers it with a Close
    /// frame carrying ``closeCode`` and fails (RFC 6455 §7.1.7).
    public struct ProtocolViolation: Error, Sendable, Hashable, CustomStringConvertible {
        /// What the peer did wrong, with the RFC 6455 section that forbids it.
        public struct Kind: Sendable, Hashable {
            // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
            // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
            // `catch Kind.x`), and a property per case reads what it carries.
            enum Base: Sendable, Hashable {
                /// RSV1-3 set without an extension that defines them (§5.2).
                case reservedBitsSet
                /// An opcode RFC 6455 does not define (§5.2).
                case unknownOpcode(UInt8)
                /// A control frame with FIN clear (§5.5).
                case fragmentedControlFrame
                /// A control frame payload over 125 bytes (§5.5).
                case controlFrameTooLarge
                /// A continuation frame with no message to continue (§5.4).
                case unexpectedContinuation
                /// A new text or binary frame while a fragmented message is unfinished (§5.4).
                case expectedContinuation
                /// A client frame without a mask (§5.1).
                case unmaskedFrame
                /// A server frame with a mask (§5.1).
                case maskedFrame
                /// A 64-bit length with its most significant bit set (§5.2).
                case invalidLength
                /// A frame larger than ``Connection/Limits/maxFrameSize``.
                case frameTooLarge
                /// A message larger than ``Connection/Limits/maxMessageSize``.
                case messageTooLarge
                /// A message in more frames than ``Connection/Limits/maxFragmentsPerMessage``.
                case tooManyFragments
                /// A text message that is not valid UTF-8 (§8.1).
                case invalidUTF8
                /// A Close frame with a 1-byte payload (§5.5.1).
                case invalidClosePayload
                /// A Close frame with a code that may not be sent (§7.4).
                case invalidCloseCode(UInt16)
                /// A Close frame whose reason is not valid UTF-8 (§5.5.1).
                case invalidCloseReason
                /// A transformed message the negotiated extension cannot decode (corrupt compressed data).
                case invalidTransformedData
            }

            /// Which error this is, with what it carries.
            let base: Base

            init(_ base: Base) { self.base = base }

            /// RSV1-3 set without an extension that defines them (§5.2).
            public static let reservedBitsSet = Kind(.reservedBitsSet)

            /// An opcode RFC 6455 does not define (§5.2).
            public static func unknownOpcode(_ value: UInt8) -> Kind { Kind(.unknownOpcode(value)) }

            /// What ``unknownOpcode(_:)`` carries; `nil` for any other kind.
            public var unknownOpcode: UInt8? {
                if case .unknownOpcode(let value) = base { return value }
                return nil
            }

            /// A control frame with FIN clear (§5.5).
            public static let fragmentedControlFrame = Kind(.fragmentedControlFrame)

            /// A control frame payload over 125 bytes (§5.5).
            public static let controlFrameTooLarge = Kind(.controlFrameTooLarge)

            /// A continuation frame with no message to continue (§5.4).
            public static let unexpectedContinuation = Kind(.unexpectedContinuation)

            /// A new text or binary frame while a fragmented message is unfinished (§5.4).
            public static let expectedContinuation = Kind(.expectedContinuation)

            /// A client frame without a mask (§5.1).
            public static let unmaskedFrame = Kind(.unmaskedFrame)

            /// A server frame with a mask (§5.1).
            public static let maskedFrame = Kind(.maskedFrame)

            /// A 64-bit length with its most significant bit set (§5.2).
            public static let invalidLength = Kind(.invalidLength)

            /// A frame larger than ``Connection/Limits/maxFrameSize``.
            public static let frameTooLarge = Kind(.frameTooLarge)

            /// A message larger than ``Connection/Limits/maxMessageSize``.
            public static let messageTooLarge = Kind(.messageTooLarge)

            /// A message in more frames than ``Connection/Limits/maxFragmentsPerMessage``.
            public static let tooManyFragments = Kind(.tooManyFragments)

            /// A text message that is not valid UTF-8 (§8.1).
            public static let invalidUTF8 = Kind(.invalidUTF8)

            /// A Close frame with a 1-byte payload (§5.5.1).
            public static let invalidClosePayload = Kind(.invalidClosePayload)

            /// A Close frame with a code that may not be sent (§7.4).
            public static func invalidCloseCode(_ value: UInt16) -> Kind { Kind(.invalidCloseCode(value)) }

            /// What ``invalidCloseCode(_:)`` carries; `nil` for any other kind.
            public var invalidCloseCode: UInt16? {
                if case .invalidCloseCode(let value) = base { return value }
                return nil
            }

            /// A Close frame whose reason is not valid UTF-8 (§5.5.1).
            public static let invalidCloseReason = Kind(.invalidCloseReason)

            /// A transformed message the negotiated extension cannot decode (corrupt compressed data).
            public static let invalidTransformedData = Kind(.invalidTransformedData)
        }

        /// What the peer did wrong.
        public var kind: Kind

        /// A violation of the given kind; its ``closeCode`` and ``reason`` follow from it.
        public init(_ kind: Kind) { self.kind = kind }

        /// The code the connection sends for this violation: 1007 for bad UTF-8, 1009 for exceeded limits,
        /// 1002 for the rest.
        public var closeCode: Connection.CloseCode {
            switch kind.base {
            case .invalidUTF8, .invalidCloseReason, .invalidTransformedData: return .invalidPayloadData
            case .frameTooLarge, .messageTooLarge, .tooManyFragments: return .messageTooBig
            case .reservedBitsSet, .unknownOpcode, .fragmentedControlFrame, .controlFrameTooLarge,
                 .unexpectedContinuation, .expectedContinuation, .unmaskedFrame, .maskedFrame, .invalidLength,
                 .invalidClosePayload, .invalidCloseCode:
                return .protocolError
            }
        }

        /// A short reason, sent in the Close frame.
        public var reason: String {
            switch kind.base {
            case .reservedBitsSet: return "reserved bits set"
            case .unknownOpcode(let op): return "unknown opcode \(op)"
            case .fragmentedControlFrame: return "fragmented control frame"
            case .controlFrameTooLarge: return "control frame too large"
            case .unexpectedContinuation: return "unexpected continuation frame"
            case .expectedContinuation: return "expected continuation frame"
            case .unmaskedFrame: return "client frame not masked"
            case .maskedFrame: return "server frame masked"
            case .invalidLength: return "invalid payload length"
            case .frameTooLarge: return "frame too large"
            case .messageTooLarge: return "message too large"
            case .tooManyFragments: return "too many fragments"
            case .invalidUTF8: return "invalid UTF-8 in text message"
            case .invalidClosePayload: return "close payload of 1 byte"
            case .invalidCloseCode(let code): return "invalid close code \(code)"
            case .invalidCloseReason: return "invalid UTF-8 in close reason"
            case .invalidTransformedData: return "undecodable extension data"
            }
        }

        /// The reason and the code, as in `"invalid UTF-8 in text message (1007)"`.
        public var description: String { "\(reason) (\(closeCode))" }
    }
}
