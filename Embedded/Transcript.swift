// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// The same scenarios, built twice from this one file: in Embedded Swift (with the core's sources,
// `-enable-experimental-feature Embedded`) and in full Swift. Each build prints a transcript of every
// event and every output byte (as a hash and a length); Scripts/embedded-check.sh runs both and
// requires the two transcripts to be identical. Nothing here uses reflection, existentials or
// Foundation, so that it compiles in both modes.

/// FNV-1a over bytes: a short, stable fingerprint of an output.
func fingerprint(_ bytes: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return "\(bytes.count)B#" + hex(hash)
}

func hex(_ value: UInt64) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
    var text = ""
    for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((value >> UInt64(shift)) & 0xF)]) }
    return text
}

/// A duration as whole seconds and attoseconds (floating-point printing is not in Embedded Swift).
func describe(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return "\(seconds)s+\(attoseconds)as"
}

/// An awaited ping's round trip, or "-". Not inlined: inlined into `scenarios()`, the 6.3.1
/// compiler's CopyPropagation crashed on it in Embedded mode with -O.
@inline(never)
func answered(_ outcome: Connection.PingOutcome) -> String {
    guard let roundTrip = outcome.answered else { return "-" }
    return describe(roundTrip)
}

/// One event as a line: its kind, and what identifies its content.
/// A lent event, described by what it lends.
func lentLine(_ view: Connection.EventView) -> String {
    switch view {
    case .text(let bytes): return "text " + fingerprint(Array(bytes))
    case .binary(let bytes): return "binary " + fingerprint(Array(bytes))
    case .other(let event): return line(event)
    }
}

func line(_ event: Connection.Event) -> String {
    switch event {
    case .handshakeRequest(let request):
        return "handshakeRequest \(request.resource) key=\(request.key) protocols=\(request.subprotocols.count)"
    case .handshakeCompleted(let result):
        return "handshakeCompleted protocol=\(result.subprotocol ?? "-") extensions=\(result.extensions.count)"
    case .handshakeFailed(let failure): return "handshakeFailed \(failure)"
    case .text(let text): return "text " + fingerprint(Array(text.utf8))
    case .binary(let bytes): return "binary " + fingerprint(bytes)
    case .fragment(let fragment):
        return "fragment first=\(fragment.isFirst) final=\(fragment.isFinal) " + fingerprint(fragment.bytes)
    case .ping(let payload): return "ping " + fingerprint(payload)
    case .pong(let payload): return "pong " + fingerprint(payload)
    case .closeReceived(let frame): return "closeReceived \(frame.code.rawValue) \(frame.reason)"
    case .protocolViolation(let violation): return "protocolViolation \(violation)"
    case .closed(let status): return "closed \(status)"
    }
}

/// A client and a server connection that talk to each other, with a transcript.
struct Pair {
    var client: Connection
    var server: Connection
    var transcript: [String] = []
    var now = Connection.Instant.zero

    init(client clientConfiguration: Connection.Configuration = Connection.Configuration(),
         server serverConfiguration: Connection.Configuration = Connection.Configuration()) throws(Connection.UsageError) {
        let url: WebSocketURL
        do throws(WebSocketURLError) {
            url = try WebSocketURL(parsing: "ws://example.com/chat?room=1")
        } catch {
            throw .invalidHeader("url")
        }
        var options = Connection.ClientOptions(url: url)
        options.subprotocols = ["chat", "superchat"]
        client = try Connection(role: .client(options), configuration: clientConfiguration,
                                random: Connection.SeededGenerator(seed: 2026))
        server = try Connection(role: .server, configuration: serverConfiguration,
                                random: Connection.SeededGenerator(seed: 6455))
    }

    mutating func note(_ text: String) { transcript.append(text) }

    /// Moves the client's output to the server (or back), in pieces of `piece` bytes, pulling events
    /// after each piece; returns the events.
    mutating func clientToServer(piece: Int = 1 << 20) -> [Connection.Event] {
        let bytes = client.takeOutput()
        note("client wrote " + fingerprint(bytes))
        return deliver(bytes, piece: piece, toServer: true)
    }

    mutating func serverToClient(piece: Int = 1 << 20) -> [Connection.Event] {
        let bytes = server.takeOutput()
        note("server wrote " + fingerprint(bytes))
        return deliver(bytes, piece: piece, toServer: false)
    }

    private mutating func deliver(_ bytes: [UInt8], piece: Int, toServer: Bool) -> [Connection.Event] {
        var events: [Connection.Event] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            if toServer { server.receive(Array(bytes[start..<end])) } else { client.receive(Array(bytes[start..<end])) }
            start = end
            while let event = toServer ? server.nextEvent() : client.nextEvent() {
                note((toServer ? "server " : "client ") + line(event))
                events.append(event)
            }
        }
        return events
    }

    mutating func tick(_ seconds: Int) {
        now = now + .seconds(seconds)
        client.advanceTime(to: now)
        server.advanceTime(to: now)
        while let event = client.nextEvent() { note("client " + line(event)) }
        while let event = server.nextEvent() { note("server " + line(event)) }
        note("t=\(seconds) client next=\(client.nextDeadline.map { describe($0.sinceOrigin) } ?? "-")")
    }

    /// The opening handshake, the server choosing "chat".
    mutating func open() throws(Connection.UsageError) {
        client.advanceTime(to: now)
        server.advanceTime(to: now)
        _ = clientToServer(piece: 7)
        try server.accept(subprotocol: "chat")
        _ = serverToClient()
        // Opening started the keepalive timer: the time is reported at once, as nextDeadline asks.
        client.advanceTime(to: now)
        server.advanceTime(to: now)
    }
}

func scenarios() throws(Connection.UsageError) -> [String] {
    var all: [String] = []

    // Messages both ways, whole and in pieces, masked, text and binary, fragmented, pings.
    var pair = try Pair()
    try pair.open()
    try pair.client.send(text: "hello, embedded world ✓")
    try pair.client.send(binary: (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    _ = pair.clientToServer(piece: 3)
    try pair.server.send(text: String(repeating: "é", count: 70_000))
    _ = pair.serverToClient(piece: 1_500)
    try pair.client.sendFragment(Array("part one, ".utf8), kind: .text, isFinal: false)
    try pair.client.ping([1, 2, 3])
    try pair.client.sendFragment(Array("part two".utf8), kind: .text, isFinal: true)
    _ = pair.clientToServer(piece: 5)
    _ = pair.serverToClient()  // the automatic pong
    let id = try pair.client.sendPing(awaitingPongWithin: .seconds(5))
    pair.tick(0)
    _ = pair.clientToServer()
    _ = pair.serverToClient()
    while let (ended, outcome) = pair.client.nextPingOutcome() {
        pair.note("ping \(ended == id) answered=" + answered(outcome))
    }
    // The closing handshake.
    try pair.client.close(code: .goingAway, reason: "bye")
    _ = pair.clientToServer()
    _ = pair.serverToClient()
    pair.tick(1)
    pair.note("client directive closes=\(pair.client.shouldCloseTransport) server closes=\(pair.server.shouldCloseTransport)")
    all += pair.transcript

    // Invalid UTF-8 from the client: 1007; a message over the limit: 1009.
    pair = try Pair()
    try pair.open()
    // A masked text frame (key 0) whose payload is not UTF-8: a sender of ours would refuse it.
    pair.server.receive([0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28])
    while let event = pair.server.nextEvent() { pair.note("server " + line(event)) }
    _ = pair.serverToClient()
    all += pair.transcript

    // Read in place: lent buffers, a cut inside a frame, messages seen where they lie, then echoed.
    pair = try Pair()
    try pair.open()
    try pair.client.send(text: "in place ✓")
    try pair.client.send(binary: (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 5) })
    try pair.client.ping([4])
    try pair.client.send(text: String(repeating: "ü", count: 200))
    var wire = pair.client.takeOutput()
    pair.note("client wrote " + fingerprint(wire))
    var seen: [String] = []
    let cut = 11
    wire.withUnsafeMutableBytes { bytes in
        pair.server.receive(lending: UnsafeMutableRawBufferPointer(rebasing: bytes[..<cut])) { view in
            seen.append(lentLine(view))
        }
    }
    // (The array's closure rethrows untyped errors, which Embedded Swift lacks: a Result crosses it.)
    try wire.withUnsafeMutableBytes { bytes in
        Result { () throws(Connection.UsageError) in
            try pair.server.receiveAndAnswer(lending: UnsafeMutableRawBufferPointer(rebasing: bytes[cut...])) { view in
                seen.append(lentLine(view))
                return .echo
            }
        }
    }.get()
    for text in seen { pair.note("server lent " + text) }
    _ = pair.serverToClient(piece: 100)
    // Then echoes framed in the read buffer itself, written as the pieces the server lends.
    try pair.client.send(binary: (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 3) })
    try pair.client.ping([5, 6])
    try pair.client.send(text: "echoed where it lies")
    var second = pair.client.takeOutput()
    pair.note("client wrote " + fingerprint(second))
    var written: [UInt8] = []
    var pieces = 0
    try second.withUnsafeMutableBytes { bytes in
        Result { () throws(Connection.UsageError) in
            try pair.server.receiveAndAnswer(lending: bytes, writingOutput: { list in
                pieces += list.count
                for piece in list { written.append(contentsOf: piece) }
                return written.count
            }) { _ in .echo }
        }
    }.get()
    pair.note("server wrote \(pieces) pieces " + fingerprint(written))
    pair.client.receive(written)
    while let event = pair.client.nextEvent() { pair.note("client " + line(event)) }
    all += pair.transcript

    var small = Connection.Configuration()
    small.limits.maxMessageSize = 1_000
    small.fragmentationSize = 100
    pair = try Pair(server: small)
    try pair.open()
    try pair.client.send(binary: [UInt8](repeating: 9, count: 1_001))
    _ = pair.clientToServer(piece: 64)
    _ = pair.serverToClient()
    all += pair.transcript

    // The timers: a close the peer never answers; keepalive.
    var keepalive = Connection.Configuration()
    keepalive.timeouts.keepaliveInterval = .seconds(30)
    keepalive.timeouts.keepaliveTimeout = .seconds(10)
    keepalive.timeouts.close = .seconds(3)
    pair = try Pair(client: keepalive)
    try pair.open()
    pair.tick(30)
    _ = pair.clientToServer()
    pair.tick(41)
    all += pair.transcript

    // A server that refuses: not a WebSocket request.
    var server = try Connection(role: .server)
    server.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
    while let event = server.nextEvent() { all.append("refusing " + line(event)) }
    all.append("refusing wrote " + fingerprint(server.takeOutput()))
    return all
}

@main
struct Transcript {
    static func main() {
        do throws(Connection.UsageError) {
            for line in try scenarios() { print(line) }
        } catch {
            print("usage error: \(error)")
        }
    }
}
