// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@testable import WebSocketCore

/// Helpers shared by the HTTP handshake tests.
enum HTTPTestSupport {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    /// The opening handshake request of RFC 6455 §1.2 (and §4.1), with CRLF line ends.
    static let sampleRequest = """
        GET /chat HTTP/1.1\r
        Host: server.example.com\r
        Upgrade: websocket\r
        Connection: Upgrade\r
        Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
        Origin: http://example.com\r
        Sec-WebSocket-Protocol: chat, superchat\r
        Sec-WebSocket-Version: 13\r
        \r

        """

    /// The server's answer of RFC 6455 §1.2.
    static let sampleResponse = """
        HTTP/1.1 101 Switching Protocols\r
        Upgrade: websocket\r
        Connection: Upgrade\r
        Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r
        Sec-WebSocket-Protocol: chat\r
        \r

        """

    /// Feeds `input` to `parser` in pieces ending at `cuts` (ascending offsets), stopping at the first
    /// final outcome. Returns the total consumed and the outcome.
    static func feed(_ parser: inout HTTPHeadParser, _ input: [UInt8], cuts: [Int]) -> (consumed: Int, outcome: HTTPHeadParser.Outcome) {
        var start = 0
        var total = 0
        for end in cuts + [input.count] where end >= start {
            let (consumed, outcome) = parser.consume(input[start..<end])
            total += consumed
            if outcome != .needMore {
                return (total, outcome)
            }
            // needMore means every byte given was consumed.
            if consumed != end - start { return (total, .failure(.malformedHeader)) }
            start = end
        }
        return (total, .needMore)
    }

    /// Parses `input` in one piece.
    static func parse(_ input: String, kind: HTTPHeadParser.Kind = .request,
                      limits: Connection.Limits = Connection.Limits()) -> HTTPHeadParser.Outcome {
        var parser = HTTPHeadParser(kind: kind, limits: limits)
        return parser.consume(bytes(input)).outcome
    }

    static func requestHead(_ input: String) -> Connection.HTTPRequestHead? {
        if case .request(let head) = parse(input) { return head }
        return nil
    }

    static func responseHead(_ input: String) -> Connection.HTTPResponseHead? {
        if case .response(let head) = parse(input, kind: .response) { return head }
        return nil
    }

    /// The string with every CR removed, so that CRLF line ends become bare LFs.
    static func removingCR(_ s: String) -> String {
        String(decoding: s.utf8.filter { $0 != 0x0D }, as: UTF8.self)
    }

    /// The string with every occurrence of `target` replaced (no Foundation).
    static func replacing(_ target: String, with replacement: String, in s: String) -> String {
        var out = ""
        var rest = s[...]
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// Returns the given words in order, so that keys are known in advance.
    struct ScriptedGenerator: RandomNumberGenerator {
        var words: [UInt64]
        mutating func next() -> UInt64 { words.isEmpty ? 0 : words.removeFirst() }
    }
}
