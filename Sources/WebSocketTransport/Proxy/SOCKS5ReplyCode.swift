// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The REP field of a SOCKS5 proxy's reply (RFC 1928 §6): `0x00` is success, anything else says why
/// the proxy did not connect. A `RawRepresentable` struct with static members, so that unassigned
/// codes (`0x09` to `0xFF`) are values too.
///
/// ```swift
/// if error.socksReply == .hostUnreachable { … }
/// ```
public struct SOCKS5ReplyCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public var rawValue: UInt8

    /// The code of a REP byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `X'00'` succeeded.
    public static let succeeded = SOCKS5ReplyCode(rawValue: 0x00)
    /// `X'01'` general SOCKS server failure.
    public static let generalFailure = SOCKS5ReplyCode(rawValue: 0x01)
    /// `X'02'` connection not allowed by ruleset.
    public static let connectionNotAllowed = SOCKS5ReplyCode(rawValue: 0x02)
    /// `X'03'` network unreachable.
    public static let networkUnreachable = SOCKS5ReplyCode(rawValue: 0x03)
    /// `X'04'` host unreachable (a SOCKS5h proxy that cannot resolve the name says this, as a rule).
    public static let hostUnreachable = SOCKS5ReplyCode(rawValue: 0x04)
    /// `X'05'` connection refused (by the destination).
    public static let connectionRefused = SOCKS5ReplyCode(rawValue: 0x05)
    /// `X'06'` TTL expired.
    public static let ttlExpired = SOCKS5ReplyCode(rawValue: 0x06)
    /// `X'07'` command not supported.
    public static let commandNotSupported = SOCKS5ReplyCode(rawValue: 0x07)
    /// `X'08'` address type not supported.
    public static let addressTypeNotSupported = SOCKS5ReplyCode(rawValue: 0x08)

    /// The RFC's words and the byte, e.g. `host unreachable (0x04)`; `unassigned reply code (0x2A)`
    /// for the rest.
    public var description: String {
        let words: String
        switch rawValue {
        case 0x00: words = "succeeded"
        case 0x01: words = "general SOCKS server failure"
        case 0x02: words = "connection not allowed by ruleset"
        case 0x03: words = "network unreachable"
        case 0x04: words = "host unreachable"
        case 0x05: words = "connection refused"
        case 0x06: words = "TTL expired"
        case 0x07: words = "command not supported"
        case 0x08: words = "address type not supported"
        default: words = "unassigned reply code"
        }
        return "\(words) (0x\(HexByte.text(rawValue)))"
    }
}

/// Two upper-case hex digits of a byte, for descriptions.
enum HexByte {
    static func text(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
    }
}
