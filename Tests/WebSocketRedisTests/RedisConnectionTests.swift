// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TLSTestSupport
import Testing
import TransportTestSupport
import WebSocketRedis
import WebSocketTLS
import WebSocketTransport

@Suite("RedisConnection against a real redis-server", .enabled(if: RedisTestServer.enabled), .onTestThreads)
struct RedisConnectionTests {
    static let password = "s3cret pass"

    /// A started subscriber and publisher on `server`, both ready.
    static func pair(_ server: RedisTestServer, channels: Set<String>)
        throws -> (subscriber: RedisConnection, subscribed: EventRecorder, publisher: RedisConnection, published: EventRecorder)
    {
        let subscribed = EventRecorder(), published = EventRecorder()
        let subscriber = RedisConnection(endpoint: server.endpoint(), role: .subscriber, channels: channels, options: .fast,
                                         handler: subscribed.handler)
        let publisher = RedisConnection(endpoint: server.endpoint(), role: .publisher, options: .fast, handler: published.handler)
        try subscriber.start()
        try publisher.start()
        #expect(subscribed.wait(for: 1, EventRecorder.isConnected), "\(subscribed.all)")
        #expect(published.wait(for: 1, EventRecorder.isConnected), "\(published.all)")
        return (subscriber, subscribed, publisher, published)
    }

    @Test("publish and subscribe: every message, in order, text and binary in the envelope; a channel added later")
    func roundTrip() throws {
        let server = try RedisTestServer(password: Self.password)
        let (subscriber, subscribed, publisher, _) = try Self.pair(server, channels: ["room:1"])
        defer {
            subscriber.close()
            publisher.close()
        }
        #expect(subscribed.connections == [nil])
        let origin = Array("server-a".utf8)
        for index in 0..<200 {
            let kind: BackplaneEnvelope.Kind = index % 2 == 0 ? .text : .binary
            let payload = index % 2 == 0 ? Array("message \(index)".utf8) : pattern(index * 37 % 5000, seed: UInt8(index % 251))
            #expect(publisher.publish(channel: "room:1", payload: BackplaneEnvelope(origin: origin, kind: kind, payload: payload).encoded()))
        }
        #expect(subscribed.wait(for: 200, EventRecorder.isMessage))
        let received = subscribed.messages
        #expect(received.count == 200)
        for (index, message) in received.enumerated() {
            let envelope = BackplaneEnvelope(decoding: message.payload)
            #expect(message.channel == "room:1")
            #expect(envelope?.origin == origin)
            #expect(envelope?.kind == (index % 2 == 0 ? .text : .binary))
            let expected = index % 2 == 0 ? Array("message \(index)".utf8) : pattern(index * 37 % 5000, seed: UInt8(index % 251))
            #expect(envelope?.payload == expected, "message \(index) out of order or damaged")
        }

        subscriber.subscribe("room:2")
        #expect(subscribed.wait { $0.contains(.subscribed(channel: "room:2")) })
        #expect(publisher.publish(channel: "room:2", payload: Array("two".utf8)))
        #expect(subscribed.wait(for: 201, EventRecorder.isMessage))
        #expect(subscribed.messages.last?.channel == "room:2")
        #expect(subscriber.statistics.messagesReceived == 201)
        #expect(publisher.statistics.publishesLost == 0)
    }

    @Test("RESP2 (AUTH, no HELLO) and RESP3 (HELLO 3 AUTH): the same round trip", arguments: [false, true])
    func protocols(usesHello: Bool) throws {
        let server = try RedisTestServer(password: Self.password)
        var options = RedisConnection.Options.fast
        options.usesHello = usesHello
        let subscribed = EventRecorder(), published = EventRecorder()
        let subscriber = RedisConnection(endpoint: server.endpoint(), role: .subscriber, channels: ["p"], options: options,
                                         handler: subscribed.handler)
        let publisher = RedisConnection(endpoint: server.endpoint(), role: .publisher, options: options, handler: published.handler)
        defer {
            subscriber.close()
            publisher.close()
        }
        try subscriber.start()
        try publisher.start()
        #expect(subscribed.wait(for: 1, EventRecorder.isConnected))
        #expect(published.wait(for: 1, EventRecorder.isConnected))
        let version = usesHello ? 3 : 2
        #expect(subscribed.all.first == .connected(protocolVersion: version, outage: nil))
        #expect(published.all.first == .connected(protocolVersion: version, outage: nil))
        #expect(publisher.publish(channel: "p", payload: [0, 0xFF, 0x0D, 0x0A]))
        #expect(subscribed.wait(for: 1, EventRecorder.isMessage))
        #expect(subscribed.messages.first?.payload == [0, 0xFF, 0x0D, 0x0A])
    }

    @Test("a wrong password, and none: a clear error, retried, never connected")
    func wrongPassword() throws {
        let server = try RedisTestServer(password: Self.password)
        for (password, code) in [("wrong", RedisError.Code.authenticationFailed), (nil, .authenticationRequired)] {
            let recorder = EventRecorder()
            var endpoint = server.endpoint()
            endpoint.credentials = password.map { RedisCredentials(password: $0) }
            let connection = RedisConnection(endpoint: endpoint, role: .publisher, options: .fast, handler: recorder.handler)
            try connection.start()
            #expect(recorder.wait(for: 2, EventRecorder.isDisconnected), "retried after the refusal")
            connection.close()
            #expect(recorder.errors.allSatisfy { $0.code == code }, "\(recorder.errors)")
            #expect(recorder.connections.isEmpty)
            #expect(connection.statistics.failedAttempts >= 2)
            #expect(connection.publish(channel: "a", payload: [1]) == false)
        }
    }

    @Test("Redis restarted: both reconnect, the subscriber subscribes again to every channel; what was lost is counted")
    func restart() throws {
        let server = try RedisTestServer(password: Self.password)
        let (subscriber, subscribed, publisher, published) = try Self.pair(server, channels: ["a", "b"])
        defer {
            subscriber.close()
            publisher.close()
        }
        #expect(publisher.publish(channel: "a", payload: Array("before".utf8)))
        #expect(subscribed.wait(for: 1, EventRecorder.isMessage))

        server.stop()
        #expect(subscribed.wait(for: 1, EventRecorder.isDisconnected))
        #expect(published.wait(for: 1, EventRecorder.isDisconnected))
        #expect(subscribed.errors.first?.code == .connectionClosed)
        #expect(publisher.publish(channel: "a", payload: Array("lost".utf8)) == false)
        #expect(publisher.statistics.publishesLost == 1)
        #expect(!publisher.isConnected)

        try server.start()
        #expect(subscribed.wait(for: 2, EventRecorder.isConnected), "\(subscribed.all)")
        #expect(published.wait(for: 2, EventRecorder.isConnected), "\(published.all)")
        #expect(subscribed.connections.count == 2 && subscribed.connections[1] != nil, "the outage's length is reported")
        #expect(publisher.publish(channel: "a", payload: Array("after a".utf8)))
        #expect(publisher.publish(channel: "b", payload: Array("after b".utf8)))
        #expect(subscribed.wait(for: 3, EventRecorder.isMessage))
        #expect(subscribed.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["before", "after a", "after b"])
        let statistics = subscriber.statistics
        #expect(statistics.connections == 2 && statistics.disconnections == 1)
        #expect(statistics.timeCutOff > .zero)
    }

    @Test("close while Redis is down ends the thread at once")
    func closeWhileDown() throws {
        let server = try RedisTestServer()
        let recorder = EventRecorder()
        // A long wait before the next attempt: a close that waited for it would take 60 s.
        var options = RedisConnection.Options()
        options.reconnect = RedisReconnectPolicy(initialDelay: .seconds(60), maximumDelay: .seconds(60))
        let connection = RedisConnection(endpoint: server.endpoint(), role: .subscriber, channels: ["a"], options: options,
                                         handler: recorder.handler)
        try connection.start()
        #expect(recorder.wait(for: 1, EventRecorder.isConnected))
        server.stop()
        #expect(recorder.wait(for: 1, EventRecorder.isDisconnected))
        let started = now()
        connection.close()
        #expect(now() - started < .seconds(30))
        let count = recorder.all.count
        try server.start()
        #expect(recorder.all.count == count, "no event after close")
    }
}

@Suite("RedisConnection over TCP and rediss:// (the TLS layer, with its verification)", .enabled(if: RedisTestServer.enabled), .onTestThreads)
struct RedisTCPAndTLSTests {
    static let pki = TestPKI.shared

    static func trustingTestCA() throws -> RedisConnection.Options {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only([pki.ca.certificate])
        var options = RedisConnection.Options.fast
        options.tls = try TLSContext(configuration)
        return options
    }

    static func roundTrip(_ endpoint: RedisEndpoint, options: RedisConnection.Options) throws {
        let subscribed = EventRecorder(), published = EventRecorder()
        let subscriber = RedisConnection(endpoint: endpoint, role: .subscriber, channels: ["t"], options: options, handler: subscribed.handler)
        let publisher = RedisConnection(endpoint: endpoint, role: .publisher, options: options, handler: published.handler)
        defer {
            subscriber.close()
            publisher.close()
        }
        try subscriber.start()
        try publisher.start()
        #expect(subscribed.wait(for: 1, EventRecorder.isConnected), "\(subscribed.all)")
        #expect(published.wait(for: 1, EventRecorder.isConnected), "\(published.all)")
        let payload = pattern(300_000, seed: 9)
        #expect(publisher.publish(channel: "t", payload: payload))
        #expect(subscribed.wait(for: 1, EventRecorder.isMessage))
        #expect(subscribed.messages.first?.payload == payload)
    }

    @Test("redis:// over TCP, with a user name and password in the URL")
    func tcp() throws {
        let server = try RedisTestServer(password: "pw", tcp: true)
        let endpoint = try RedisEndpoint(parsing: "redis://default:pw@localhost:\(server.tcpPort ?? 0)/3")
        try Self.roundTrip(endpoint, options: .fast)
    }

    @Test("rediss:// with the server's certificate verified: a round trip of 300 KB")
    func tls() throws {
        let server = try RedisTestServer(password: "pw", tls: (Self.pki.server.certificatePEM, Self.pki.server.keyPEM))
        let endpoint = try RedisEndpoint(parsing: "rediss://:pw@localhost:\(server.tlsPort ?? 0)")
        try Self.roundTrip(endpoint, options: try Self.trustingTestCA())
    }

    @Test("rediss:// refused: a certificate the client does not trust, and no TLS context at all")
    func tlsRefused() throws {
        let server = try RedisTestServer(tls: (Self.pki.fromOtherCA.certificatePEM, Self.pki.fromOtherCA.keyPEM))
        let endpoint = try RedisEndpoint(parsing: "rediss://localhost:\(server.tlsPort ?? 0)")
        for options in [try Self.trustingTestCA(), RedisConnection.Options.fast] {
            let recorder = EventRecorder()
            let connection = RedisConnection(endpoint: endpoint, role: .publisher, options: options, handler: recorder.handler)
            try connection.start()
            #expect(recorder.wait(for: 2, EventRecorder.isDisconnected))
            connection.close()
            #expect(recorder.connections.isEmpty)
            #expect(recorder.errors.allSatisfy { $0.code == .connectFailed }, "\(recorder.errors)")
            #expect(recorder.errors.first?.reason.contains(options.tls == nil ? "TLS context" : "TLS") == true, "\(recorder.errors)")
        }
    }
}
