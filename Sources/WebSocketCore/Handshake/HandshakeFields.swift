// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The header fields of a request that the server's handshake reads (RFC 6455 §4.2.1, RFC 9112
/// §3.2 and §6.3), gathered in one walk over the request's fields.
///
/// Each field's name is compared with the known names of its length only (one, or two for 17
/// bytes), as bytes. Looking each name up in turn walked every field for every name and built an
/// array of values per name: about 14,000 instructions per opening handshake.
///
/// Repeated fields are kept as the checks need them: every value of the lists, the count and first
/// value of the fields that must appear once.
struct HandshakeFields {
    /// Whether an `Upgrade` field lists `websocket` (ASCII case-insensitively, §4.2.1 item 3).
    private(set) var upgradesToWebSocket = false
    /// Whether a `Connection` field lists `Upgrade` (§4.2.1 item 4).
    private(set) var connectionUpgrades = false
    private(set) var versionCount = 0
    private(set) var version: String? = nil
    private(set) var keyCount = 0
    private(set) var key: String? = nil
    private(set) var hostCount = 0
    private(set) var host: String? = nil
    /// The first `Origin`.
    private(set) var origin: String? = nil
    private(set) var hasTransferEncoding = false
    /// Whether every `Content-Length` is `0` (true when there is none).
    private(set) var contentLengthsAreZero = true
    /// Every `Sec-WebSocket-Protocol` and `Sec-WebSocket-Extensions` value, in order.
    private(set) var protocolValues: [String] = []
    private(set) var extensionValues: [String] = []

    private enum Name {
        case host, origin, upgrade, connection, contentLength, transferEncoding
        case key, version, subprotocol, extensions, other
    }

    init(_ headers: Connection.HTTPHeaders) {
        for field in headers.fields {
            switch Self.name(of: field.name) {
            case .host:
                hostCount += 1
                if host == nil { host = field.value }
            case .origin:
                if origin == nil { origin = field.value }
            case .upgrade:
                if !upgradesToWebSocket { upgradesToWebSocket = Self.lists(field.value, "websocket") }
            case .connection:
                if !connectionUpgrades { connectionUpgrades = Self.lists(field.value, "upgrade") }
            case .contentLength:
                if field.value != "0" { contentLengthsAreZero = false }
            case .transferEncoding:
                hasTransferEncoding = true
            case .key:
                keyCount += 1
                if key == nil { key = field.value }
            case .version:
                versionCount += 1
                if version == nil { version = field.value }
            case .subprotocol:
                protocolValues.append(field.value)
            case .extensions:
                extensionValues.append(field.value)
            case .other:
                break
            }
        }
    }

    /// Which of the names read this is, ASCII case-insensitively.
    private static func name(of name: String) -> Name {
        let known = name.utf8.withContiguousStorageIfAvailable { bytes -> Name in
            func matches(_ known: StaticString) -> Bool {
                known.withUTF8Buffer { asciiCaseInsensitiveEqualBytes(bytes, $0) }
            }
            switch bytes.count {
            case 4: return matches("Host") ? .host : .other
            case 6: return matches("Origin") ? .origin : .other
            case 7: return matches("Upgrade") ? .upgrade : .other
            case 10: return matches("Connection") ? .connection : .other
            case 14: return matches("Content-Length") ? .contentLength : .other
            case 17: return matches("Sec-WebSocket-Key") ? .key : matches("Transfer-Encoding") ? .transferEncoding : .other
            case 21: return matches("Sec-WebSocket-Version") ? .version : .other
            case 22: return matches("Sec-WebSocket-Protocol") ? .subprotocol : .other
            case 24: return matches("Sec-WebSocket-Extensions") ? .extensions : .other
            default: return .other
            }
        }
        if let known { return known }
        // A name not stored contiguously (not one the head parser makes): compared as strings.
        let names: [(String, Name)] = [
            ("Host", .host), ("Origin", .origin), ("Upgrade", .upgrade), ("Connection", .connection),
            ("Content-Length", .contentLength), ("Transfer-Encoding", .transferEncoding),
            ("Sec-WebSocket-Key", .key), ("Sec-WebSocket-Version", .version),
            ("Sec-WebSocket-Protocol", .subprotocol), ("Sec-WebSocket-Extensions", .extensions),
        ]
        return names.first { name.asciiCaseInsensitiveEquals($0.0) }?.1 ?? .other
    }

    /// Whether the list `value` has `token` as an element (see ``HTTPTokens/listContains(_:token:)``).
    private static func lists(_ value: String, _ token: StaticString) -> Bool {
        let scanned = value.utf8.withContiguousStorageIfAvailable { bytes in
            token.withUTF8Buffer { HTTPTokens.listContains(bytes, $0) }
        }
        return scanned ?? HTTPTokens.listContains([value], token: token.withUTF8Buffer { String(decoding: $0, as: UTF8.self) })
    }
}
