// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
@testable import WebSocketCore
@testable import WebSocketDeflate

@Suite("permessage-deflate negotiation (RFC 7692 §7.1)")
struct DeflateNegotiationTests {
    static func offer(_ header: String) -> [Connection.ExtensionHeader] {
        Connection.ExtensionHeader.parseList([header]) ?? []
    }

    struct ServerCase: Sendable, CustomTestStringConvertible {
        var offers: String
        var policy: PerMessageDeflate.ServerPolicy
        var response: String?
        var testDescription: String { "\(offers) -> \(response ?? "declined")" }
    }

    static var bits10: PerMessageDeflate.ServerPolicy { var p = PerMessageDeflate.ServerPolicy(); p.maxWindowBits = 10; return p }
    static var askClient9: PerMessageDeflate.ServerPolicy { var p = PerMessageDeflate.ServerPolicy(); p.clientMaxWindowBits = 9; return p }
    static var resetAlways: PerMessageDeflate.ServerPolicy { var p = PerMessageDeflate.ServerPolicy(); p.noContextTakeover = true; return p }

    static let serverCases: [ServerCase] = [
        ServerCase(offers: "permessage-deflate", policy: .init(), response: "permessage-deflate"),
        ServerCase(offers: "permessage-deflate; client_max_window_bits", policy: .init(), response: "permessage-deflate"),
        ServerCase(offers: "permessage-deflate; client_max_window_bits", policy: askClient9, response: "permessage-deflate; client_max_window_bits=9"),
        // Never impose a client window the client did not offer to limit.
        ServerCase(offers: "permessage-deflate", policy: askClient9, response: "permessage-deflate"),
        ServerCase(offers: "permessage-deflate; client_max_window_bits=8", policy: askClient9, response: "permessage-deflate; client_max_window_bits=8"),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=12", policy: .init(), response: "permessage-deflate; server_max_window_bits=12"),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=12", policy: bits10, response: "permessage-deflate; server_max_window_bits=10"),
        ServerCase(offers: "permessage-deflate", policy: bits10, response: "permessage-deflate; server_max_window_bits=10"),
        ServerCase(offers: "permessage-deflate; server_no_context_takeover", policy: .init(), response: "permessage-deflate; server_no_context_takeover"),
        ServerCase(offers: "permessage-deflate", policy: resetAlways, response: "permessage-deflate; server_no_context_takeover"),
        // Echo client_no_context_takeover when offered; never add it unasked.
        ServerCase(offers: "permessage-deflate; client_no_context_takeover", policy: .init(), response: "permessage-deflate; client_no_context_takeover"),
        ServerCase(offers: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=9",
                   policy: .init(), response: "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9"),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=\"10\"", policy: .init(), response: "permessage-deflate; server_max_window_bits=10"),
        // Invalid offers are declined; the next acceptable one wins.
        ServerCase(offers: "permessage-deflate; server_max_window_bits=7", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=16", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; server_max_window_bits", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=010", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; client_max_window_bits=0x9", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; server_no_context_takeover=1", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; foo", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; server_no_context_takeover; server_no_context_takeover", policy: .init(), response: nil),
        ServerCase(offers: "permessage-deflate; foo, permessage-deflate; server_max_window_bits=11", policy: .init(),
                   response: "permessage-deflate; server_max_window_bits=11"),
        ServerCase(offers: "permessage-deflate; server_max_window_bits=10, permessage-deflate", policy: .init(),
                   response: "permessage-deflate; server_max_window_bits=10"),
    ]

    @Test("Server: offers × policy → response or decline", arguments: serverCases)
    func server(_ c: ServerCase) throws {
        let deflate = PerMessageDeflate(serverPolicy: c.policy)
        let result = deflate.negotiate(offers: Self.offer(c.offers))
        #expect(result.map { Connection.ExtensionHeader.headerValue([$0.response]) } == c.response)
    }

    struct ClientCase: Sendable, CustomTestStringConvertible {
        var offer: PerMessageDeflate.Offer
        var response: String
        var accepted: Bool
        var testDescription: String { "\(response) -> \(accepted ? "accepted" : "failed")" }
    }

    static var plain: PerMessageDeflate.Offer { var o = PerMessageDeflate.Offer(); o.clientMaxWindowBits = .unspecified; return o }
    static var anyWindow: PerMessageDeflate.Offer { PerMessageDeflate.Offer() }
    static var window10: PerMessageDeflate.Offer { var o = PerMessageDeflate.Offer(); o.clientMaxWindowBits = .bits(10); return o }
    static var askServerReset: PerMessageDeflate.Offer { var o = plain; o.serverNoContextTakeover = true; return o }
    static var askServer10: PerMessageDeflate.Offer { var o = plain; o.serverMaxWindowBits = 10; return o }

    static let clientCases: [ClientCase] = [
        ClientCase(offer: plain, response: "permessage-deflate", accepted: true),
        ClientCase(offer: plain, response: "permessage-deflate; server_no_context_takeover", accepted: true),
        ClientCase(offer: plain, response: "permessage-deflate; client_no_context_takeover", accepted: true),
        ClientCase(offer: plain, response: "permessage-deflate; server_max_window_bits=9", accepted: true),
        // client_max_window_bits only if offered.
        ClientCase(offer: plain, response: "permessage-deflate; client_max_window_bits=10", accepted: false),
        ClientCase(offer: anyWindow, response: "permessage-deflate; client_max_window_bits=10", accepted: true),
        ClientCase(offer: window10, response: "permessage-deflate; client_max_window_bits=10", accepted: true),
        ClientCase(offer: window10, response: "permessage-deflate; client_max_window_bits=11", accepted: false),
        ClientCase(offer: anyWindow, response: "permessage-deflate; client_max_window_bits", accepted: false),
        // What we asked for must be granted.
        ClientCase(offer: askServerReset, response: "permessage-deflate", accepted: false),
        ClientCase(offer: askServerReset, response: "permessage-deflate; server_no_context_takeover", accepted: true),
        ClientCase(offer: askServer10, response: "permessage-deflate", accepted: false),
        ClientCase(offer: askServer10, response: "permessage-deflate; server_max_window_bits=11", accepted: false),
        ClientCase(offer: askServer10, response: "permessage-deflate; server_max_window_bits=8", accepted: true),
        // Invalid responses.
        ClientCase(offer: plain, response: "permessage-deflate; foo=1", accepted: false),
        ClientCase(offer: plain, response: "permessage-deflate; server_max_window_bits=20", accepted: false),
        ClientCase(offer: plain, response: "permessage-deflate; server_no_context_takeover; server_no_context_takeover", accepted: false),
    ]

    @Test("Client: offer × response → accepted or failed", arguments: clientCases)
    func client(_ c: ClientCase) throws {
        let deflate = PerMessageDeflate(clientOffers: [c.offer])
        guard let response = Self.offer(c.response).first else { throw TestFailure("unparsable \(c.response)") }
        let result = deflate.accept(response: response, offers: deflate.makeOffers())
        if case .success = result { #expect(c.accepted) } else { #expect(!c.accepted) }
    }

    @Test("Through a Connection: a response the client did not offer fails the handshake")
    func unofferedResponse() throws {
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "h"))), configuration: configuration(nil))
        let request = String(decoding: client.takeOutput(), as: UTF8.self)
        #expect(!request.contains("Sec-WebSocket-Extensions"))
        let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }!.dropFirst(19)
        let accept = AcceptKey.accept(forKey: String(key))
        client.receive(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n".utf8))
        #expect(drain(&client).first == .handshakeFailed(.invalidResponse(.unexpectedExtension("permessage-deflate"))))
    }

    @Test("Through a Connection: an invalid response parameter fails the handshake")
    func invalidResponseThroughConnection() throws {
        var client = try Connection(role: .client(Connection.ClientOptions(url: WebSocketURL(host: "h"))), configuration: configuration(PerMessageDeflate()))
        let request = String(decoding: client.takeOutput(), as: UTF8.self)
        #expect(request.contains("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
        let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }!.dropFirst(19)
        let accept = AcceptKey.accept(forKey: String(key))
        client.receive(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\nSec-WebSocket-Extensions: permessage-deflate; bogus\r\n\r\n".utf8))
        guard case .handshakeFailed(let failure)? = drain(&client).first, failure.invalidResponse?.invalidExtensionResponse != nil else {
            Issue.record("expected an extension failure")
            return
        }
    }

    @Test("A server without deflate declines it; a client without deflate gets none")
    func declined() throws {
        let (_, _, none1) = try deflatePair(server: nil)
        #expect(none1.isEmpty)
        let (_, _, none2) = try deflatePair(client: nil)
        #expect(none2.isEmpty)
        let (_, _, both) = try deflatePair()
        #expect(both.map(\.name) == ["permessage-deflate"])
    }
}
