// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
@testable @_spi(Testing) import WebSocketTransport

/// The HTTP CONNECT tunnel (RFC 9110 §9.3.6) against a scripted proxy, at every split of the proxy's
/// byte stream.
@Suite struct HTTPConnect_RFC9110_9_3_6 {
    static let request = bytes("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    /// What the target says first, after the proxy's head: the WebSocket handshake's response.
    static let after = bytes("HTTP/1.1 101 Switching Protocols\r\n\r\n\u{81}\u{02}hi")

    static func tunnel(limits: ProxyLimits = ProxyLimits()) -> HTTPConnectTunnel {
        try! HTTPConnectTunnel(host: "example.com", port: 443, limits: limits)
    }

    /// Runs a tunnel against a proxy answering `reply`, at every split; every run must give the same.
    static func everySplit(reply: [UInt8], after: [UInt8] = [], early: [UInt8] = [], late: [UInt8] = [],
                           eof: Bool = false, limits: ProxyLimits = ProxyLimits(),
                           check: @escaping (inout HTTPConnectTunnel) -> Void = { _ in }) -> TunnelRun {
        let proxy = ScriptedProxy([.init(expect: request, reply: reply)])
        var first: TunnelRun?
        for cuts in Cuts.all(count: reply.count + after.count) {
            var layer = tunnel(limits: limits)
            let run = runTunnel(&layer, proxy: proxy, after: after, cuts: cuts, early: early, late: late, eof: eof,
                                check: check)
            #expect(run.violation == nil, "\(cuts)")
            if let first {
                #expect(run == first, "\(cuts)")
            } else {
                first = run
            }
        }
        return first!
    }

    @Test("2xx from HTTP/1.1 and 1.0: established; the bytes after the head are passed up; early and late bytes go after",
          arguments: ["HTTP/1.1 200 Connection established\r\n\r\n", "HTTP/1.0 200 Connection established\r\n\r\n",
                      "HTTP/1.1 200 OK\r\nProxy-Agent: test/1.0\r\nContent-Length: 12\r\n\r\n", "HTTP/1.1 204\r\n\r\n",
                      "HTTP/1.1 299 Whatever\n\n", "\r\nHTTP/1.1 200 OK\r\nVia: 1.1 proxy\r\n\r\n",
                      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"])
    func established(reply: String) {
        let run = Self.everySplit(reply: bytes(reply), after: Self.after, early: bytes("GET / HTTP/1.1\r\n"), late: bytes("more"))
        #expect(run.status == .established)
        #expect(run.readUp == Self.after)
        #expect(run.tunnelData == bytes("GET / HTTP/1.1\r\nmore"))
    }

    @Test func responseStatusAndEndOfStream() {
        var layer = Self.tunnel()
        #expect(layer.takeOutput() == Self.request)
        layer.receive(bytes("HTTP/1.1 201 Created\r\n\r\nxyz"))
        #expect(layer.responseStatus == 201)
        layer.receiveEOF()
        #expect(layer.status == .ended(clean: true))
        #expect(readAll(&layer) == bytes("xyz"))
    }

    @Test("407: authenticationRequired with the status and the challenge")
    func proxyAuthenticationRequired() throws {
        let reply = bytes("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\n\r\n")
        let run = Self.everySplit(reply: reply, after: bytes("body"), early: bytes("secret"))
        let error = try #require(run.status.proxyError)
        #expect(error.code == .authenticationRequired)
        #expect(error.status == 407)
        #expect(error.headers["Proxy-Authenticate"] == "Basic realm=\"proxy\"")
        #expect(run.readUp.isEmpty)
        #expect(run.tunnelData.isEmpty)
        #expect(error.description == "proxy requires authentication (HTTP 407)")
    }

    @Test("Any other status: refused, with the status and headers",
          arguments: [101, 300, 301, 400, 403, 404, 500, 502, 503, 504, 599])
    func refused(status: Int) throws {
        let reply = bytes("HTTP/1.1 \(status) No\r\nX-Reason: policy\r\n\r\n")
        let run = Self.everySplit(reply: reply, after: bytes("<html>"), early: bytes("secret"))
        let error = try #require(run.status.proxyError)
        #expect(error.code == .refused)
        #expect(error.status == status)
        #expect(error.headers["x-reason"] == "policy")
        #expect(run.readUp.isEmpty && run.tunnelData.isEmpty)
        #expect(error.description == "proxy refused the tunnel: HTTP \(status)")
    }

    @Test("Garbage: malformedReply", arguments: [
        "SSH-2.0-OpenSSH_9.6\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n",
        "http/1.1 200 OK\r\n\r\n", "HTTP/1.1  200 OK\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.1 200 OK\rX\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", "HTTP/1.1 200 OK\r\nName : value\r\n\r\n",
        "HTTP/1.1 200 OK\r\n folded\r\n\r\n", "HTTP/1.1 200 OK\r\nA: b\r\n continued\r\n\r\n",
        "HTTP/1.1 200 OK\r\nA: b\u{0}c\r\n\r\n", "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", "\u{16}\u{03}\u{01}\u{00}\u{05}\r\n",
    ])
    func garbage(reply: String) throws {
        let run = Self.everySplit(reply: bytes(reply), early: bytes("secret"))
        let error = try #require(run.status.proxyError)
        #expect(error.code == .malformedReply)
        #expect(run.readUp.isEmpty && run.tunnelData.isEmpty)
    }

    @Test("A head over the limit fails before more than the limit is held, at every split")
    func oversizeHead() throws {
        var limits = ProxyLimits()
        limits.maxResponseHeadBytes = 256
        let reply = bytes("HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 300) + "\r\n\r\n")
        let run = Self.everySplit(reply: reply, limits: limits) { layer in
            #expect(layer.bufferedResponseByteCount <= 256 + 64)
        }
        #expect(run.status.proxyError?.code == .responseTooLarge)

        // Exactly at the limit is fine.
        let fits = bytes("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 256 - 17 - 7) + "\r\n\r\n")
        #expect(fits.count == 256)
        #expect(Self.everySplit(reply: fits, limits: limits).status == .established)
        let over = bytes("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 256 - 17 - 6) + "\r\n\r\n")
        #expect(Self.everySplit(reply: over, limits: limits).status.proxyError?.code == .responseTooLarge)
    }

    @Test func tooManyHeaderFields() {
        var limits = ProxyLimits()
        limits.maxResponseHeaderCount = 3
        let three = "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n"
        #expect(Self.everySplit(reply: bytes(three + "\r\n"), limits: limits).status == .established)
        #expect(Self.everySplit(reply: bytes(three + "D: 4\r\n\r\n"), limits: limits).status.proxyError?.code == .responseTooLarge)
    }

    @Test("An endless trickle of interim responses is bounded by the head limit")
    func endlessInterimResponses() {
        var limits = ProxyLimits()
        limits.maxResponseHeadBytes = 1000
        let reply = bytes(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 100))
        var layer = Self.tunnel(limits: limits)
        _ = layer.takeOutput()
        layer.receive(reply)
        #expect(layer.proxyError?.code == .responseTooLarge)
    }

    @Test("The end of the stream anywhere before the end of the head: endOfStream")
    func endOfStreamMidReply() throws {
        let reply = bytes("HTTP/1.1 200 Connection established\r\nVia: proxy\r\n\r\n")
        for length in 0..<reply.count {
            var layer = Self.tunnel()
            _ = layer.takeOutput()
            layer.send(bytes("held"))
            layer.receive(Array(reply[..<length]))
            #expect(layer.status == .establishing)
            layer.receiveEOF()
            let error = try #require(layer.proxyError, "after \(length) bytes")
            #expect(error.code == .endOfStream)
            #expect(layer.pendingOutputCount == 0 && readAll(&layer).isEmpty)
        }
    }

    @Test("The parser's work is linear in the head, one byte at a time")
    func linearWork() {
        let reply = bytes("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Header: some value here\r\n", count: 300) + "\r\n")
        var limits = ProxyLimits()
        limits.maxResponseHeaderCount = 1000
        var layer = Self.tunnel(limits: limits)
        for byte in reply { layer.receive([byte]) }
        #expect(layer.status == .established)
        #expect(layer.parserWorkCount <= 2 * reply.count)
    }

    @Test("Bytes sent before the tunnel is up are held, up to maxBufferedSend")
    func heldBytesLimit() throws {
        var limits = ProxyLimits()
        limits.maxBufferedSend = 10
        var layer = Self.tunnel(limits: limits)
        layer.send(Array(repeating: 1, count: 10))
        #expect(layer.heldSendCount == 10)
        #expect(layer.takeOutput() == Self.request)
        layer.send([2])
        let error = try #require(layer.proxyError)
        #expect(error.code == .limitExceeded)
        #expect(layer.pendingOutputCount == 0)
    }

    @Test("After a failure, nothing more is read or sent")
    func afterFailure() {
        var layer = Self.tunnel()
        layer.receive(bytes("HTTP/1.1 403 Forbidden\r\n\r\nHTTP/1.1 200 OK\r\n\r\nlater"))
        layer.receive(bytes("more"))
        layer.send(bytes("data"))
        layer.receiveEOF()
        #expect(layer.proxyError?.status == 403)
        #expect(readAll(&layer).isEmpty)
        #expect(layer.takeOutput() == Self.request)
    }

    // MARK: The request

    static func request(host: String, port: UInt16 = 443, credentials: ProxyCredentials? = nil,
                        headers: Connection.HTTPHeaders = Connection.HTTPHeaders()) throws(ProxyError) -> String {
        var layer = try HTTPConnectTunnel(host: host, port: port, credentials: credentials, headers: headers)
        return String(decoding: layer.takeOutput(), as: UTF8.self)
    }

    @Test("The request line and Host: names, IPv4, IPv6 in brackets (zone dropped)")
    func requestTargets() throws {
        #expect(try Self.request(host: "example.com") == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(try Self.request(host: "192.0.2.1", port: 80) == "CONNECT 192.0.2.1:80 HTTP/1.1\r\nHost: 192.0.2.1:80\r\n\r\n")
        #expect(try Self.request(host: "2001:db8::1", port: 8443)
                == "CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n")
        #expect(try Self.request(host: "[::1]", port: 9001) == "CONNECT [::1]:9001 HTTP/1.1\r\nHost: [::1]:9001\r\n\r\n")
        #expect(try Self.request(host: "fe80::1%eth0", port: 1) == "CONNECT [fe80::1]:1 HTTP/1.1\r\nHost: [fe80::1]:1\r\n\r\n")
    }

    @Test("Hosts that would break the request line are refused", arguments: [
        "", "example.com\r\nX-Injected: 1", "exa mple.com", "example.com/path", "user@example.com", "[::1", "1::2::3", "::g",
    ])
    func invalidTargets(host: String) {
        do {
            _ = try HTTPConnectTunnel(host: host, port: 443)
            Issue.record("accepted \(String(reflecting: host))")
        } catch {
            #expect(error.code == .invalidTarget)
        }
    }

    @Test("Proxy-Authorization: Basic, RFC 7617 §2's example and UTF-8 (§2.1)")
    func basicCredentials() throws {
        #expect(try Self.request(host: "example.com", credentials: ProxyCredentials(user: "Aladdin", password: "open sesame"))
                == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nProxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n")
        // RFC 7617 §2.1's example: "test" and "123£" in UTF-8.
        #expect(try Self.request(host: "h", credentials: ProxyCredentials(user: "test", password: "123\u{A3}"))
                .contains("Proxy-Authorization: Basic dGVzdDoxMjPCow==\r\n"))
        // A password may hold colons; an empty user-id or password is allowed.
        #expect(try Self.request(host: "h", credentials: ProxyCredentials(user: "", password: "a:b")).contains("Basic OmE6Yg==\r\n"))
    }

    @Test("A user-id with a colon, or control characters, are refused before anything is sent")
    func invalidCredentials() {
        for credentials in [ProxyCredentials(user: "a:b", password: "c"), ProxyCredentials(user: "a\r\n", password: "c"),
                            ProxyCredentials(user: "a", password: "c\u{7F}"), ProxyCredentials(user: "a", password: "\u{0}")] {
            do {
                _ = try HTTPConnectTunnel(host: "example.com", port: 443, credentials: credentials)
                Issue.record("accepted credentials")
            } catch {
                #expect(error.code == .invalidCredentials)
                #expect(!error.description.contains("a:b"))
            }
        }
    }

    @Test func extraHeaders() throws {
        #expect(try Self.request(host: "h", port: 1, headers: ["User-Agent": "test/1", "Proxy-Authorization": "Negotiate abc"])
                == "CONNECT h:1 HTTP/1.1\r\nHost: h:1\r\nUser-Agent: test/1\r\nProxy-Authorization: Negotiate abc\r\n\r\n")
        let refused: [(Connection.HTTPHeaders, ProxyCredentials?)] = [
            (["Bad Name": "x"], nil), (["X": "a\r\nInjected: 1"], nil), (["X": "a\u{0}"], nil), (["host": "other"], nil),
            (["Proxy-Authorization": "Basic x"], ProxyCredentials(user: "u", password: "p")), (["": "x"], nil),
        ]
        for (headers, credentials) in refused {
            do {
                _ = try HTTPConnectTunnel(host: "h", port: 1, credentials: credentials, headers: headers)
                Issue.record("accepted \(headers)")
            } catch {
                #expect(error.code == .invalidHeader)
            }
        }
    }
}
