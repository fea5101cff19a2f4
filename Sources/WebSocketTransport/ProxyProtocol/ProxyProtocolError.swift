// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// Why the first bytes of a connection are not a PROXY protocol header that may be accepted. The
/// connection is then to be closed: the specification says that "any sequence which does not exactly
/// match the protocol must be discarded and cause the receiver to abort the connection".
///
/// The kind of failure is ``code``, a struct with static members rather than an enum, so that new
/// kinds can be added without breaking a `switch` (which therefore needs a `default:`), as for
/// ``ProxyError``. ``offset`` says where in the header it was found; ``description`` is one line for a
/// log.
public struct ProxyProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Value: Sendable, Hashable {
            case notProxyProtocol, headerTooLarge, invalidLine, unsupportedVersion, unsupportedCommand
            case unsupportedFamily, invalidLength, invalidTLV, checksumMismatch, untrustedSource
        }

        fileprivate let value: Value

        /// The bytes start with neither version 2's 12-byte signature nor version 1's `PROXY `: the peer
        /// does not speak the protocol (a client that reached the port directly, or a load balancer not
        /// configured to send it).
        public static let notProxyProtocol = Code(value: .notProxyProtocol)
        /// A version 2 header whose announced length exceeds ``ProxyProtocolParser/maxHeaderBytes``
        /// (checked as soon as the length arrives, before anything is held for it), or a version 1 line
        /// without its CRLF within the specification's 107 bytes.
        public static let headerTooLarge = Code(value: .headerTooLarge)
        /// A version 1 line that is not `PROXY TCP4|TCP6 <source> <destination> <port> <port>` or
        /// `PROXY UNKNOWN…` exactly: a wrong protocol name, a space too many or too few, an address
        /// that is not the family's canonical form (leading zeros included), a port over 65535, a CR or
        /// LF alone.
        public static let invalidLine = Code(value: .invalidLine)
        /// A version 2 header whose version is not 2.
        public static let unsupportedVersion = Code(value: .unsupportedVersion)
        /// A version 2 header whose command is neither LOCAL (0) nor PROXY (1).
        public static let unsupportedCommand = Code(value: .unsupportedCommand)
        /// A version 2 PROXY header whose address family is not AF_UNSPEC, AF_INET, AF_INET6 or
        /// AF_UNIX, or whose transport is not UNSPEC, STREAM or DGRAM.
        public static let unsupportedFamily = Code(value: .unsupportedFamily)
        /// A version 2 PROXY header too short for its family's addresses (12 bytes for IPv4, 36 for
        /// IPv6, 216 for Unix).
        public static let invalidLength = Code(value: .invalidLength)
        /// A version 2 header whose TLVs do not fill the rest of it exactly (a TLV cut short or running
        /// past the header's end), or whose CRC32C, unique ID or SSL TLV does not have its form (4 bytes;
        /// at most 128 bytes; 5 bytes and whole sub-TLVs), or with two CRC32C TLVs.
        public static let invalidTLV = Code(value: .invalidTLV)
        /// A version 2 header whose CRC32C TLV does not match the header: the specification says the
        /// receiver "MUST treat the TCP connection providing the header as invalid".
        public static let checksumMismatch = Code(value: .checksumMismatch)

        /// (A server) The connection began with a PROXY header (its first byte, `P` or version 2's
        /// `\r`) but its peer is not one of ``TransportOptions/proxyProtocol``'s trusted proxies: a
        /// client may not say where it comes from.
        public static let untrustedSource = Code(value: .untrustedSource)

        /// A short name, e.g. `checksumMismatch`.
        public var description: String {
            switch value {
            case .notProxyProtocol: return "notProxyProtocol"
            case .headerTooLarge: return "headerTooLarge"
            case .invalidLine: return "invalidLine"
            case .unsupportedVersion: return "unsupportedVersion"
            case .unsupportedCommand: return "unsupportedCommand"
            case .unsupportedFamily: return "unsupportedFamily"
            case .invalidLength: return "invalidLength"
            case .invalidTLV: return "invalidTLV"
            case .checksumMismatch: return "checksumMismatch"
            case .untrustedSource: return "untrustedSource"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The offset, from the connection's first byte, of the byte or field where it was found.
    public var offset: Int
    /// Details: the field that is wrong, the value found.
    public var reason: String

    /// An error of the given kind.
    public init(_ code: Code, at offset: Int, reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// One line, e.g. `PROXY protocol header rejected (checksumMismatch at byte 28): CRC32C 0x1 …`.
    public var description: String {
        "PROXY protocol header rejected (\(code) at byte \(offset)): \(reason)"
    }
}
