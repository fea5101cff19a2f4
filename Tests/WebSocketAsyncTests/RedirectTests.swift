// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebSocketCore
import WebSocketTransport
import TransportTestSupport
@testable import WebSocketAsync
#if os(Linux)
import WebSocketTLS
#endif

/// Redirects followed by the client of every face: a new connection for each hop.
@Suite("Redirects", .timeLimit(.minutes(3)))
struct RedirectTests {
    @Test("A 307 to another server, then a relative 302 there: the client opens on the last hop and messages flow",
          arguments: ClientFace.allCases)
    func followed(_ face: ClientFace) async throws {
        var targetSetup = ServerSetup()
        targetSetup.handshake = { request in
            request.resource == "/hop" ? .reject(status: 302, headers: ["Location": "/landed"]) : .accept()
        }
        try await withServer(.loop, targetSetup) { target in
            var firstSetup = ServerSetup()
            let hop = target.url("/hop")
            firstSetup.handshake = { _ in .reject(status: 307, headers: ["Location": hop]) }
            try await withServer(.queue, firstSetup) { first in
                let client = try await FaceClient.connect(face, to: first.url("/start"))
                try client.expectOpen()
                #expect(client.handshake?.resource == "/landed")
                try await client.send(.text("over the last hop"))
                #expect(try await client.log.messages(1) == [.text("over the last hop")])
                #expect(try await client.close().wasClean)
                #expect(first.log.requests.map(\.resource) == ["/start"])
                #expect(target.log.requests.map(\.resource) == ["/hop", "/landed"])
                #expect(first.log.connections.isEmpty)
            }
        }
    }

    @Test("A redirect loop ends at maxRedirects with the hops", arguments: ClientFace.allCases)
    func tooMany(_ face: ClientFace) async throws {
        var setup = ServerSetup()
        setup.handshake = { _ in .reject(status: 302, headers: ["Location": "/again"]) }
        try await withServer(.loop, setup) { server in
            var clientSetup = ClientSetup()
            clientSetup.options.maxRedirects = 2
            let client = try await FaceClient.connect(face, to: server.url("/start"), clientSetup)
            guard case .failed(.tooManyRedirects(let hops))? = client.log.events.first else {
                throw FaceFailure("expected too many redirects: \(client.log.events.map(Harness.brief))")
            }
            #expect(hops.count == 4)
            #expect(hops.first?.resource == "/start")
            #expect(hops.last?.resource == "/again")
            #expect(server.log.requests.count == 3)
        }
    }

    @Test("With maxRedirects 0 the redirect is the failure", arguments: ClientFace.allCases)
    func notFollowed(_ face: ClientFace) async throws {
        var setup = ServerSetup()
        setup.handshake = { _ in .reject(status: 301, headers: ["Location": "/elsewhere"]) }
        try await withServer(.loop, setup) { server in
            var clientSetup = ClientSetup()
            clientSetup.options.maxRedirects = 0
            let client = try await FaceClient.connect(face, to: server.url("/start"), clientSetup)
            guard case .failed(.handshakeFailed(let failure))? = client.log.events.first, let redirect = failure.redirected else {
                throw FaceFailure("expected the redirect: \(client.log.events.map(Harness.brief))")
            }
            #expect(redirect.status == 301)
            #expect(redirect.target.resource == "/elsewhere")
        }
    }

    #if os(Linux)
    @Test("A redirect from wss to ws is refused", arguments: ClientFace.allCases)
    func leavingTLSIsRefused(_ face: ClientFace) async throws {
        try await withServer(.loop) { plain in
            var setup = try FaceTLS.serverSetup()
            let downgrade = plain.url("/plain")
            setup.handshake = { _ in .reject(status: 302, headers: ["Location": downgrade]) }
            try await withServer(.loop, setup) { secure in
                let client = try await FaceClient.connect(face, to: secure.url("/secure", scheme: "wss", host: "localhost"),
                                                          try FaceTLS.clientSetup())
                guard case .failed(.redirectRefused(let redirect, _))? = client.log.events.first else {
                    throw FaceFailure("expected a refused redirect: \(client.log.events.map(Harness.brief))")
                }
                #expect(redirect.target.resource == "/plain")
                #expect(plain.log.requests.isEmpty)
            }
        }
    }
    #endif
}
