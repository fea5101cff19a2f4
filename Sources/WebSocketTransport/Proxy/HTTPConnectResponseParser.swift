// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// An incremental, bounded, linear-time parser for an HTTP proxy's answer to `CONNECT`: the status
/// line and header fields up to the empty line (RFC 9112 §2-§5), skipping interim 1xx heads.
///
/// Like the core's handshake parser, it looks at each byte once as it arrives, keeps only the current
/// line between calls and parses each line once when its end arrives, so the work is proportional to
/// the head however it is split; and it checks ``ProxyLimits/maxResponseHeadBytes`` before it stores
/// a byte. Each line's grammar is the core's (`HTTPLineParser`: status line, field line); the head
/// around them is its own, smaller than the core's `HTTPHeadParser`, which speaks the opening
/// handshake's vocabulary (`Limits`, the request side, body framing), none of which a tunnel needs,
/// and the tunnel's errors are ``ProxyError``s.
///
/// It never consumes past the empty line that ends the head: what follows belongs to the layer above
/// (the WebSocket opening handshake's response, or a TLS ServerHello).
struct HTTPConnectResponseParser: Sendable {
    enum Outcome: Sendable, Hashable {
        /// The head is not complete yet; every byte given was consumed.
        case needMore
        /// A 2xx final response: the tunnel is up.
        case established(status: Int)
        /// A refusal, or a reply that is not HTTP or exceeds a limit.
        case failed(ProxyError)
    }

    let limits: ProxyLimits

    /// The bytes of the current line so far, without its terminator.
    private var line: [UInt8] = []
    /// The previous byte was a CR, so this one must be LF.
    private var sawCR = false
    /// Every byte of the heads seen so far, terminators and interim heads included.
    private var headBytes = 0
    /// The status of the head being read, once its status line was parsed.
    private var status: Int?
    private var headers = Connection.HTTPHeaders()
    private var fieldCount = 0
    private var result: Outcome?

    #if DEBUG
    /// Work done so far: bytes scanned plus bytes handed to the line parser (for tests: linear in the
    /// input however it is split). Debug builds only: a release build carries nothing test-only.
    private(set) var workCount = 0
    #endif

    init(limits: ProxyLimits) {
        self.limits = limits
    }

    /// Bytes held for the head: the current line's buffer and the fields stored.
    var retainedByteCount: Int {
        line.capacity + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    /// Consumes bytes up to the end of the final head at most; returns how many it consumed and the
    /// outcome. After an outcome other than `needMore` it consumes nothing and returns it again.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, outcome: Outcome) {
        if let result { return (0, result) }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            #if DEBUG
            workCount += 1
            #endif
            guard headBytes < limits.maxResponseHeadBytes else {
                return finish(index, .failed(ProxyError(.responseTooLarge,
                                                        reason: "more than \(limits.maxResponseHeadBytes) bytes")))
            }
            headBytes += 1
            if sawCR {
                sawCR = false
                // RFC 9112 §2.2: "A recipient of such a bare CR MUST consider that element to be invalid".
                guard byte == 0x0A else { return finish(index, malformed("a CR not followed by LF")) }
                if let outcome = endOfLine() { return finish(index, outcome) }
                continue
            }
            switch byte {
            case 0x0D:
                sawCR = true
            case 0x0A:
                // RFC 9112 §2.2: "a recipient MAY recognize a single LF as a line terminator".
                if let outcome = endOfLine() { return finish(index, outcome) }
            default:
                if line.count == line.capacity {
                    // Geometric growth capped at the head's limit: the line never holds more.
                    line.reserveCapacity(min(max(64, 2 * line.capacity), max(line.count + 1, limits.maxResponseHeadBytes)))
                }
                line.append(byte)
            }
        }
        return (index, .needMore)
    }

    private func malformed(_ reason: String) -> Outcome {
        .failed(ProxyError(.malformedReply, reason: reason))
    }

    /// Handles a complete line; returns an outcome when the final head is complete or invalid.
    private mutating func endOfLine() -> Outcome? {
        defer {
            if line.capacity > 1024 { line = [] } else { line.removeAll(keepingCapacity: true) }
        }
        #if DEBUG
        workCount += line.count
        #endif
        guard let status else {
            // Empty lines before a status line are skipped (RFC 9112 §2.2), within the head's limit.
            if line.isEmpty { return nil }
            guard case .success(let parsed) = HTTPLineParser.statusLine(line[...]) else {
                return malformed("not an HTTP/1.x status line")
            }
            self.status = parsed.status
            return nil
        }
        if line.isEmpty { return completeHead(status) }
        guard fieldCount < limits.maxResponseHeaderCount else {
            return .failed(ProxyError(.responseTooLarge, reason: "more than \(limits.maxResponseHeaderCount) header fields"))
        }
        guard case .success(let field) = HTTPLineParser.field(line[...]) else { return malformed("not an HTTP header field") }
        headers.append(name: field.name, value: field.value)
        fieldCount += 1
        return nil
    }

    private mutating func completeHead(_ status: Int) -> Outcome? {
        switch status {
        case 200...299:
            // RFC 9110 §9.3.6: "A client MUST ignore any Content-Length or Transfer-Encoding header
            // fields received in a successful response to CONNECT." What follows is the tunnel's.
            return .established(status: status)
        case 100...199 where status != 101:
            // An interim response (RFC 9110 §15.2): the final one follows. Its bytes still count.
            self.status = nil
            headers = Connection.HTTPHeaders()
            fieldCount = 0
            return nil
        case 407:
            return .failed(ProxyError(.authenticationRequired, status: status, headers: headers))
        default:
            return .failed(ProxyError(.refused, status: status, headers: headers))
        }
    }

    private mutating func finish(_ consumed: Int, _ outcome: Outcome) -> (consumed: Int, outcome: Outcome) {
        result = outcome
        line = []
        headers = Connection.HTTPHeaders()
        return (consumed, outcome)
    }
}
