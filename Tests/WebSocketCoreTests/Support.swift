// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@testable import WebSocketCore

/// A generator that replays fixed values, for byte-exact masking keys.
struct FixedGenerator: RandomNumberGenerator, Sendable {
    var values: [UInt64]
    var index = 0
    init(_ values: [UInt64]) { self.values = values }
    mutating func next() -> UInt64 {
        defer { index += 1 }
        return values[index % values.count]
    }
}

let testURL = WebSocketURL(host: "example.com", port: 9001, resource: "/chat?room=1")

func clientOptions(subprotocols: [String] = [], extensions: [Connection.ExtensionHeader] = []) -> Connection.ClientOptions {
    Connection.ClientOptions(url: testURL, subprotocols: subprotocols, extensions: extensions)
}

/// Pulls every available event.
func drain(_ connection: inout Connection) -> [Connection.Event] {
    var events: [Connection.Event] = []
    while let event = connection.nextEvent() { events.append(event) }
    return events
}

/// Moves `from`'s output into `to` and returns the events `to` then has.
@discardableResult
func pump(_ from: inout Connection, into to: inout Connection) -> [Connection.Event] {
    to.receive(from.takeOutput())
    return drain(&to)
}

/// A client and a server after a completed opening handshake, all events drained.
func openPair(client: Connection.Configuration = Connection.Configuration(), server: Connection.Configuration = Connection.Configuration(),
              seed: UInt64 = 42, subprotocols: [String] = []) throws -> (client: Connection, server: Connection) {
    var c = try Connection(role: .client(clientOptions(subprotocols: subprotocols)), configuration: client,
                           random: Connection.SeededGenerator(seed: seed))
    var s = try Connection(role: .server, configuration: server, random: Connection.SeededGenerator(seed: seed &+ 1))
    let requestEvents = pump(&c, into: &s)
    guard case .handshakeRequest(let request)? = requestEvents.first else {
        throw TestFailure("no handshake request: \(requestEvents)")
    }
    try s.accept(subprotocol: request.subprotocols.first)
    let serverEvents = drain(&s)
    guard case .handshakeCompleted? = serverEvents.first else { throw TestFailure("server: \(serverEvents)") }
    let clientEvents = pump(&s, into: &c)
    guard case .handshakeCompleted? = clientEvents.first else { throw TestFailure("client: \(clientEvents)") }
    return (c, s)
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One frame as a test writes it, masked with `key` when given (masked here by a plain byte loop,
/// independent of the library's masking code).
func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, key: [UInt8]? = nil) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let maskBit: UInt8 = key == nil ? 0 : 0x80
    if payload.count < 126 {
        out.append(maskBit | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        out += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        out.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
    }
    if let key {
        out += key
        for (i, b) in payload.enumerated() { out.append(b ^ key[i % 4]) }
    } else {
        out += payload
    }
    return out
}

/// A frame as a client sends it (masked with a fixed key).
func clientFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
    frame(opcode, payload, fin: fin, rsv: rsv, key: [0x11, 0x22, 0x33, 0x44])
}

struct DecodedFrame: Equatable {
    var fin: Bool
    var opcode: UInt8
    var masked: Bool
    var payload: [UInt8]
}

/// Decodes the frames in `bytes` (test-side decoder).
func decodeFrames(_ bytes: [UInt8]) -> [DecodedFrame] {
    var frames: [DecodedFrame] = []
    var i = 0
    while i < bytes.count {
        let parsed = bytes[i...].withUnsafeBytes { FrameHeader.parse($0) }
        guard case .header(let header, let size) = parsed else { break }
        i += size
        let n = Int(header.payloadLength)
        var payload = Array(bytes[i..<min(bytes.count, i + n)])
        if let key = header.maskingKey {
            let k = key.bytes
            for j in payload.indices { payload[j] ^= k[j % 4] }
        }
        i += n
        frames.append(DecodedFrame(fin: header.fin, opcode: header.opcodeValue, masked: header.maskingKey != nil, payload: payload))
    }
    return frames
}

/// The close code in a close frame payload.
func closeCode(of frame: DecodedFrame) -> UInt16? {
    guard frame.opcode == 0x8, frame.payload.count >= 2 else { return nil }
    return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
}
