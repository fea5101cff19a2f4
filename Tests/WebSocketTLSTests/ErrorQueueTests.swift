// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import COpenSSL
import Dispatch
import Testing
import TransportTestSupport
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// OpenSSL's error queue is per thread: a session must neither be misled by errors that other code
/// left on the thread nor leave its own behind, and it must work when its calls move between
/// threads (one at a time), as an adapter's pipeline does.
@Suite(.onTestThreads) struct ErrorQueueTests {
    /// Leaves an error on this thread's queue, as unrelated OpenSSL code might.
    static func leaveAnError() {
        if let bio = BIO_new_file("/nonexistent/websocket-tls-test", "r") { BIO_free(bio) }
        precondition(ERR_peek_error() != 0)
    }

    @Test func errorsLeftByOthersDoNotFailASession() throws {
        var pair = try SessionPair(client: Configurations.client(), server: Configurations.server())
        for _ in 0..<6 {
            Self.leaveAnError()
            let fromClient = SessionPair.take(&pair.client)
            Self.leaveAnError()
            pair.server.receive(fromClient)
            if !fromClient.isEmpty { #expect(ERR_peek_error() == 0, "a session's calls into OpenSSL leave the queue empty") }
            Self.leaveAnError()
            pair.serverRead += SessionPair.readAll(&pair.server)
            Self.leaveAnError()
            let fromServer = SessionPair.take(&pair.server)
            Self.leaveAnError()
            pair.client.receive(fromServer)
            Self.leaveAnError()
            pair.clientRead += SessionPair.readAll(&pair.client)
            if pair.client.status != .establishing { #expect(ERR_peek_error() == 0) }
            if pair.client.status == .established, pair.serverRead.isEmpty {
                Self.leaveAnError()
                pair.client.send(Array("ping".utf8))
            }
        }
        #expect(pair.client.status == .established)
        #expect(pair.server.status == .established)
        #expect(pair.serverRead == Array("ping".utf8))
    }

    @Test func aFailureLeavesNothingBehind() throws {
        var server = try TLSContext(Configurations.server()).makeServerSession()
        server.receive(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(server.tlsError?.kind == .notTLS)
        #expect(ERR_peek_error() == 0)
    }

    /// Shared between the threads that take turns with it.
    final class Box: @unchecked Sendable {
        var pair: SessionPair
        init(_ pair: SessionPair) { self.pair = pair }
    }

    @Test func callsMoveBetweenThreads() throws {
        let box = Box(try SessionPair(client: Configurations.client(), server: Configurations.server(), split: .random(seed: 4)))
        box.pair.client.send(Array("across threads".utf8))
        for _ in 0..<8 {
            let done = DispatchSemaphore(value: 0)
            try spawnDetachedThread {
                Self.leaveAnError()
                var pair = box.pair
                let fromClient = SessionPair.take(&pair.client)
                SessionPair.deliver(fromClient, to: &pair.server, read: &pair.serverRead, split: pair.split,
                                    generator: &pair.generator)
                box.pair = pair
                done.signal()
            }
            done.wait()
            try spawnDetachedThread {
                Self.leaveAnError()
                var pair = box.pair
                let fromServer = SessionPair.take(&pair.server)
                SessionPair.deliver(fromServer, to: &pair.client, read: &pair.clientRead, split: pair.split,
                                    generator: &pair.generator)
                box.pair = pair
                done.signal()
            }
            done.wait()
        }
        #expect(box.pair.server.status == .established)
        #expect(box.pair.serverRead == Array("across threads".utf8))
    }
}
#endif
