// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable @_spi(Testing) import WebSocketTransport

/// The SOCKS5 tunnel (RFC 1928, RFC 1929) against a scripted proxy, at every split of the proxy's
/// byte stream.
@Suite struct SOCKS5_RFC1928 {
    static let greeting: [UInt8] = [0x05, 0x01, 0x00]
    static let greetingWithCredentials: [UInt8] = [0x05, 0x02, 0x00, 0x02]
    /// CONNECT example.com:443, ATYP 3.
    static let request: [UInt8] = [0x05, 0x01, 0x00, 0x03, 11] + bytes("example.com") + [0x01, 0xBB]
    /// A success reply bound to 192.0.2.1:4321.
    static let success: [UInt8] = [0x05, 0x00, 0x00, 0x01, 192, 0, 2, 1, 0x10, 0xE1]
    static let after = bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n")

    /// Runs a tunnel made by `make` against `steps`, at every split; every run must give the same.
    static func everySplit(_ make: () throws -> SOCKS5Tunnel, _ steps: [ScriptedProxy.Step], after: [UInt8] = [],
                           early: [UInt8] = [], late: [UInt8] = [], eof: Bool = false) throws -> TunnelRun {
        let proxy = ScriptedProxy(steps)
        let total = steps.reduce(0) { $0 + $1.reply.count } + after.count
        var first: TunnelRun?
        for cuts in Cuts.all(count: total) {
            var layer = try make()
            let run = runTunnel(&layer, proxy: proxy, after: after, cuts: cuts, early: early, late: late, eof: eof) { layer in
                #expect(layer.bufferedReplyByteCount <= 262)
            }
            #expect(run.violation == nil, "\(cuts)")
            if let first {
                #expect(run == first, "\(cuts)")
            } else {
                first = run
            }
        }
        return first!
    }

    static func plain() throws -> SOCKS5Tunnel { try SOCKS5Tunnel(host: "example.com", port: 443) }

    @Test("No authentication, a name (ATYP 3), every bound address type; the bytes after the reply are passed up",
          arguments: [
            [0x05, 0x00, 0x00, 0x01, 192, 0, 2, 1, 0x10, 0xE1],
            [0x05, 0x00, 0x00, 0x04] + [UInt8](repeating: 0, count: 15) + [1, 0x00, 0x50],
            [0x05, 0x00, 0x00, 0x03, 5] + bytes("proxy") + [0x04, 0x38],
            [0x05, 0x00, 0x00, 0x03, 0, 0x00, 0x00],
            [0x05, 0x00, 0x7F, 0x01, 0, 0, 0, 0, 0, 0],  // RSV is not checked
          ] as [[UInt8]])
    func noAuthentication(reply: [UInt8]) throws {
        let run = try Self.everySplit(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0x00]),
                                                   .init(expect: Self.request, reply: reply)],
                                      after: Self.after, early: bytes("GET /"), late: bytes(" more"))
        #expect(run.status == .established)
        #expect(run.readUp == Self.after)
        #expect(run.tunnelData == bytes("GET / more"))
    }

    @Test("Username/password (RFC 1929)")
    func usernamePassword() throws {
        let credentials = ProxyCredentials(user: "alice", password: "s3cret")
        let authentication: [UInt8] = [0x01, 5] + bytes("alice") + [6] + bytes("s3cret")
        let run = try Self.everySplit({ try SOCKS5Tunnel(host: "example.com", port: 443, credentials: credentials) },
                                      [.init(expect: Self.greetingWithCredentials, reply: [0x05, 0x02]),
                                       .init(expect: authentication, reply: [0x01, 0x00]),
                                       .init(expect: Self.request, reply: Self.success)],
                                      after: Self.after, early: bytes("early"))
        #expect(run.status == .established)
        #expect(run.readUp == Self.after)
        #expect(run.tunnelData == bytes("early"))

        // The proxy may choose no authentication although credentials were offered.
        let direct = try Self.everySplit({ try SOCKS5Tunnel(host: "example.com", port: 443, credentials: credentials) },
                                         [.init(expect: Self.greetingWithCredentials, reply: [0x05, 0x00]),
                                          .init(expect: Self.request, reply: Self.success)])
        #expect(direct.status == .established)
    }

    @Test("An address is sent as ATYP 1 or 4")
    func addresses() throws {
        var ipv4 = try SOCKS5Tunnel(host: "192.0.2.7", port: 80)
        ipv4.receive([0x05, 0x00])
        #expect(ipv4.takeOutput() == Self.greeting + [0x05, 0x01, 0x00, 0x01, 192, 0, 2, 7, 0x00, 0x50])
        var ipv6 = try SOCKS5Tunnel(host: "[2001:db8::1]", port: 443)
        ipv6.receive([0x05, 0x00])
        #expect(ipv6.takeOutput() == Self.greeting + [0x05, 0x01, 0x00, 0x04, 0x20, 0x01, 0x0D, 0xB8]
                + [UInt8](repeating: 0, count: 11) + [1, 0x01, 0xBB])
    }

    @Test("Every REP other than success is refused with its code", arguments: Array(0x01...0x0A) + [0x80, 0xFF])
    func replyCodes(code: Int) throws {
        let reply: [UInt8] = [0x05, UInt8(code), 0x00, 0x01, 0, 0, 0, 0, 0, 0]
        let run = try Self.everySplit(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0x00]),
                                                   .init(expect: Self.request, reply: reply)],
                                      after: bytes("x"), early: bytes("held"))
        let error = try #require(run.status.proxyError)
        #expect(error.code == .refused)
        #expect(error.socksReply == SOCKS5ReplyCode(rawValue: UInt8(code)))
        #expect(run.readUp.isEmpty && run.tunnelData.isEmpty)
        let words = [1: "general SOCKS server failure", 2: "connection not allowed by ruleset", 3: "network unreachable",
                     4: "host unreachable", 5: "connection refused", 6: "TTL expired", 7: "command not supported",
                     8: "address type not supported"][code] ?? "unassigned reply code"
        #expect(error.description == "SOCKS5 proxy refused the connection: \(words) (0x\(HexByte.text(UInt8(code))))")
    }

    @Test func namedReplyCodes() {
        #expect([SOCKS5ReplyCode.generalFailure, .connectionNotAllowed, .networkUnreachable, .hostUnreachable,
                 .connectionRefused, .ttlExpired, .commandNotSupported, .addressTypeNotSupported].map(\.rawValue)
                == Array(1...8))
        #expect(SOCKS5ReplyCode.succeeded.rawValue == 0)
    }

    static func failure(_ make: () throws -> SOCKS5Tunnel, _ steps: [ScriptedProxy.Step]) throws -> ProxyError {
        let run = try everySplit(make, steps, after: bytes("x"), early: bytes("held"))
        #expect(run.readUp.isEmpty && run.tunnelData.isEmpty)
        return try #require(run.status.proxyError)
    }

    @Test("Method selection: none acceptable, one not offered, a bad version")
    func methodSelection() throws {
        #expect(try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0xFF])]).code == .noAcceptableMethods)
        // Credentials were not offered, so 0x02 was not either; nor GSSAPI (0x01).
        #expect(try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0x02])]).code == .unexpectedMethod)
        #expect(try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0x01])]).code == .unexpectedMethod)
        #expect(try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: [0x04, 0x00])]).code == .malformedReply)
        // An HTTP proxy answering a SOCKS greeting.
        #expect(try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: bytes("HTTP/1.1 400 Bad Request\r\n"))]).code
                == .malformedReply)
    }

    @Test("Authentication: a failure status, a bad version")
    func authenticationFailures() throws {
        let credentials = ProxyCredentials(user: "u", password: "p")
        let make = { try SOCKS5Tunnel(host: "example.com", port: 443, credentials: credentials) }
        let authentication: [UInt8] = [0x01, 1, UInt8(ascii: "u"), 1, UInt8(ascii: "p")]
        for status: UInt8 in [0x01, 0xFF] {
            let error = try Self.failure(make, [.init(expect: Self.greetingWithCredentials, reply: [0x05, 0x02]),
                                                .init(expect: authentication, reply: [0x01, status])])
            #expect(error.code == .authenticationFailed)
        }
        let version = try Self.failure(make, [.init(expect: Self.greetingWithCredentials, reply: [0x05, 0x02]),
                                              .init(expect: authentication, reply: [0x05, 0x00])])
        #expect(version.code == .malformedReply)
    }

    @Test("Reply: a bad version, an unknown address type")
    func malformedReplies() throws {
        for reply: [UInt8] in [[0x04, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0], [0x05, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0],
                               [0x05, 0x00, 0x00, 0x00, 0, 0], [0x00, 0x5A, 0, 0, 0, 0, 0, 0]] {
            let error = try Self.failure(Self.plain, [.init(expect: Self.greeting, reply: [0x05, 0x00]),
                                                      .init(expect: Self.request, reply: reply)])
            #expect(error.code == .malformedReply)
        }
    }

    @Test("The end of the stream anywhere before the end of the reply: endOfStream")
    func endOfStreamMidReply() throws {
        let credentials = ProxyCredentials(user: "u", password: "p")
        let stream: [UInt8] = [0x05, 0x02, 0x01, 0x00] + [0x05, 0x00, 0x00, 0x03, 3] + bytes("abc") + [0, 1]
        for length in 0..<stream.count {
            var layer = try SOCKS5Tunnel(host: "example.com", port: 443, credentials: credentials)
            layer.send(bytes("held"))
            layer.receive(Array(stream[..<length]))
            #expect(layer.status == .establishing)
            layer.receiveEOF()
            #expect(layer.proxyError?.code == .endOfStream, "after \(length) bytes")
            #expect(!layer.takeOutput().contains(UInt8(ascii: "h")) && readAll(&layer).isEmpty)
        }
        var whole = try SOCKS5Tunnel(host: "example.com", port: 443, credentials: credentials)
        whole.receive(stream)
        #expect(whole.status == .established)
        whole.receiveEOF()
        #expect(whole.status == .ended(clean: true))
    }

    @Test("Credentials and names are checked before anything is sent (RFC 1929 §2, RFC 1928 §5)")
    func limitsOnWhatIsSent() throws {
        let long = String(repeating: "a", count: 255)
        _ = try SOCKS5Tunnel(host: "h", port: 1, credentials: ProxyCredentials(user: long, password: long))
        _ = try SOCKS5Tunnel(host: String(repeating: "a", count: 255), port: 1)
        for credentials in [ProxyCredentials(user: "", password: "p"), ProxyCredentials(user: "u", password: ""),
                            ProxyCredentials(user: long + "a", password: "p"), ProxyCredentials(user: "u", password: long + "\u{E9}")] {
            #expect(throws: ProxyError.self) { _ = try SOCKS5Tunnel(host: "h", port: 1, credentials: credentials) }
            do { _ = try SOCKS5Tunnel(host: "h", port: 1, credentials: credentials) } catch { #expect(error.code == .invalidCredentials) }
        }
        do {
            _ = try SOCKS5Tunnel(host: String(repeating: "a", count: 256), port: 1)
            Issue.record("accepted a 256-byte name")
        } catch {
            #expect(error.code == .invalidTarget)
        }
        do {
            _ = try SOCKS5Tunnel(host: "a b", port: 1)
            Issue.record("accepted a space")
        } catch {
            #expect(error.code == .invalidTarget)
        }
    }

    /// The fuzz target `proxy-response` found that a failure dropped the request queued in the same
    /// receive, so that what was written depended on when the output was taken: `05 00` then a reply
    /// with version 0xCF, whole or byte by byte.
    @Test("What a failed tunnel writes does not depend on the split")
    func outputAfterFailureIsSplitInvariant() throws {
        let stream: [UInt8] = [0x05, 0x00, 0xCF, 0x00, 0x00, 0x01]
        var whole = try Self.plain()
        whole.send(bytes("held"))
        whole.receive(stream)
        var bytewise = try Self.plain()
        bytewise.send(bytes("held"))
        var written = bytewise.takeOutput()
        for byte in stream {
            bytewise.receive([byte])
            written += bytewise.takeOutput()
        }
        #expect(whole.proxyError?.code == .malformedReply && bytewise.proxyError?.code == .malformedReply)
        #expect(whole.takeOutput() == written)
        #expect(written == Self.greeting + Self.request)
    }

    @Test func heldBytesLimit() throws {
        var limits = ProxyLimits()
        limits.maxBufferedSend = 4
        var layer = try SOCKS5Tunnel(host: "h", port: 1, limits: limits)
        layer.send([1, 2, 3, 4])
        #expect(layer.heldSendCount == 4)
        layer.send([5])
        #expect(layer.proxyError?.code == .limitExceeded)
    }
}
