// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketCore

/// The other end of the connection under test. Everything the connection under test writes goes
/// through the harness's ``WireDecoder`` (is it valid?) and into this peer (does the library read back
/// exactly what the decoder read?). The peer only ever reads valid bytes, so it must never fail.
public struct Peer {
    public var connection: Connection
    public private(set) var decoder: WireDecoder
    public private(set) var checker: EventChecker
    public private(set) var collector = ItemCollector()

    public init(_ connection: Connection, writerIsClient: Bool, writer: String) {
        self.connection = connection
        decoder = WireDecoder(masked: writerIsClient, writer: writer)
        checker = EventChecker(who: "peer of \(writer)", limits: connection.configuration.limits)
    }

    /// Delivers bytes the connection under test wrote.
    public mutating func deliver(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        decoder.feed(bytes)
        connection.receive(bytes)
        drainAndCompare()
    }

    /// Items already found equal, so that each check compares only what is new.
    private var matched = 0

    /// Pulls the peer's events and checks that they say what the decoder read.
    public mutating func drainAndCompare() {
        let before = checker.events.count
        checker.drain(&connection)
        for event in checker.events[before...] {
            if case .protocolViolation(let violation) = event {
                fuzzFailure("\(checker.who) failed on bytes the harness decoded as valid: \(violation)")
            }
            collector.add(event)
        }
        let read = collector.items, decoded = decoder.items
        guard read.count == decoded.count, read[matched...] == decoded[matched...] else {
            fuzzFailure("""
                the serializer's output does not re-parse to the same frames:
                  decoded by the harness: \(decoder.items.suffix(4)) (\(decoder.items.count) items)
                  read by the peer:       \(collector.items.suffix(4)) (\(collector.items.count) items)
                """)
        }
        matched = read.count
    }
}
