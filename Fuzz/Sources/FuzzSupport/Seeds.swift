// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The seed corpora, as code: the RFC 6455 examples, the frame and handshake vectors of
/// Tests/WebSocketCoreTests, and hand-made edge cases, each in the input format of its target.
/// `Fuzz/run.sh --write-seeds` writes them to Fuzz/Corpus/<target>/, which is checked in.
public enum Seeds {
    /// With WEBSOCKET_FUZZ_WRITE_SEEDS=DIR set, writes the target's seeds to DIR and exits.
    public static func writeIfRequested(target: String) {
        guard let variable = getenv("WEBSOCKET_FUZZ_WRITE_SEEDS") else { return }
        let directory = String(cString: variable)
        let seeds = corpus(for: target)
        for (name, bytes) in seeds {
            let path = directory + "/" + name
            guard let file = fopen(path, "wb") else {
                print("cannot write \(path)")
                exit(1)
            }
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }
        print("\(target): wrote \(seeds.count) seeds to \(directory)")
        exit(0)
    }

    public static func corpus(for target: String) -> [(String, [UInt8])] {
        switch target {
        case "frame-server": return frameServer
        case "frame-client": return frameClient
        case "http-request": return httpRequest
        case "http-response": return httpResponse
        case "connection-server", "connection-client": return connection
        case "deflate": return deflate
        case "tls-server": return TLSSeeds.server
        case "tls-client": return TLSSeeds.client
        case "proxy-response": return ProxySeeds.all
        case "proxy-protocol": return ProxyProtocolSeeds.all
        case "resp": return RESPSeeds.all
        default: return []
        }
    }

    // MARK: Frames

    static let hello = Array("Hello".utf8)
    /// The key of Tests/WebSocketCoreTests/Support.swift `clientFrame`.
    static let testKey: [UInt8] = [0x11, 0x22, 0x33, 0x44]

    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, key: [UInt8]? = nil) -> [UInt8] {
        WireEncoder.frame(firstByte: (fin ? 0x80 : 0) | rsv | opcode, payload: payload, key: key)
    }

    static func masked(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        frame(opcode, payload, fin: fin, rsv: rsv, key: testKey)
    }

    /// A frame-target input: control byte, split point, bytes.
    static func frameInput(_ control: UInt8, _ bytes: [UInt8], split: Int = 0) -> [UInt8] {
        [control, UInt8((split >> 8) & 0xFF), UInt8(split & 0xFF)] + bytes
    }

    static let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]

    /// Frames of RFC 6455 §5.7 and of the framing tests, unmasked (as a server writes them, or as the
    /// frame-stream format of the targets takes them).
    static let unmaskedExamples: [(String, [UInt8])] = [
        ("rfc6455-5.7-single-frame-unmasked-hello", [0x81, 0x05] + hello),
        ("rfc6455-5.7-fragmented-unmasked-hello", [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]),
        ("rfc6455-5.7-unmasked-ping-hello", [0x89, 0x05] + hello),
        ("rfc6455-5.7-256-bytes-binary", [0x82, 0x7E, 0x01, 0x00] + (0..<256).map { UInt8($0) }),
        ("rfc6455-5.7-64KiB-binary-header", [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] + Array(repeating: 0x42, count: 32)),
        ("length-boundaries-125-126-127", frame(0x2, Array(repeating: 1, count: 125)) + frame(0x2, Array(repeating: 2, count: 126))
            + frame(0x2, Array(repeating: 3, count: 127))),
        ("length-non-minimal-16-bit", [0x81, 0x7E, 0x00, 0x05] + hello),
        ("interleaved-control-frames", frame(0x1, Array("Hel".utf8), fin: false) + frame(0x9, [1, 2]) + frame(0xA, [3])
            + frame(0x0, Array("lo".utf8))),
        ("empty-messages", frame(0x1, []) + frame(0x2, []) + frame(0x9, []) + frame(0xA, [])),
        ("text-kosme-in-two-frames", frame(0x1, Array(("Hello ".utf8)) + kosme.prefix(3), fin: false) + frame(0x0, Array(kosme.dropFirst(3)))),
        ("close-1000-bye", frame(0x8, [0x03, 0xE8] + Array("bye".utf8))),
        ("close-empty", frame(0x8, [])),
    ]

    /// The violations of ProtocolViolationTests (and LimitsTests), for a server: `(name, control, bytes)`.
    static let serverViolations: [(String, UInt8, [UInt8])] = [
        ("rsv1-without-extension", 0, masked(0x1, [0x41], rsv: 0x40)),
        ("rsv2", 0, masked(0x2, [], rsv: 0x20)),
        ("opcode-3", 0, masked(0x3, [])),
        ("unmasked-client-frame", 0, frame(0x1, [0x41])),
        ("length-64-bit-top-bit-set", 0, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01, 1, 2, 3, 4]),
        ("length-2^62-then-silence", 0, [0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
        ("frame-over-limit-header-only", 0x04, [0x82, 0xFE, 0x03, 0xE9, 1, 2, 3, 4]),
        ("message-over-limit", 0x04, masked(0x2, Array(repeating: 1, count: 290), fin: false) + masked(0x0, Array(repeating: 2, count: 290), fin: false)
            + masked(0x0, Array(repeating: 3, count: 290), fin: false) + Array(masked(0x0, Array(repeating: 4, count: 200)).prefix(8))),
        ("fragmented-ping", 0, masked(0x9, [], fin: false)),
        ("ping-126-bytes", 0, masked(0x9, Array(repeating: 0, count: 126))),
        ("continuation-without-message", 0, masked(0x0, [0x41])),
        ("new-message-inside-fragmented", 0, masked(0x1, [0x41], fin: false) + masked(0x1, [0x42])),
        ("invalid-utf8", 0, masked(0x1, [0x41, 0xFF])),
        ("utf8-surrogate", 0, masked(0x1, [0xED, 0xA0, 0x80])),
        ("utf8-fail-fast-mid-frame", 0, Array(masked(0x1, kosme + [0xF4, 0x90] + Array(repeating: 0x41, count: 87)).prefix(19))),
        ("utf8-fail-fast-across-fragments", 0, masked(0x1, [0xF0, 0x9F], fin: false) + masked(0x0, [0x41], fin: false)),
        ("close-1-byte", 0, masked(0x8, [0x03])),
        ("close-code-999", 0, masked(0x8, [0x03, 0xE7])),
        ("close-code-1004", 0, masked(0x8, [0x03, 0xEC])),
        ("close-code-1006", 0, masked(0x8, [0x03, 0xEE])),
        ("close-code-1015", 0, masked(0x8, [0x03, 0xF7])),
        ("close-code-2999", 0, masked(0x8, [0x0B, 0xB7])),
        ("close-code-5000", 0, masked(0x8, [0x13, 0x88])),
        ("close-code-65535", 0, masked(0x8, [0xFF, 0xFF])),
        ("close-reason-not-utf8", 0, masked(0x8, [0x03, 0xE8, 0xCE])),
        ("close-code-4999-valid", 0, masked(0x8, [0x13, 0x87] + Array("bye".utf8))),
        ("hundred-one-byte-fragments", 0x04, masked(0x2, [0], fin: false) + (1..<100).flatMap { _ in masked(0x0, [0], fin: false) }),
        ("data-after-close", 0, masked(0x8, [0x03, 0xE8]) + masked(0x1, [0x41])),
    ]

    static var frameServer: [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = [
            ("rfc6455-5.7-single-frame-masked-hello", frameInput(0, [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])),
            ("rfc6455-5.7-masked-pong-hello", frameInput(0, [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])),
            ("keys-from-input", frameInput(0x18, [0x81, 0x05, 0x37, 0xFA, 0x21, 0x3D] + hello + [0x89, 0x01, 1, 2, 3, 4, 0x2A])),
            ("fragment-delivery-kosme", frameInput(0x01, masked(0x1, Array("Hello ".utf8) + kosme.prefix(3), fin: false) + masked(0x0, Array(kosme.dropFirst(3))), split: 9)),
            ("end-of-stream-mid-frame", frameInput(0x20, Array(masked(0x2, Array(repeating: 7, count: 100)).prefix(20)))),
            ("close-first-then-reply", frameInput(0x40, masked(0x9, [1]) + masked(0x8, [0x03, 0xE8]))),
            ("automatic-pongs-off", frameInput(0x02, masked(0x9, hello) + masked(0x9, []))),
            ("one-byte-pieces-fragment-delivery", frameInput(0x01, masked(0x2, Array(repeating: 9, count: 40)), split: 20)),
        ]
        seeds += unmaskedExamples.map { ("frames-to-mask-" + $0.0, frameInput(0x08, $0.1, split: 3)) }
        seeds += serverViolations.map { ("violation-" + $0.0, frameInput($0.1, $0.2, split: 5)) }
        return seeds
    }

    static var frameClient: [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = [
            ("violation-masked-server-frame", frameInput(0, frame(0x1, [0x41], key: [1, 2, 3, 4]))),
            ("violation-rsv3-on-ping", frameInput(0, frame(0x9, [], rsv: 0x10))),
            ("violation-opcode-0xB", frameInput(0, frame(0xB, []))),
            ("violation-close-126-bytes", frameInput(0, frame(0x8, [0x03, 0xE8] + Array(repeating: 0x41, count: 124)))),
            ("violation-text-ends-inside-sequence", frameInput(0, frame(0x1, [0xE2, 0x82]))),
            ("violation-close-code-1005", frameInput(0, frame(0x8, [0x03, 0xED]))),
            ("violation-length-64-bit-top-bit-set", frameInput(0, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0x01])),
            ("violation-length-2^62-then-silence", frameInput(0, [0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0])),
            ("violation-hundred-one-byte-fragments", frameInput(0x04, frame(0x2, [0], fin: false) + (1..<100).flatMap { _ in frame(0x0, [0], fin: false) })),
            ("fragment-delivery-kosme", frameInput(0x01, frame(0x1, Array("Hello ".utf8) + kosme.prefix(3), fin: false) + frame(0x0, Array(kosme.dropFirst(3))), split: 9)),
            ("end-of-stream-mid-frame", frameInput(0x20, Array(frame(0x2, Array(repeating: 7, count: 100)).prefix(20)))),
            ("close-first-then-reply", frameInput(0x40, frame(0x9, [1]) + frame(0x8, [0x03, 0xE8]))),
            ("automatic-pongs-off", frameInput(0x02, frame(0x9, hello))),
            ("frames-to-unmask-masked-hello", frameInput(0x08, [0x81, 0x85] + hello)),
        ]
        seeds += unmaskedExamples.map { ($0.0, frameInput(0, $0.1, split: 3)) }
        return seeds
    }

    // MARK: HTTP

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// RFC 6455 §1.2 (and §4.1), as in Tests/WebSocketCoreTests/HTTPTestSupport.swift.
    static let sampleRequest = "GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: http://example.com\r\nSec-WebSocket-Protocol: chat, superchat\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n"
    static let sampleResponse = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n\r\n"
    static let minimalHeaders = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

    static func request(_ s: String, control: UInt8 = 0, split: Int = 0) -> [UInt8] {
        frameInput(control, text(s), split: split)
    }

    static var httpRequest: [(String, [UInt8])] {
        let lf = String(decoding: text(sampleRequest).filter { $0 != 0x0D }, as: UTF8.self)
        return [
            ("rfc6455-1.2-request", request(sampleRequest, split: 30)),
            ("rfc6455-1.2-request-then-masked-hello", frameInput(0, text(sampleRequest) + [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])),
            ("rfc6455-1.2-request-then-ping-and-close", frameInput(0x02, text(sampleRequest) + masked(0x9, [1]) + masked(0x8, [0x03, 0xE8]))),
            ("request-rejected-403", request(sampleRequest, control: 0x10)),
            ("request-bare-lf", request(lf)),
            ("request-leading-empty-lines", request("\r\n\n\r\n" + sampleRequest)),
            ("request-absolute-form", request("GET ws://example.com/chat?x=1#frag HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\n\r\n")),
            ("request-extensions-offered", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, x-webkit-deflate-frame\r\n"
                + "Sec-WebSocket-Extensions: x-a; p=\"quoted\"; q=1\r\n\r\n", control: 0x12)),
            // RFC 6455 §9.1: a quoted value must unescape to a token.
            ("request-extension-quoted-tokens-echoed", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Extensions: x-q; a=\"10\"; b=\"a\\bc\"; c\r\n\r\n", control: 0x12)),
            ("request-post-405", request("POST / HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("request-version-8-426", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 8\r\n\r\n")),
            ("request-short-key-400", request("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n")),
            ("request-http10-505", request("GET / HTTP/1.0\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\n\r\n")),
            ("request-http2-version", request("GET / HTTP/2.0\r\nHost: a\r\n\r\n")),
            ("request-no-upgrade-426", request("GET / HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("request-obs-fold", request("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n")),
            ("request-two-hosts", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Host: y\r\nSec-WebSocket-Version: 13\r\n\r\n")),
            ("request-content-length", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\nContent-Length: 5\r\n\r\nhello")),
            ("request-transfer-encoding", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\nTransfer-Encoding: chunked\r\n\r\n")),
            ("request-bad-subprotocol", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: a b, \r\n\r\n")),
            ("request-bad-extension", request("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: x; =1\r\n\r\n")),
            ("request-obs-text-value", frameInput(0, text("GET / HTTP/1.1\r\n" + minimalHeaders + "Sec-WebSocket-Version: 13\r\nX: caf") + [0xE9, 0xFF] + text("\r\n\r\n"))),
            ("request-malformed-header", request("GET / HTTP/1.1\r\nHost : a\r\n\r\n")),
            ("request-bare-cr", request("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n")),
            ("request-line-too-long-414", request("GET /" + String(repeating: "a", count: 120) + " HTTP/1.1\r\nHost: a\r\n\r\n", control: 0x04)),
            ("request-too-many-headers-431", request("GET / HTTP/1.1\r\n" + String(repeating: "X-A: b\r\n", count: 12) + "\r\n", control: 0x04)),
            ("request-head-too-large-431", request("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "v", count: 700) + "\r\n\r\n", control: 0x04)),
            ("request-end-of-stream-midway", request("GET /chat HTTP/1.1\r\nHost: serv", control: 0x20)),
        ]
    }

    static func response(_ s: String, control: UInt8 = 0, split: Int = 0) -> [UInt8] {
        frameInput(control, text(s), split: split)
    }

    static var httpResponse: [(String, [UInt8])] {
        let accepted = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        return [
            ("rfc6455-1.2-response", response(sampleResponse, control: 0x02, split: 20)),
            ("rfc6455-1.2-response-subprotocol-not-offered", response(sampleResponse)),
            ("response-then-unmasked-frames", frameInput(0, text(accepted + "\r\n") + [0x81, 0x02, 0x68, 0x69] + frame(0x9, [7]) + frame(0x8, [0x03, 0xE8]))),
            ("response-then-masked-frame", frameInput(0, text(accepted + "\r\n") + [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])),
            ("response-103-then-101", response("HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + accepted + "\r\n")),
            ("response-wrong-accept", response("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n")),
            ("response-extension-accepted", response(accepted + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=10\r\n\r\n", control: 0x02)),
            ("response-extension-not-offered", response(accepted + "Sec-WebSocket-Extensions: x-other\r\n\r\n", control: 0x02)),
            ("response-http10-101", response("HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")),
            ("response-404-content-length", response("HTTP/1.1 404 Not Found\r\nContent-Length: 11\r\n\r\nhello worldEXTRA")),
            ("response-403-chunked", response("HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\nEXTRA")),
            ("response-chunked-bare-lf", response("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: gzip, chunked\r\n\r\nA\nabcdefghij\n1a\r\nABCDEFGHIJKLMNOPQRSTUVWXYZ\r\n0\n\n")),
            ("response-chunk-extension-and-trailer", response("HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\n")),
            ("response-chunk-size-overflow", response("HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nffffffffffffffffffff\r\nab")),
            ("response-until-close", response("HTTP/1.1 500 Internal Server Error\r\n\r\npart one, part two", control: 0x20)),
            ("response-not-chunked-coding-until-close", response("HTTP/1.1 502 Bad Gateway\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef", control: 0x20)),
            ("response-204-no-body", response("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\nignored")),
            ("response-304-no-body", response("HTTP/1.1 304 Not Modified\r\n\r\n")),
            ("response-content-length-list", response("HTTP/1.1 404 Not Found\r\nContent-Length: 3, 3\r\n\r\nabc")),
            ("response-content-length-invalid", response("HTTP/1.1 404 Not Found\r\nContent-Length: -3\r\n\r\nabc", control: 0x20)),
            ("response-body-over-limit", frameInput(0x04, text("HTTP/1.1 404 Not Found\r\nContent-Length: 300\r\n\r\n") + Array(repeating: 0x61, count: 300))),
            ("response-malformed-status", response("HTTP/1.1 1011 Long\r\n\r\n")),
            ("response-status-no-reason", response("HTTP/1.1 403\r\n\r\n")),
            ("response-end-of-stream-in-head", response("HTTP/1.1 101 Switching", control: 0x20)),
        ]
    }

    // MARK: Connection scripts

    static func count(_ bytes: [UInt8]) -> UInt8 { UInt8(min(255, bytes.count)) }
    static func raw(_ b: [UInt8]) -> [UInt8] { [0x00, count(b)] + b }
    static func amplified(_ firstByte: UInt8, _ length: Int, fill: UInt8, big: Bool = false) -> [UInt8] {
        [0x01 | (big ? 0x80 : 0), firstByte, UInt8(length >> 8), UInt8(length & 0xFF), fill]
    }
    static func peerText(_ s: String) -> [UInt8] { [0x02, 0x00, count(text(s))] + text(s) }
    static func peerBinary(_ b: [UInt8]) -> [UInt8] { [0x02, 0x01, count(b)] + b }
    static func peerBigBinary(_ length: Int, big: Bool = false) -> [UInt8] {
        [0x02 | (big ? 0x80 : 0), 0x02, UInt8(length >> 8), UInt8(length & 0xFF), 7]
    }
    static func peerPing(_ p: [UInt8]) -> [UInt8] { [0x02, 0x04, count(p)] + p }
    static func peerClose(_ codeIndex: UInt8, _ reason: String) -> [UInt8] { [0x02, 0x06, codeIndex, count(text(reason))] + text(reason) }
    static func peerFragment(_ s: String, text isText: Bool, final: Bool) -> [UInt8] {
        [0x02, 0x07 | (isText ? 0x80 : 0) | (final ? 0x40 : 0), count(text(s))] + text(s)
    }
    static func sendText(_ s: String) -> [UInt8] { [0x03, count(text(s))] + text(s) }
    static func sendBigText(_ length: Int, fill: Character) -> [UInt8] {
        [0x13, UInt8(length >> 8), UInt8(length & 0xFF), fill.asciiValue ?? 0x61]
    }
    static func sendBinary(_ b: [UInt8]) -> [UInt8] { [0x04, count(b)] + b }
    /// The same sends as a `PreparedMessage` (flag B).
    static func sendPrepared(_ s: String) -> [UInt8] { [0x23, count(text(s))] + text(s) }
    static func sendPreparedBigText(_ length: Int, fill: Character) -> [UInt8] {
        [0x33, UInt8(length >> 8), UInt8(length & 0xFF), fill.asciiValue ?? 0x61]
    }
    static func sendPreparedBinary(_ b: [UInt8]) -> [UInt8] { [0x24, count(b)] + b }
    static func sendFragment(_ b: [UInt8], text isText: Bool, final: Bool) -> [UInt8] {
        [0x05 | (isText ? 0x10 : 0) | (final ? 0x20 : 0), count(b)] + b
    }
    static func ping(_ p: [UInt8]) -> [UInt8] { [0x06, count(p)] + p }
    static func pong(_ p: [UInt8]) -> [UInt8] { [0x07, count(p)] + p }
    static func close(_ codeIndex: UInt8, _ reason: String) -> [UInt8] { [0x08, codeIndex, count(text(reason))] + text(reason) }
    static func closeCode(_ code: UInt16, _ reason: String) -> [UInt8] {
        [0x18, UInt8(code >> 8), UInt8(code & 0xFF), count(text(reason))] + text(reason)
    }
    /// Steps of Session.milliseconds: 6 is 1 s, 10 is 3 s, 12 is 5 s.
    static func advance(_ step: UInt8) -> [UInt8] { [0x09, step] }
    static let take: [UInt8] = [0x0A]
    static func partialWrite(_ n: Int) -> [UInt8] { [0x0B, UInt8(n >> 8), UInt8(n & 0xFF)] }
    static let endOfStream: [UInt8] = [0x0C]
    static let toDeadline: [UInt8] = [0x1D]
    static func backwards(_ ms: UInt8) -> [UInt8] { [0x2D, ms] }
    static let peerReplies: [UInt8] = [0x0E]
    static let fork: [UInt8] = [0x0F]

    static func script(_ control: UInt8, fragmentation: UInt8 = 0, split: UInt8 = 17, _ operations: [[UInt8]]) -> [UInt8] {
        [control, fragmentation, split] + operations.flatMap { $0 }
    }

    static var connection: [(String, [UInt8])] {
        [
            ("echo", script(0, [peerText("Hello"), sendText("Hello"), take, peerReplies])),
            ("ping-and-automatic-pong", script(0, [ping([1, 2, 3]), take, peerReplies, peerPing([4]), take])),
            ("closing-handshake-local", script(0, [close(0, "bye"), take, peerReplies, take])),
            ("closing-handshake-remote", script(0, [peerClose(0, "done"), take, peerReplies])),
            ("close-code-raw-invalid", script(0, [closeCode(1005, ""), closeCode(999, "x"), closeCode(4999, "ok"), take])),
            ("keepalive-timeout", script(0x10, [advance(0), advance(6), take, advance(10), take])),
            ("keepalive-answered", script(0x10, [advance(0), advance(6), take, peerReplies, advance(6), take, peerReplies, toDeadline])),
            ("close-while-streaming", script(0, [sendFragment([1, 2, 3], text: false, final: false), take, peerClose(1, "away"),
                                                  ping([9]), sendFragment([4], text: false, final: true), take, peerReplies])),
            ("close-timeout", script(0, [close(0, ""), take, advance(12), advance(1)])),
            ("close-timeout-while-streaming", script(0, [sendFragment(text("κ"), text: true, final: false), peerClose(0, ""), advance(0), advance(12)])),
            ("fragmented-output", script(0x08, fragmentation: 5, [sendBigText(2000, fill: "a"), sendBinary([1, 2, 3]), take])),
            ("fragmented-output-one-byte-frames", script(0x08, fragmentation: 0, [sendText("Hello"), sendFragment([1, 2, 3], text: false, final: true), take])),
            ("peer-message-over-limit", script(0, [peerBigBinary(0xFFFF), peerBigBinary(0xFFFF, big: true)])),
            // 67,584 bytes: the 64-bit length form, within the amplification budget.
            ("peer-frame-64-bit-length", script(0, [peerBigBinary(0x5800, big: true)])),
            ("peer-fragments-over-count", script(0x04, (0..<10).map { _ in peerFragment("a", text: true, final: false) })),
            ("amplified-frame", script(0, [amplified(0x82, 0x3000, fill: 0x41), amplified(0x81, 0x4000, fill: 0x42, big: true)])),
            ("raw-frames-to-mask", script(0x20, [raw([0x81, 0x05] + hello), raw([0x89, 0x00]), raw([0x88, 0x02, 0x03, 0xE8])])),
            ("raw-garbage", script(0, [raw([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])])),
            ("partial-writes", script(0, [sendText("Hello, partial world"), partialWrite(3), partialWrite(5), partialWrite(100)])),
            ("end-of-stream", script(0, [peerText("last"), endOfStream, sendText("too late")])),
            ("fork", script(0, [peerPing([1]), fork, take])),
            ("pings-while-output-backed-up", script(0x04, (0..<20).map { _ in peerPing(Array(repeating: 0x70, count: 100)) })),
            ("fragment-delivery", script(0x01, [peerFragment("Hel", text: true, final: false), peerPing([]), peerFragment("lo", text: true, final: true)])),
            ("time-backwards", script(0x10, [advance(0x25), backwards(5), advance(3)])),
            ("misuse-throws", script(0, [close(0, ""), sendText("x"), ping(Array(repeating: 1, count: 126)), pong([]),
                                        sendFragment([0xC0, 0x80], text: true, final: true), close(0, "again")])),
            ("send-then-peer-close", script(0, [sendBinary([1, 2, 3]), pong([5]), peerClose(13, "bye"), take])),
            ("prepared-messages", script(0, [sendPrepared("Hello"), sendPreparedBinary([1, 2, 3]), partialWrite(3),
                                             sendPrepared("after a partial write"), sendText("plain"), take, peerReplies])),
            ("prepared-fragmented", script(0x08, fragmentation: 5, [sendPreparedBigText(2000, fill: "a"), sendPrepared("b"), take])),
            ("prepared-misuse", script(0, [sendFragment([1], text: false, final: false), sendPrepared("mid-message"),
                                           sendFragment([2], text: false, final: true), close(0, ""), sendPrepared("after close"), take])),
        ]
    }

    // MARK: permessage-deflate

    /// RFC 7692 §7.2.3.1: "Hello" compressed (one block, BFINAL 0, the tail removed).
    static let helloCompressed: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    /// §7.2.3.2: the second "Hello" with context takeover, a back reference into the first.
    static let helloAgain: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]
    /// §7.2.3.3: "Hello" in a stored (uncompressed) block.
    static let helloStored: [UInt8] = [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]
    /// §7.2.3.4: "Hello" in a block with BFINAL set, then an empty stored block.
    static let helloFinal: [UInt8] = [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]
    /// §7.2.3.5: "He" and "llo" in two blocks, the first flushed.
    static let helloTwoBlocks: [UInt8] = [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00]

    /// 64 KiB of zeros, compressed (raw deflate, level 9, the tail removed).
    static let bomb64KiB: [UInt8] = [0xEC, 0xC1, 0x01, 0x01, 0x00, 0x00, 0x00, 0x80, 0x90, 0xFE, 0xAF, 0xEE, 0x08, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6A, 0x00]

    /// A deflate-target input: control, windows (peer low nibble, ours high: n → 8 + n), split, bytes.
    static func deflateInput(_ control: UInt8, windows: UInt8 = 0x77, split: Int = 0, _ bytes: [UInt8]) -> [UInt8] {
        [control, windows, UInt8((split >> 8) & 0xFF), UInt8(split & 0xFF)] + bytes
    }

    /// A message of the deflate target's message mode.
    static func deflateMessage(_ bytes: [UInt8], binary: Bool = false, uncompressed: Bool = false, fragments: Int = 1,
                               repeats: UInt8? = nil, fork: Bool = false) -> [UInt8] {
        let flags = (binary ? 0x01 : 0) | (uncompressed ? 0x02 : 0) | UInt8((fragments - 1) & 0x03) << 2
            | (repeats == nil ? 0 : 0x10) | (fork ? 0x20 : 0)
        return [UInt8(flags)] + (repeats.map { [$0] } ?? []) + [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    static var deflate: [(String, [UInt8])] {
        let rsv1Text: UInt8 = 0xC1
        return [
            // Raw mode, client under test (unmasked frames).
            ("rfc7692-7.2.3.1-hello", deflateInput(0, frame(0x1, helloCompressed, rsv: 0x40))),
            ("rfc7692-7.2.3.2-context-takeover", deflateInput(0, frame(0x1, helloCompressed, rsv: 0x40) + frame(0x1, helloAgain, rsv: 0x40))),
            ("rfc7692-7.2.3.2-no-context-takeover", deflateInput(0x08, frame(0x1, helloCompressed, rsv: 0x40) + frame(0x1, helloCompressed, rsv: 0x40))),
            ("rfc7692-7.2.3.3-stored-block", deflateInput(0, frame(0x1, helloStored, rsv: 0x40))),
            ("rfc7692-7.2.3.4-bfinal", deflateInput(0, frame(0x1, helloFinal, rsv: 0x40) + frame(0x1, helloCompressed, rsv: 0x40))),
            ("rfc7692-7.2.3.5-two-blocks", deflateInput(0, frame(0x1, helloTwoBlocks, rsv: 0x40))),
            ("rfc7692-fragmented-compressed", deflateInput(0x02, split: 5, [rsv1Text & 0x7F | 0x40, 0x03] + helloCompressed.prefix(3)
                + frame(0x0, Array(helloCompressed.dropFirst(3))))),
            ("rsv1-on-continuation", deflateInput(0, frame(0x1, Array(helloCompressed.prefix(3)), fin: false, rsv: 0x40)
                + frame(0x0, Array(helloCompressed.dropFirst(3)), rsv: 0x40))),
            ("rsv1-on-ping", deflateInput(0, frame(0x9, [1], rsv: 0x40))),
            ("uncompressed-between", deflateInput(0, frame(0x1, helloCompressed, rsv: 0x40) + frame(0x2, [1, 2, 3]) + frame(0x1, helloAgain, rsv: 0x40))),
            ("trailing-garbage", deflateInput(0, frame(0x1, helloFinal + [0xFF, 0xFF, 0xFF], rsv: 0x40))),
            ("truncated-stream", deflateInput(0, frame(0x1, Array(helloCompressed.prefix(3)), rsv: 0x40))),
            ("invalid-block-type", deflateInput(0, frame(0x1, [0x07, 0x00], rsv: 0x40))),
            // 64 KiB of zeros in 79 bytes, against the tight 1000-byte message limit.
            ("bomb-64KiB-zeros-tight", deflateInput(0x04, frame(0x2, bomb64KiB, rsv: 0x40))),
            ("window-9-server", deflateInput(0x01, windows: 0x11, frame(0x1, helloCompressed, rsv: 0x40) + frame(0x1, helloAgain, rsv: 0x40))),
            ("end-of-stream-mid-message", deflateInput(0x20, frame(0x1, Array(helloCompressed.prefix(2)), fin: false, rsv: 0x40))),
            // Message mode.
            ("messages-round-trip", deflateInput(0x40, deflateMessage(hello) + deflateMessage(hello) + deflateMessage(kosme, fragments: 3)
                + deflateMessage([0, 1, 2, 3, 255], binary: true) + deflateMessage([], binary: true) + deflateMessage(hello, uncompressed: true))),
            ("messages-no-context-takeover-window-8", deflateInput(0x59, windows: 0x00, deflateMessage(hello) + deflateMessage(hello, fork: true)
                + deflateMessage(Array("abcabcabc".utf8), repeats: 4))),
            ("messages-fork-mid-stream", deflateInput(0x40, deflateMessage(hello) + deflateMessage(hello, fork: true) + deflateMessage(hello))),
            ("messages-over-tight-limit", deflateInput(0x46, deflateMessage(Array(repeating: 0x41, count: 64), repeats: 1)
                + deflateMessage(hello))),
            ("messages-big-repeated", deflateInput(0x41, windows: 0x3C, deflateMessage((0..<255).map { UInt8($0) }, binary: true, fragments: 4, repeats: 16))),
        ]
    }
}
