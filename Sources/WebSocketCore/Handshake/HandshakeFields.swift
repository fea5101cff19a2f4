// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The header fields the opening handshake reads: a server's of the request (RFC 6455 §4.2.1, RFC
/// 9112 §3.2 and §6.3), a client's of the 101 (RFC 6455 §4.1, the client's checks 2 to 6). Gathered
/// as bytes: by the head parser as it checks each field line (an
/// ``HTTPFieldSink``), so that nothing walks the fields again, or in one walk over headers built
/// otherwise.
///
/// Each field's name is compared with the known names of its length only (one, or two for 17
/// bytes). Looking each name up in turn walked every field for every name and built an array of
/// values per name: about 14,000 instructions per opening handshake. A string is made only for the
/// values the request keeps (`Host`, `Origin`, and the lists when there are any); the key is kept
/// as its bytes (``ClientKey``), the others are checked where they lie.
///
/// Repeated fields are kept as the checks need them: every value of the lists, the count and first
/// value of the fields that must appear once.
struct HandshakeFields: HTTPFieldSink, Equatable {
    /// Whether an `Upgrade` field lists `websocket` (ASCII case-insensitively, §4.2.1 item 3).
    private(set) var upgradesToWebSocket = false
    /// Whether a `Connection` field lists `Upgrade` (§4.2.1 item 4).
    private(set) var connectionUpgrades = false
    private(set) var versionCount = 0
    /// Whether the first `Sec-WebSocket-Version` is exactly `13` (§4.2.1 item 6).
    private(set) var versionIs13 = false
    private(set) var keyCount = 0
    /// The first `Sec-WebSocket-Key`, when it is valid (24 bytes of base64 that decode to 16,
    /// §4.2.1 item 5): kept as its bytes, no string made; otherwise an invalid key
    /// (``ClientKey/isValid`` is `false`). Not an optional: a `ClientKey?` was copied through the
    /// runtime's generic value witnesses, about 130 instructions a copy.
    private(set) var key = ClientKey.invalid
    private(set) var hostCount = 0
    private(set) var host: String? = nil
    /// The first `Origin`.
    private(set) var origin: String? = nil
    private(set) var hasTransferEncoding = false
    /// Whether every `Content-Length` is `0` (true when there is none).
    private(set) var contentLengthsAreZero = true
    /// (Client) How many `Sec-WebSocket-Accept` fields there are, and the first one's value.
    private(set) var acceptCount = 0
    private(set) var accept: String? = nil
    /// Every `Sec-WebSocket-Protocol` and `Sec-WebSocket-Extensions` value, in order.
    private(set) var protocolValues: [String] = []
    private(set) var extensionValues: [String] = []

    private enum Name {
        case host, origin, upgrade, connection, contentLength, transferEncoding
        case key, version, subprotocol, extensions, accept, other
    }

    /// No field yet.
    init() {}

    /// The fields of `headers`, in one walk.
    init(_ headers: Connection.HTTPHeaders) {
        headers.forEachField { name, value in
            field(name: name, value: value, known: nil)
            return true
        }
    }

    /// Takes in one field, in the order of the head. A name the parser knows (spelled exactly as
    /// the handshake's names are) is not compared again.
    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, known: KnownFieldName?) {
        switch known.map(Self.name(of:)) ?? Self.name(of: name) {
        case .host:
            hostCount += 1
            if host == nil { host = HTTPFieldLines.string(value) }
        case .origin:
            if origin == nil { origin = HTTPFieldLines.string(value) }
        case .upgrade:
            if !upgradesToWebSocket { upgradesToWebSocket = Self.lists(value, "websocket") }
        case .connection:
            if !connectionUpgrades { connectionUpgrades = Self.lists(value, "upgrade") }
        case .contentLength:
            if !(value.count == 1 && value[0] == UInt8(ascii: "0")) { contentLengthsAreZero = false }
        case .transferEncoding:
            hasTransferEncoding = true
        case .key:
            keyCount += 1
            if keyCount == 1, let valid = ClientKey(value) { key = valid }
        case .version:
            versionCount += 1
            if versionCount == 1 {
                versionIs13 = value.count == 2 && value[0] == UInt8(ascii: "1") && value[1] == UInt8(ascii: "3")
            }
        case .subprotocol:
            protocolValues.append(HTTPFieldLines.string(value))
        case .extensions:
            extensionValues.append(HTTPFieldLines.string(value))
        case .accept:
            acceptCount += 1
            if accept == nil { accept = HTTPFieldLines.string(value) }
        case .other:
            break
        }
    }

    /// Which of the names read a known name is.
    private static func name(of known: KnownFieldName) -> Name {
        switch known {
        case .host: return .host
        case .origin: return .origin
        case .upgrade: return .upgrade
        case .connection: return .connection
        case .key: return .key
        case .version: return .version
        case .subprotocol: return .subprotocol
        case .extensions: return .extensions
        case .userAgent: return .other
        }
    }

    /// Which of the names read this is, ASCII case-insensitively.
    private static func name(of bytes: UnsafeBufferPointer<UInt8>) -> Name {
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
        case 20: return matches("Sec-WebSocket-Accept") ? .accept : .other
        case 21: return matches("Sec-WebSocket-Version") ? .version : .other
        case 22: return matches("Sec-WebSocket-Protocol") ? .subprotocol : .other
        case 24: return matches("Sec-WebSocket-Extensions") ? .extensions : .other
        default: return .other
        }
    }

    /// Whether the list `value` has `token` as an element (see ``HTTPTokens/listContains(_:_:)``).
    private static func lists(_ value: UnsafeBufferPointer<UInt8>, _ token: StaticString) -> Bool {
        token.withUTF8Buffer { HTTPTokens.listContains(value, $0) }
    }
}
