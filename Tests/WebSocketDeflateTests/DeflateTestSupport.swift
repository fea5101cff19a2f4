// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@testable import WebSocketCore
@testable import WebSocketDeflate

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func drain(_ connection: inout Connection) -> [Connection.Event] {
    var events: [Connection.Event] = []
    while let event = connection.nextEvent() { events.append(event) }
    return events
}

@discardableResult
func pump(_ from: inout Connection, into to: inout Connection) -> [Connection.Event] {
    to.receive(from.takeOutput())
    return drain(&to)
}

func configuration(_ deflate: PerMessageDeflate?, maxMessageSize: Int? = nil) -> Connection.Configuration {
    var config = Connection.Configuration()
    if let deflate { config.extensions = [deflate] }
    if let maxMessageSize { config.limits.maxMessageSize = maxMessageSize }
    return config
}

/// A client and a server after the handshake; returns the negotiated response elements too.
func deflatePair(client: PerMessageDeflate? = PerMessageDeflate(), server: PerMessageDeflate? = PerMessageDeflate(),
                 clientConfig: Connection.Configuration? = nil, serverConfig: Connection.Configuration? = nil,
                 seed: UInt64 = 7) throws -> (client: Connection, server: Connection, extensions: [Connection.ExtensionHeader]) {
    let url = WebSocketURL(host: "example.com", port: 9001, resource: "/")
    var c = try Connection(role: .client(Connection.ClientOptions(url: url)), configuration: clientConfig ?? configuration(client),
                           random: Connection.SeededGenerator(seed: seed))
    var s = try Connection(role: .server, configuration: serverConfig ?? configuration(server), random: Connection.SeededGenerator(seed: seed + 1))
    guard case .handshakeRequest? = pump(&c, into: &s).first else { throw TestFailure("no request") }
    try s.accept()
    _ = drain(&s)
    let events = pump(&s, into: &c)
    guard case .handshakeCompleted(let result)? = events.first else { throw TestFailure("client: \(events)") }
    return (c, s, result.extensions)
}

/// An unmasked server frame.
func serverFrame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
    precondition(payload.count < 126)
    return [first, UInt8(payload.count)] + payload
}

/// A masked client frame (key 01 02 03 04).
func clientFrame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
    precondition(payload.count < 126)
    let key: [UInt8] = [1, 2, 3, 4]
    return [first, 0x80 | UInt8(payload.count)] + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
}
