// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// How a connection ended (RFC 6455 §7.1.5, §7.1.6).
    public struct CloseStatus: Sendable, Hashable {
        /// The fields, shared by the copies (copy on write), as ``HandshakeRequest`` keeps its own: a
        /// status is copied into the phase, its summary, the state every getter returns, the events
        /// and the adapter's ending, and each copy of the fields in line retained the reason (and a
        /// violation's), where a copy of the box retains once. One pointer wide, the events and
        /// states that carry it stay small, and `Event.closed` needs no box of its own.
        private var storage: SharedFields<Fields>

        /// The stored fields, as the properties below name them.
        struct Fields: Sendable, Hashable {
            var code: Connection.CloseCode
            var reason: String
            var wasClean: Bool
            var failure: Failure?
        }

        /// The peer's close code when it sent one; the code we sent when we failed the connection;
        /// ``Connection/CloseCode/abnormalClosure`` (1006) when the connection was lost without a Close frame.
        public var code: Connection.CloseCode {
            get { storage.fields.code }
            set { storage.change { $0.code = newValue } }
        }
        /// The reason that came with ``code``: the peer's, the violation's, or empty.
        public var reason: String {
            get { storage.fields.reason }
            set { storage.change { $0.reason = newValue } }
        }
        /// `true` when Close frames were exchanged in both directions.
        public var wasClean: Bool {
            get { storage.fields.wasClean }
            set { storage.change { $0.wasClean = newValue } }
        }
        /// Why the connection ended, when not by a normal closing handshake.
        public var failure: Failure? {
            get { storage.fields.failure }
            set { storage.change { $0.failure = newValue } }
        }

        /// Why a connection ended other than by a closing handshake (RFC 6455 §7.1.7, "fail the
        /// WebSocket connection"), or after a timeout.
        public struct Failure: Sendable, Hashable {
            // A struct over an internal enum, so that a new case breaks no user's exhaustive switch: the
            // static members below build and match errors (`error == .x`, `case .x:` with a `default`,
            // `catch Failure.x`), and a property per case reads what it carries.
            enum Base: Sendable, Hashable {
                /// The peer violated the protocol; we sent the violation's close code.
                case protocolViolation(Connection.ProtocolViolation)
                /// No pong came back within ``Connection/Timeouts/keepaliveTimeout``.
                case keepaliveTimeout
                /// The peer did not finish the closing handshake within ``Connection/Timeouts/close``.
                case closeTimeout
                /// The transport ended before the closing handshake did.
                case unexpectedEndOfStream
                /// The caller aborted the connection (``Connection/abort()``).
                case aborted
            }

            /// Which error this is, with what it carries.
            let base: Base

            init(_ base: Base) { self.base = base }

            /// The peer violated the protocol; we sent the violation's close code.
            public static func protocolViolation(_ value: Connection.ProtocolViolation) -> Failure { Failure(.protocolViolation(value)) }

            /// What ``protocolViolation(_:)`` carries; `nil` for any other error.
            public var protocolViolation: Connection.ProtocolViolation? {
                if case .protocolViolation(let value) = base { return value }
                return nil
            }

            /// No pong came back within ``Connection/Timeouts/keepaliveTimeout``.
            public static let keepaliveTimeout = Failure(.keepaliveTimeout)

            /// The peer did not finish the closing handshake within ``Connection/Timeouts/close``.
            public static let closeTimeout = Failure(.closeTimeout)

            /// The transport ended before the closing handshake did.
            public static let unexpectedEndOfStream = Failure(.unexpectedEndOfStream)

            /// The caller aborted the connection (``Connection/abort()``).
            public static let aborted = Failure(.aborted)
        }

        /// A status as the connection reports it; for tests and for adapters that report a status of
        /// their own (a transport error, say).
        public init(code: Connection.CloseCode, reason: String, wasClean: Bool, failure: Failure? = nil) {
            if wasClean, failure == nil, reason.isEmpty, let common = Self.cleanWithoutReason(code) {
                self = common
                return
            }
            storage = SharedFields(Fields(code: code, reason: reason, wasClean: wasClean, failure: failure))
        }

        private init(_ fields: Fields) {
            storage = SharedFields(fields)
        }

        // MARK: Statuses made once
        //
        // A status's box was one of the allocations of every connection that closed (its allocation,
        // and its free with the connection's end, about 300 instructions). The statuses that nearly
        // every close reports are made once and shared: the clean closes that carried no reason, and
        // each status the connection names itself. Shared boxes are never written (a change makes a
        // box of the value's own), so sharing one is the same as copying it.

        /// The clean close without a reason for `code`, when it is one that peers send nearly always.
        private static func cleanWithoutReason(_ code: Connection.CloseCode) -> Connection.CloseStatus? {
            switch code.rawValue {
            case 1000: return normalClosureWithoutReason
            case 1001: return goingAwayWithoutReason
            case 1005: return noStatusWithoutReason
            default: return nil
            }
        }

        private static let normalClosureWithoutReason = Self(Fields(code: .normalClosure, reason: "", wasClean: true, failure: nil))
        private static let goingAwayWithoutReason = Self(Fields(code: .goingAway, reason: "", wasClean: true, failure: nil))
        private static let noStatusWithoutReason = Self(Fields(code: .noStatusReceived, reason: "", wasClean: true, failure: nil))

        /// 1006 after the transport ended before the closing handshake did.
        static let lostWithoutClose = Self(Fields(code: .abnormalClosure, reason: "connection closed without a close frame",
                                                  wasClean: false, failure: .unexpectedEndOfStream))
        /// 1006 after ``Connection/abort()``.
        static let aborted = Self(Fields(code: .abnormalClosure, reason: "aborted", wasClean: false, failure: .aborted))
        /// 1006 after a failed opening handshake.
        static let handshakeFailed = Self(Fields(code: .abnormalClosure, reason: "opening handshake failed", wasClean: false, failure: nil))
        /// 1006 after the server rejected the opening handshake.
        static let handshakeRejected = Self(Fields(code: .abnormalClosure, reason: "opening handshake rejected", wasClean: false,
                                                   failure: nil))
        /// 1006 after the keepalive's pong did not come back in time.
        static let keepaliveTimedOut = Self(Fields(code: .abnormalClosure, reason: "keepalive timeout", wasClean: false,
                                                   failure: .keepaliveTimeout))
        /// 1006 after the closing handshake did not finish in time.
        static let closeTimedOut = Self(Fields(code: .abnormalClosure, reason: "close handshake timed out", wasClean: false,
                                               failure: .closeTimeout))
    }
}
extension Connection.CloseStatus: CustomStringConvertible {
    /// How the connection ended, e.g. `1000 (normal closure)`, `4000 "bye"`,
    /// `1006 (abnormal closure): connection lost without a close frame`.
    public var description: String {
        var text = "\(code)"
        if let name = code.name { text += " (\(name))" }
        // The peer's reason; a failure's own reason is said by the failure's text.
        if failure == nil, !reason.isEmpty { text += " " + quoted(printable(reason)) }
        switch failure?.base {
        case .protocolViolation(let violation)?: text += ": peer violated the protocol: \(violation.reason)"
        case .keepaliveTimeout?: text += ": keepalive timeout"
        case .closeTimeout?: text += ": closing handshake timed out"
        case .unexpectedEndOfStream?: text += ": connection lost without a close frame"
        case .aborted?: text += ": connection aborted"
        case nil: break
        }
        return text
    }
}
