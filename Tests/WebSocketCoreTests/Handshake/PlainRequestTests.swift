// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore

@Suite("Plain HTTP requests on the WebSocket port (Configuration.answersPlainRequests)")
struct PlainRequestTests {
    private func server(hook: Bool) throws -> Connection {
        var configuration = Connection.Configuration()
        configuration.answersPlainRequests = hook
        return try Connection(role: .server, configuration: configuration)
    }

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("Without the hook a GET without Upgrade is answered 426, as before")
    func noHook() throws {
        var s = try server(hook: false)
        s.receive(Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .handshakeFailed(let failure)? = s.nextEvent() else { throw TestFailure("no failure") }
        #expect(failure.invalidRequest == .missingUpgrade)
        #expect(text(s.takeOutput()).hasPrefix("HTTP/1.1 426 "))
        #expect(s.shouldCloseTransport)
    }

    @Test("With the hook a GET reaches the decision as a plain request, and its answer closes the connection")
    func getAnswered() throws {
        var s = try server(hook: true)
        s.receive(Array("GET /health?verbose HTTP/1.1\r\nHost: x\r\nUser-Agent: lb\r\n\r\n".utf8))
        guard case .handshakeRequest(let request)? = s.nextEvent() else { throw TestFailure("no request") }
        #expect(request.kind == .plain)
        #expect(request.resource == "/health?verbose")
        #expect(request.path == "/health")
        #expect(request.head.headers["user-agent"] == "lb")
        #expect(try s.respond(to: .reject(status: 200, headers: ["Content-Type": "text/plain"], body: Array("ok\n".utf8))) == 200)
        let response = text(s.takeOutput())
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Content-Length: 3\r\n"))
        #expect(response.contains("Connection: close\r\n"))
        #expect(response.hasSuffix("\r\n\r\nok\n"))
        #expect(s.shouldCloseTransport)
    }

    @Test("A HEAD is answered with the body's length and without the body; HTTP/1.0 needs no Host")
    func head() throws {
        var s = try server(hook: true)
        s.receive(Array("HEAD /health HTTP/1.0\r\n\r\n".utf8))
        guard case .handshakeRequest(let request)? = s.nextEvent() else { throw TestFailure("no request") }
        #expect(request.kind == .plain)
        try s.reject(status: 200, body: Array("ok\n".utf8))
        let response = text(s.takeOutput())
        #expect(response.contains("Content-Length: 3\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
    }

    @Test("Accepting a plain request answers what the core answers without the hook: 426")
    func acceptIs426() throws {
        var s = try server(hook: true)
        s.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .handshakeRequest? = s.nextEvent() else { throw TestFailure("no request") }
        try s.respond(to: .accept())
        #expect(text(s.takeOutput()) == text(ServerHandshake.errorResponse(for: .missingUpgrade)))
        #expect(s.shouldCloseTransport)
    }

    @Test("Requests that are no plain GET or HEAD keep the handshake's answers",
          arguments: [
              ("POST /health HTTP/1.1\r\nHost: x\r\n\r\n", 405),
              ("GET /health HTTP/1.1\r\n\r\n", 426),                                  // HTTP/1.1 without Host
              ("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n", 426),  // a body
              ("GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 426),
              ("GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400),
              ("GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n", 400),    // an upgrade attempt
              ("GET /health HTTP/2.0\r\nHost: x\r\n\r\n", 505),
          ])
    func notPlain(request: String, status: Int) throws {
        var s = try server(hook: true)
        s.receive(Array(request.utf8))
        guard case .handshakeFailed? = s.nextEvent() else { throw TestFailure("no failure for \(request)") }
        #expect(text(s.takeOutput()).hasPrefix("HTTP/1.1 \(status) "))
    }

    @Test("An upgrade still opens with the hook on")
    func upgradeUnchanged() throws {
        var c = try Connection(role: .client(clientOptions()))
        var s = try server(hook: true)
        guard case .handshakeRequest(let request)? = pump(&c, into: &s).first else { throw TestFailure("no request") }
        #expect(request.kind == .upgrade)
        try s.accept()
        #expect(s.state == .open)
    }

    @Test("The head of a plain request is bounded as a handshake's: 431 past the limit")
    func bounded() throws {
        var configuration = Connection.Configuration()
        configuration.answersPlainRequests = true
        configuration.limits.maxHeaderBytes = 256
        var s = try Connection(role: .server, configuration: configuration)
        s.receive(Array("GET /health HTTP/1.1\r\nHost: x\r\nX-Filler: \(String(repeating: "a", count: 400))\r\n\r\n".utf8))
        guard case .handshakeFailed? = s.nextEvent() else { throw TestFailure("no failure") }
        #expect(text(s.takeOutput()).hasPrefix("HTTP/1.1 431 "))
    }

    @Test("respond(to:) returns the status it wrote: 101, 426 for a plain request accepted, the rejection's, 500 for an answer refused")
    func answeredStatus() throws {
        func request(_ head: String, hook: Bool = true) throws -> Connection {
            var s = try server(hook: hook)
            s.receive(Array(head.utf8))
            guard case .handshakeRequest? = s.nextEvent() else { throw TestFailure("no request") }
            return s
        }
        let upgrade = "GET /chat?x=1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        var accepted = try request(upgrade)
        #expect(try accepted.respond(to: .accept()) == 101)
        #expect(text(accepted.takeOutput()).hasPrefix("HTTP/1.1 101 "))
        var notOffered = try request(upgrade)
        #expect(try notOffered.respond(to: .accept(subprotocol: "never.offered")) == 500)
        #expect(text(notOffered.takeOutput()).hasPrefix("HTTP/1.1 500 "))
        var invalid = try request(upgrade)
        #expect(try invalid.respond(to: .reject(status: 42)) == 500)
        var forbidden = try request(upgrade)
        #expect(try forbidden.respond(to: .reject(status: 403)) == 403)
        var plain = try request("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try plain.respond(to: .accept()) == 426)
        let answer = text(plain.takeOutput())
        #expect(answer.hasPrefix("HTTP/1.1 426 "))
        #expect(!answer.hasSuffix("\r\n\r\n"), "a GET's 426 has its body")
        // A HEAD's 426 states the body's length and leaves the body out (RFC 9110 §9.3.2).
        var head = try request("HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try head.respond(to: .accept()) == 426)
        let headAnswer = text(head.takeOutput())
        #expect(headAnswer.hasPrefix("HTTP/1.1 426 "))
        #expect(headAnswer.contains("Content-Length: "))
        #expect(headAnswer.hasSuffix("\r\n\r\n"), "no body after the head: \(headAnswer)")
    }
}
