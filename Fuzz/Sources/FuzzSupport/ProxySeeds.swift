// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

/// The seeds of `proxy-response`: the replies of the proxy tunnel tests (Tests/WebSocketTransportTests/Proxy),
/// in the target's input format (control byte, split point, the proxy's bytes; see `ProxyTarget`).
enum ProxySeeds {
    static func input(_ control: UInt8, _ bytes: [UInt8], split: Int = 0) -> [UInt8] {
        [control, UInt8((split >> 8) & 0xFF), UInt8(split & 0xFF)] + bytes
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }

    static let webSocketResponse = text("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n") + [0x81, 0x02, 0x68, 0x69]
    static let socksSuccess: [UInt8] = [0x05, 0x00, 0x00, 0x01, 192, 0, 2, 1, 0x10, 0xE1]

    static var all: [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = [
            ("http-200-then-websocket", input(0x10, text("HTTP/1.1 200 Connection established\r\n\r\n") + webSocketResponse, split: 20)),
            ("http-10-200", input(0x18, text("HTTP/1.0 200 Connection established\r\nProxy-Agent: test\r\n\r\n"), split: 9)),
            ("http-100-then-200", input(0x00, text("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nxyz"), split: 30)),
            ("http-200-content-length-ignored", input(0x00, text("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nabcdefg"))),
            ("http-407-challenge", input(0x12, text("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Length: 0\r\n\r\n"))),
            ("http-403", input(0x10, text("HTTP/1.1 403 Forbidden\r\nContent-Type: text/html\r\n\r\n<html>"))),
            ("http-502-ipv6", input(0x20, text("HTTP/1.1 502 Bad Gateway\r\n\r\n"))),
            ("http-bare-lf", input(0x00, text("HTTP/1.1 200 OK\nVia: 1.1 p\n\nrest"))),
            ("http-bare-cr", input(0x00, text("HTTP/1.1 200 OK\rVia: x\r\n\r\n"))),
            ("http-obs-fold", input(0x00, text("HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n"))),
            ("http-garbage-ssh", input(0x00, text("SSH-2.0-OpenSSH_9.6\r\n"))),
            ("http-tight-oversize", input(0x04, text("HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 300) + "\r\n\r\n"))),
            ("http-tight-many-fields", input(0x04, text("HTTP/1.1 200 OK\r\n" + String(repeating: "A: b\r\n", count: 9) + "\r\n"))),
            ("http-invalid-utf8-field", input(0x04, text("HTTP/1.1 403 No\r\nX: ") + [UInt8](repeating: 0xFF, count: 200) + text("\r\n\r\n"))),
            ("http-end-of-stream-mid-head", input(0x18, text("HTTP/1.1 200 Conn"))),
            ("socks-no-auth-then-data", input(0x11, [0x05, 0x00] + socksSuccess + webSocketResponse, split: 5)),
            ("socks-credentials", input(0x13, [0x05, 0x02, 0x01, 0x00] + socksSuccess + text("data"), split: 3)),
            ("socks-credentials-not-needed", input(0x03, [0x05, 0x00] + socksSuccess)),
            ("socks-bound-ipv6", input(0x21, [0x05, 0x00, 0x05, 0x00, 0x00, 0x04] + [UInt8](repeating: 0, count: 15) + [1, 0, 80, 0x42])),
            ("socks-bound-name", input(0x01, [0x05, 0x00, 0x05, 0x00, 0x00, 0x03, 5] + text("proxy") + [0x04, 0x38])),
            ("socks-no-acceptable-methods", input(0x11, [0x05, 0xFF])),
            ("socks-unexpected-method", input(0x01, [0x05, 0x02])),
            ("socks-bad-version", input(0x01, [0x04, 0x00])),
            ("socks-auth-failed", input(0x03, [0x05, 0x02, 0x01, 0x01])),
            ("socks-auth-bad-version", input(0x03, [0x05, 0x02, 0x05, 0x00])),
            ("socks-bad-address-type", input(0x01, [0x05, 0x00, 0x05, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0])),
            ("socks-end-of-stream-mid-reply", input(0x09, [0x05, 0x00, 0x05, 0x00, 0x00, 0x01, 127])),
            ("socks-http-answer", input(0x01, text("HTTP/1.1 400 Bad Request\r\n\r\n"))),
        ]
        for code: UInt8 in 1...9 {
            seeds.append(("socks-rep-\(code)", input(0x11, [0x05, 0x00, 0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0])))
        }
        return seeds
    }
}
