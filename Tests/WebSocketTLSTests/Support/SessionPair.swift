// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import WebSocketCore
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// How bytes in flight are cut before they are delivered: split invariance (STYLE.md §7).
enum Split: Sendable, CustomStringConvertible {
    /// Everything a side wrote, in one receive.
    case whole
    /// One byte per receive.
    case bytewise
    /// Chunks of 1 to 700 bytes from a seeded generator.
    case random(seed: UInt64)

    static let all: [Split] = [.whole, .bytewise, .random(seed: 1), .random(seed: 2), .random(seed: 3)]

    var description: String {
        switch self {
        case .whole: return "whole"
        case .bytewise: return "bytewise"
        case .random(let seed): return "random(\(seed))"
        }
    }
}

/// A client session and a server session wired back to back in memory, with what each read.
struct SessionPair {
    var client: TLSSession
    var server: TLSSession
    var clientRead: [UInt8] = []
    var serverRead: [UInt8] = []
    /// Every byte each side wrote, as the other received it.
    var clientWrote: [UInt8] = []
    var serverWrote: [UInt8] = []
    let split: Split
    var generator: Connection.SeededGenerator

    init(client: TLSSession, server: TLSSession, split: Split = .whole) {
        self.client = client
        self.server = server
        self.split = split
        if case .random(let seed) = split { generator = Connection.SeededGenerator(seed: seed) } else { generator = Connection.SeededGenerator(seed: 0) }
    }

    /// Made from two configurations, the client verifying the server as `serverName`.
    init(client: TLSConfiguration, server: TLSConfiguration, serverName: String = "localhost", split: Split = .whole) throws {
        let clientContext = try TLSContext(client)
        let serverContext = try TLSContext(server)
        self.init(client: try clientContext.makeClientSession(serverName: serverName),
                  server: try serverContext.makeServerSession(), split: split)
    }

    /// A completed exchange between a client presenting `identity` (none: no certificate), at most
    /// `clientMaximum`, and a server that asks for client certificates as `policy` says and decides
    /// on them with `evaluator`.
    static func mutual(policy: ClientCertificatePolicy, presenting identity: TestIdentity?, clientMaximum: TLSVersion? = nil,
                       evaluator: TLSTrustEvaluator? = nil) throws -> SessionPair {
        var client = Configurations.client()
        client.certificateChain = identity?.certificate
        client.privateKey = identity?.key
        client.maximumVersion = clientMaximum
        var server = Configurations.server()
        server.clientCertificates = policy
        server.trustEvaluator = evaluator
        var pair = try SessionPair(client: client, server: server)
        pair.run()
        return pair
    }

    /// Moves bytes both ways until neither side has any to send. Returns the number of rounds.
    @discardableResult
    mutating func run() -> Int {
        var rounds = 0
        while client.pendingOutputCount > 0 || server.pendingOutputCount > 0 {
            rounds += 1
            precondition(rounds < 100_000, "the sessions never went quiet")
            let fromClient = Self.take(&client)
            clientWrote += fromClient
            Self.deliver(fromClient, to: &server, read: &serverRead, split: split, generator: &generator)
            let fromServer = Self.take(&server)
            serverWrote += fromServer
            Self.deliver(fromServer, to: &client, read: &clientRead, split: split, generator: &generator)
        }
        return rounds
    }

    /// Everything `session` has to send.
    static func take(_ session: inout TLSSession) -> [UInt8] {
        var bytes: [UInt8] = []
        session.withPendingOutput { chunk in
            bytes = Array(chunk)
            return chunk.count
        }
        return bytes
    }

    /// `bytes` into `session` in pieces cut as `split` says, reading after each piece as a pipeline
    /// does.
    static func deliver(_ bytes: [UInt8], to session: inout TLSSession, read: inout [UInt8], split: Split,
                        generator: inout Connection.SeededGenerator) {
        var start = 0
        while start < bytes.count {
            let size: Int
            switch split {
            case .whole: size = bytes.count - start
            case .bytewise: size = 1
            case .random: size = Int.random(in: 1...700, using: &generator)
            }
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { session.receive($0) }
            start = end
            read += Self.readAll(&session)
        }
    }

    /// Reads until `read(into:)` returns 0, with a buffer of `bufferSize`.
    static func readAll(_ session: inout TLSSession, bufferSize: Int = 1_000) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            precondition(count >= 0 && count <= bufferSize, "read(into:) returned \(count) for a buffer of \(bufferSize)")
            guard count > 0 else { return result }
            result += buffer[..<count]
        }
    }
}

extension TLSSession {
    mutating func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send($0) }
    }

    mutating func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// The TLS error of a failed session.
    var tlsError: TLSError? {
        if case .failed(.tls(let error)) = status { return error }
        return nil
    }
}

/// Test configurations over ``TestPKI``.
enum Configurations {
    static var pki: TestPKI { TestPKI.shared }

    /// A client that trusts only the test CA.
    static func client(trusting roots: [TestIdentity] = [TestPKI.shared.ca]) -> TLSConfiguration {
        var configuration = TLSConfiguration.client()
        configuration.trustRoots = .only(roots.map(\.certificate))
        return configuration
    }

    /// A server presenting `identity` (the test CA's `localhost` by default).
    static func server(_ identity: TestIdentity = TestPKI.shared.server) -> TLSConfiguration {
        .server(certificateChain: identity.certificate, privateKey: identity.key)
    }
}
#endif
