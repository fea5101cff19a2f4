// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync

/// A proxy for tests: HTTP CONNECT or SOCKS5 (no authentication), tunnelling to a server on this
/// machine (127.0.0.1, whatever name the client gave). It serves `connections` clients, each on
/// threads of its own, then closes its listener; ``requests`` says what each asked for.
final class TestProxy: Sendable {
    enum Kind: Sendable { case httpConnect, socks5 }

    let port: UInt16
    private let asked = Locked<[String]>([])

    /// What each tunnel asked for: `CONNECT host:port`, or `SOCKS5 ipv4|name|ipv6 host port`.
    var requests: [String] { asked.withLock { $0 } }

    init(_ kind: Kind, connections: Int) throws {
        let listener = try RawListener()
        port = listener.port
        let asked = self.asked
        try spawnDetachedThread {
            defer { listener.close() }
            for _ in 0..<connections {
                guard let peer = try? listener.accept(timeout: .seconds(60)) else { return }
                try? spawnDetachedThread { Self.serve(peer, kind, asked: asked) }
            }
        }
    }

    /// One client: the proxy's handshake, then bytes both ways until both ends are done.
    private static func serve(_ peer: RawSocket, _ kind: Kind, asked: Locked<[String]>) {
        var input: [UInt8] = []
        /// Reads until `input` holds `count` bytes.
        func need(_ count: Int) -> Bool {
            while input.count < count {
                guard let bytes = peer.read(timeout: Harness.patience), !bytes.isEmpty else { return false }
                input += bytes
            }
            return true
        }
        let targetPort: UInt16
        switch kind {
        case .httpConnect:
            let end = Array("\r\n\r\n".utf8)
            while input.count < 4 || Array(input.suffix(4)) != end {
                guard need(input.count + 1) else { return peer.close() }
            }
            let head = String(decoding: input, as: UTF8.self)
            input = []
            let requestLine = head.split(separator: "\r\n").first.map(String.init) ?? ""
            let words = requestLine.split(separator: " ")
            guard words.count == 3, words[0] == "CONNECT", let colon = words[1].lastIndex(of: ":"),
                  let port = UInt16(words[1][words[1].index(after: colon)...]) else {
                peer.write(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
                return peer.close()
            }
            asked.withLock { $0.append("CONNECT \(words[1])") }
            targetPort = port
        case .socks5:
            // RFC 1928 §3: VER NMETHODS METHODS; we choose "no authentication".
            guard need(2), input[0] == 5, need(2 + Int(input[1])) else { return peer.close() }
            input.removeFirst(2 + Int(input[1]))
            peer.write([5, 0])
            // §4: VER CMD RSV ATYP DST.ADDR DST.PORT.
            guard need(5), input[0] == 5, input[1] == 1 else { return peer.close() }
            let addressLength: Int
            let family: String
            switch input[3] {
            case 1: (addressLength, family) = (4, "ipv4")
            case 3: (addressLength, family) = (1 + Int(input[4]), "name")
            case 4: (addressLength, family) = (16, "ipv6")
            default: return peer.close()
            }
            guard need(4 + addressLength + 2) else { return peer.close() }
            let address = Array(input[4..<(4 + addressLength)])
            let host = input[3] == 3 ? String(decoding: address.dropFirst(), as: UTF8.self) : address.map(String.init).joined(separator: ".")
            targetPort = UInt16(input[4 + addressLength]) << 8 | UInt16(input[5 + addressLength])
            input.removeFirst(4 + addressLength + 2)
            asked.withLock { $0.append("SOCKS5 \(family) \(host) \(targetPort)") }
        }
        guard let upstream = try? RawSocket.connect(port: targetPort) else {
            switch kind {
            case .httpConnect: peer.write(Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
            case .socks5: peer.write([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])
            }
            return peer.close()
        }
        switch kind {
        case .httpConnect: peer.write(Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        case .socks5: peer.write([5, 0, 0, 1, 127, 0, 0, 1, UInt8(targetPort >> 8), UInt8(targetPort & 0xFF)])
        }
        if !input.isEmpty { upstream.write(input) }
        // Each direction until its end; the sockets close once both are done.
        let done = Locked(0)
        let finish: @Sendable () -> Void = {
            let both = done.withLock { count in
                count += 1
                return count == 2
            }
            if both {
                peer.close()
                upstream.close()
            }
        }
        try? spawnDetachedThread {
            relay(from: upstream, to: peer)
            finish()
        }
        relay(from: peer, to: upstream)
        finish()
    }

    /// Copies until the end of `source`'s stream, then shuts down the sending side of `target`.
    private static func relay(from source: RawSocket, to target: RawSocket) {
        while true {
            guard let bytes = source.read(timeout: .seconds(60)) else { continue }
            if bytes.isEmpty { break }
            target.write(bytes)
        }
        target.socket.shutdown(SocketConstants.shutdownWrite)
    }
}

/// Reads until the end of an HTTP head, within 30 seconds.
private func readHead(_ peer: RawSocket) -> String? {
    var head: [UInt8] = []
    while head.count < 4 || Array(head.suffix(4)) != Array("\r\n\r\n".utf8) {
        guard let bytes = peer.read(timeout: Harness.patience), !bytes.isEmpty else { return nil }
        head += bytes
    }
    return String(decoding: head, as: UTF8.self)
}

/// The client of every face through an HTTP CONNECT and a SOCKS5 proxy.
@Suite("Clients through a proxy", .timeLimit(.minutes(3)))
struct ProxyTests {
    enum Route: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case httpConnect = "http", socks5, socks5h
        var testDescription: String { rawValue }
    }

    @Test("Through HTTP CONNECT, SOCKS5 (the client resolves) and SOCKS5h (the proxy resolves): messages and a clean close",
          arguments: ClientFace.allCases, Route.allCases)
    func tunnel(_ face: ClientFace, _ route: Route) async throws {
        try await withServer(.loop) { server in
            let proxy = try TestProxy(route == .httpConnect ? .httpConnect : .socks5, connections: 1)
            var setup = ClientSetup()
            setup.options.proxy = try .url("\(route.rawValue)://127.0.0.1:\(proxy.port)")
            let client = try await FaceClient.connect(face, to: server.url("/proxied", host: "localhost"), setup)
            try client.expectOpen()
            let sent: [WebSocketMessage] = [.text("through the proxy"), .binary(Harness.bytes(100_000, seed: 5))]
            for message in sent { try await client.send(message) }
            #expect(try await client.log.messages(2) == sent)
            #expect(try await client.close().wasClean)
            let serverSide = try await server.log.connection()
            guard case .open(let result)? = serverSide.events.first else { throw FaceFailure("no open on the server") }
            #expect(result.resource == "/proxied")
            switch route {
            case .httpConnect: #expect(proxy.requests == ["CONNECT localhost:\(server.port)"])
            case .socks5:
                // The client resolved the name and sent an address (::1 or 127.0.0.1, whichever it tried first).
                #expect(proxy.requests == ["SOCKS5 ipv4 127.0.0.1 \(server.port)"] || proxy.requests.first?.hasPrefix("SOCKS5 ipv6 ") == true,
                        "\(proxy.requests)")
            case .socks5h: #expect(proxy.requests == ["SOCKS5 name localhost \(server.port)"])
            }
        }
    }

    @Test("A 407 from the proxy is a proxy error with the status and the challenge", arguments: ClientFace.allCases)
    func authenticationRequired(_ face: ClientFace) async throws {
        let listener = try RawListener()
        defer { listener.close() }
        var setup = ClientSetup()
        setup.options.proxy = try .url("http://127.0.0.1:\(listener.port)")
        let connecting = Task { try await FaceClient.connect(face, to: "ws://example.invalid/", setup) }
        let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
        let head = try await Harness.offPool { readHead(peer) }
        #expect(head?.hasPrefix("CONNECT example.invalid:80 HTTP/1.1\r\n") == true)
        peer.write(Array("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n".utf8))
        let client = try await connecting.value
        guard case .failed(.proxy(let error))? = client.log.events.first else {
            throw FaceFailure("expected a proxy error: \(client.log.events.map(Harness.brief))")
        }
        #expect(error.code == .authenticationRequired)
        #expect(error.status == 407)
        #expect(error.headers["Proxy-Authenticate"] == "Basic realm=\"x\"")
        peer.close()
    }

    @Test("A proxy that never answers: the opening handshake's timeout covers the proxy's setup", arguments: ClientFace.allCases)
    func silentProxy(_ face: ClientFace) async throws {
        let listener = try RawListener()
        defer { listener.close() }
        var setup = ClientSetup()
        setup.options.proxy = try .url("http://127.0.0.1:\(listener.port)")
        setup.configuration.timeouts.handshake = .milliseconds(300)
        let connecting = Task { try await FaceClient.connect(face, to: "ws://example.invalid/", setup) }
        let peer = try await Harness.offPool { try listener.accept(timeout: Harness.patience) }
        let client = try await connecting.value
        #expect(client.log.events == [.failed(.handshakeFailed(.timedOut))])
        #expect(try await Harness.offPool { peer.readUntilEOF(timeout: Harness.patience) })
    }
}
