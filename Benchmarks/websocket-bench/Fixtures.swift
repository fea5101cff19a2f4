// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

import WebSocketCore

/// Wire bytes and opened connections for the workloads.
enum Fixtures {
    static let url = WebSocketURL(host: "bench.local", port: 9000, resource: "/")

    static func configuration() -> Connection.Configuration {
        var config = Connection.Configuration()
        config.limits.maxMessageSize = 64 << 20
        config.limits.maxFrameSize = 64 << 20
        config.timeouts.handshake = nil
        config.timeouts.close = nil
        return config
    }

    /// A client and a server after the opening handshake.
    static func openPair(configuration: Connection.Configuration = configuration()) -> (client: Connection, server: Connection) {
        do {
            var client = try Connection(role: .client(Connection.ClientOptions(url: url)), configuration: configuration,
                                        random: Connection.SeededGenerator(seed: 1))
            var server = try Connection(role: .server, configuration: configuration, random: Connection.SeededGenerator(seed: 2))
            server.receive(client.takeOutput())
            while let event = server.nextEvent() {
                if case .handshakeRequest = event { try server.accept() }
            }
            client.receive(server.takeOutput())
            while client.nextEvent() != nil {}
            return (client, server)
        } catch {
            fatalError("benchmark setup failed: \(error)")
        }
    }

    /// `count` binary frames of `size` bytes as one side sends them.
    static func frames(count: Int, size: Int, fromClient: Bool) -> [UInt8] {
        var (client, server) = openPair()
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var wire: [UInt8] = []
        do {
            for _ in 0..<count {
                if fromClient { try client.send(binary: payload) } else { try server.send(binary: payload) }
                wire += fromClient ? client.takeOutput() : server.takeOutput()
            }
        } catch {
            fatalError("benchmark setup failed: \(error)")
        }
        return wire
    }

    /// 1 MiB of ASCII text.
    static let ascii: [UInt8] = (0..<(1 << 20)).map { UInt8(32 + $0 % 95) }

    /// 1 MiB of mixed CJK text and emoji (3- and 4-byte sequences, with some ASCII and 2-byte ones).
    static let cjk: [UInt8] = {
        let sample = Array("中文字符测试，日本語のテキスト、한국어 텍스트 🎉🚀😀 κόσμε mixed text ".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20)
        while bytes.count + sample.count <= 1 << 20 { bytes += sample }
        return bytes
    }()
}
