// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(COpenSSL)
import Glibc
import Testing
import WebSocketCore
import WebSocketTransport
@_spi(Testing) @testable import WebSocketTLS
import TLSTestSupport

/// A key log sink that keeps its lines.
final class KeyLogLines: Sendable {
    private let lines = Locked<[String]>([])
    var log: TLSKeyLog {
        let lines = self.lines
        return TLSKeyLog { line in lines.withLock { $0.append(line) } }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// One NSS key log line, parsed: `LABEL <client random, 64 hex digits> <secret in hex>`.
struct KeyLogLine: Hashable {
    var label: String
    var clientRandom: [UInt8]
    var secret: [UInt8]

    /// `nil` for a line that is not of that form: three fields, lowercase or uppercase hex, a
    /// 32-byte random.
    init?(_ line: String) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[0].isEmpty, fields[0].allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }),
              let random = Self.bytes(fields[1]), random.count == 32, let secretBytes = Self.bytes(fields[2]), !secretBytes.isEmpty
        else { return nil }
        label = String(fields[0])
        clientRandom = random
        secret = secretBytes
    }

    static func bytes(_ hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

/// `TLSConfiguration.unsafeKeyLog`: the lines both sides write, in the NSS key log format.
@Suite struct KeyLogTests {
    let pki = TestPKI.shared

    /// A handshake at most `version`, each side logging to its own sink; then one message each way.
    func handshake(version: TLSVersion) throws -> (pair: SessionPair, client: [String], server: [String]) {
        let clientLines = KeyLogLines(), serverLines = KeyLogLines()
        var client = Configurations.client()
        client.maximumVersion = version
        client.unsafeKeyLog = clientLines.log
        var server = Configurations.server()
        server.unsafeKeyLog = serverLines.log
        var pair = try SessionPair(client: client, server: server)
        pair.run()
        pair.client.send(Array("ping".utf8))
        pair.server.send(Array("pong".utf8))
        pair.run()
        return (pair, clientLines.all, serverLines.all)
    }

    /// The random of the client's ClientHello (RFC 8446 §4.1.2), from its first record: a 5-byte
    /// record header, a 4-byte handshake header, 2 bytes of version, then the 32 bytes.
    static func clientHelloRandom(_ wrote: [UInt8]) -> [UInt8] {
        precondition(wrote.count > 43 && wrote[0] == 0x16 && wrote[5] == 0x01, "not a ClientHello")
        return Array(wrote[11..<43])
    }

    @Test func tls13LinesAreWellFormed() throws {
        let (pair, clientLines, _) = try handshake(version: .v1_3)
        #expect(pair.client.status == .established)
        #expect(pair.serverRead == Array("ping".utf8))
        let parsed = clientLines.compactMap(KeyLogLine.init)
        #expect(parsed.count == clientLines.count, "\(clientLines)")
        #expect(Set(parsed.map(\.label)) == ["CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
                                             "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET"])
        #expect(parsed.count == 5)
        // Every line names this session by its ClientHello's random.
        let random = Self.clientHelloRandom(pair.clientWrote)
        #expect(parsed.allSatisfy { $0.clientRandom == random })
        // Secrets as long as the cipher suite's hash: 32 bytes (SHA-256) or 48 (SHA-384).
        #expect(parsed.allSatisfy { $0.secret.count == 32 || $0.secret.count == 48 })
        #expect(Set(parsed.map(\.secret)).count == 5)
    }

    @Test func tls12LogsTheMasterSecret() throws {
        let (pair, clientLines, _) = try handshake(version: .v1_2)
        #expect(pair.client.negotiatedVersion == .v1_2)
        let parsed = clientLines.compactMap(KeyLogLine.init)
        #expect(parsed.count == 1 && clientLines.count == 1, "\(clientLines)")
        #expect(parsed.first?.label == "CLIENT_RANDOM")
        #expect(parsed.first?.clientRandom == Self.clientHelloRandom(pair.clientWrote))
        #expect(parsed.first?.secret.count == 48)
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func bothSidesLogTheSameSecretsForTheSameClientRandom(version: TLSVersion) throws {
        let (pair, clientLines, serverLines) = try handshake(version: version)
        #expect(pair.server.status == .established)
        #expect(!clientLines.isEmpty)
        #expect(Set(clientLines) == Set(serverLines))
        #expect(clientLines.count == serverLines.count)
    }

    @Test func eachSessionLogsItsOwnRandom() throws {
        let lines = KeyLogLines()
        var client = Configurations.client()
        client.unsafeKeyLog = lines.log
        let context = try TLSContext(client), serverContext = try TLSContext(Configurations.server())
        var randoms: [[UInt8]] = []
        for _ in 0..<3 {
            var pair = SessionPair(client: try context.makeClientSession(serverName: "localhost"),
                                   server: try serverContext.makeServerSession())
            pair.run()
            randoms.append(Self.clientHelloRandom(pair.clientWrote))
        }
        let logged = lines.all.compactMap(KeyLogLine.init)
        #expect(logged.count == 15)
        #expect(Set(logged.map(\.clientRandom)) == Set(randoms))
        #expect(Set(randoms).count == 3)
    }

    @Test func aFileLogIsCreatedPrivateAndAppendedTo() throws {
        let path = "/tmp/websocket-tls-keylog-\(Int.random(in: 0...Int.max)).txt"
        defer { unlink(path) }
        var client = Configurations.client()
        client.unsafeKeyLog = .file(path)
        #expect(client.unsafeKeyLog?.path == path)
        #expect(client.unsafeKeyLog == .file(path))
        let serverLines = KeyLogLines()
        var server = Configurations.server()
        server.unsafeKeyLog = serverLines.log
        for _ in 0..<2 {
            var pair = try SessionPair(client: client, server: server)
            pair.run()
            #expect(pair.client.status == .established)
        }
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let text = try Self.contents(of: path)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n").map(String.init)
        // Two contexts' sessions, appended: the server logged the same lines.
        #expect(lines.count == 10)
        #expect(Set(lines) == Set(serverLines.all))
        #expect(lines.allSatisfy { KeyLogLine($0) != nil })
    }

    @Test func aKeyLogThatCannotBeOpenedIsAConfigurationError() {
        var client = Configurations.client()
        client.unsafeKeyLog = .file("/nonexistent/directory/keys.txt")
        #expect {
            try TLSContext(client)
        } throws: { error in
            guard case WebSocketError.tls(let tls) = error else { return false }
            return tls.kind == .configuration && tls.reason.contains("\"/nonexistent/directory/keys.txt\"")
                && tls.reason.contains("No such file or directory")
        }
    }

    @Test func aConfigurationThatFailsCreatesNoKeyLog() {
        let path = "/tmp/websocket-tls-keylog-\(Int.random(in: 0...Int.max)).txt"
        defer { unlink(path) }
        var server = TLSConfiguration.server(certificateChain: pki.server.certificate, privateKey: pki.otherCA.key)
        server.unsafeKeyLog = .file(path)
        #expect(throws: WebSocketError.self) { try TLSContext(server) }
        #expect(access(path, F_OK) != 0)
    }

    @Test func sinksCompareByIdentity() {
        let sink: @Sendable (String) -> Void = { _ in }
        let log = TLSKeyLog(sink)
        #expect(log == log)
        #expect(log != TLSKeyLog(sink))
        #expect(log.path == nil)
        #expect(TLSKeyLog.file("a") != .file("b"))
    }

    static func contents(of path: String) throws -> String {
        guard let file = fopen(path, "r") else { throw WebSocketError.tls(TLSError(.configuration, reason: "cannot read \(path)")) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
