// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// What a PROXY protocol header says about a connection that a load balancer or proxy relayed: the
/// addresses of the original connection, and in version 2 any TLVs the proxy added (ALPN, the TLS server
/// name, a unique ID, TLS details).
///
/// ``source`` is the client's address as the proxy saw it; when it is `nil` (a version 2 LOCAL command,
/// which health checks use; version 1's `UNKNOWN`; an unspecified family or transport), the header names
/// no original connection and the socket's own addresses stand, as the specification says.
///
/// Made by ``ProxyProtocolParser``. Only trust it from a proxy you trust: see ``TrustedProxies``.
public struct ProxyProtocolHeader: Sendable, Hashable {
    /// The header's format.
    public enum Version: Sendable, Hashable {
        /// The human-readable line: `PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n`.
        case v1
        /// The binary header: a 12-byte signature, version and command, family, length, addresses, TLVs.
        case v2
    }

    /// Why the connection was made.
    public enum Command: Sendable, Hashable {
        /// Version 2's LOCAL: the proxy made the connection itself (a health check); the socket's
        /// addresses are the real ones.
        case local
        /// Relayed on behalf of a client: a version 1 line, or version 2's PROXY.
        case proxy
    }

    /// The relayed connection's transport.
    public enum TransportProtocol: Sendable, Hashable {
        /// `SOCK_STREAM`: TCP, or a Unix stream socket.
        case stream
        /// `SOCK_DGRAM`: UDP, or a Unix datagram socket.
        case datagram
    }

    /// One Type-Length-Value field of a version 2 header, as sent (§2.2 of the specification).
    public struct TLV: Sendable, Hashable {
        /// A TLV type, by its number.
        public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            /// The type byte.
            public var rawValue: UInt8

            /// The type with this number.
            public init(rawValue: UInt8) {
                self.rawValue = rawValue
            }

            /// `PP2_TYPE_ALPN` (0x01): the application protocol the client and the proxy agreed, as TLS
            /// ALPN names it (`http/1.1`, `h2`).
            public static let alpn = Kind(rawValue: 0x01)
            /// `PP2_TYPE_AUTHORITY` (0x02): the host name the client asked for, UTF-8 (TLS SNI).
            public static let authority = Kind(rawValue: 0x02)
            /// `PP2_TYPE_CRC32C` (0x03): the header's CRC32C, 4 bytes, big-endian; the parser verifies it.
            public static let crc32c = Kind(rawValue: 0x03)
            /// `PP2_TYPE_NOOP` (0x04): padding, to be ignored.
            public static let noop = Kind(rawValue: 0x04)
            /// `PP2_TYPE_UNIQUE_ID` (0x05): an opaque ID of the connection, up to 128 bytes.
            public static let uniqueID = Kind(rawValue: 0x05)
            /// `PP2_TYPE_SSL` (0x20): whether and how the client used TLS: a client flags byte, a 32-bit
            /// verify result, then sub-TLVs (version 0x21, common name 0x22, cipher 0x23, signature
            /// algorithm 0x24, key algorithm 0x25).
            public static let ssl = Kind(rawValue: 0x20)
            /// `PP2_TYPE_NETNS` (0x30): the network namespace's name, US-ASCII.
            public static let netns = Kind(rawValue: 0x30)

            /// The specification's name for a registered type (`ALPN`), or the number (`0xEA`).
            public var description: String {
                switch self {
                case .alpn: return "ALPN"
                case .authority: return "AUTHORITY"
                case .crc32c: return "CRC32C"
                case .noop: return "NOOP"
                case .uniqueID: return "UNIQUE_ID"
                case .ssl: return "SSL"
                case .netns: return "NETNS"
                default:
                    let hex = String(rawValue, radix: 16, uppercase: true)
                    return "0x" + (hex.count < 2 ? "0" + hex : hex)
                }
            }
        }

        /// The type.
        public var kind: Kind
        /// The value's bytes.
        public var value: [UInt8]

        /// A TLV.
        public init(kind: Kind, value: [UInt8]) {
            self.kind = kind
            self.value = value
        }
    }

    /// The header's format.
    public var version: Version
    /// LOCAL or PROXY.
    public var command: Command
    /// The relayed connection's transport; `nil` when unspecified (and for `UNKNOWN`).
    public var transportProtocol: TransportProtocol?
    /// The original connection's source: the client's address and port (or Unix socket path) as the
    /// proxy saw it. `nil` when the header names no original connection: use the socket's peer address.
    public var source: SocketAddress?
    /// The original connection's destination: the address the client connected to on the proxy.
    /// `nil` exactly when ``source`` is.
    public var destination: SocketAddress?
    /// The version 2 TLVs in the order sent, NOOP padding included; empty for version 1, and for a
    /// version 2 header whose address layout is unknown (its TLVs cannot be found).
    public var tlvs: [TLV]
    /// The header's length in bytes: what comes after it on the connection is the client's.
    public var byteCount: Int

    /// The value of the first TLV of this type, if any.
    public func value(of kind: TLV.Kind) -> [UInt8]? {
        tlvs.first { $0.kind == kind }?.value
    }

    /// The ALPN TLV's protocol name (`http/1.1`), if the proxy sent one.
    public var alpn: [UInt8]? { value(of: .alpn) }

    /// The authority TLV (the TLS server name the client asked for), if the proxy sent one and it is
    /// valid UTF-8.
    public var authority: String? {
        guard let bytes = value(of: .authority) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // Invalid UTF-8 would come back with U+FFFD in it, which is not what was sent.
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// The unique ID TLV, if the proxy sent one.
    public var uniqueID: [UInt8]? { value(of: .uniqueID) }
}
