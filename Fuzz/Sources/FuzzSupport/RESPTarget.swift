// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

@_spi(Testing) import WebSocketRedis

/// `resp`: `RESPDecoder` fed arbitrary bytes from a Redis server, or RESP written by `RESPEncoder`
/// from a script; the Pub/Sub classifier and the subscriber handshake fed each value decoded.
///
/// Input: `control`, two bytes of split seed, then the rest. Bits of `control`: 0x03 the limits (0:
/// the defaults; 1: small, a bulk of 64 bytes, 8 elements, depth 4, lines of 32, values of 512 bytes;
/// 2: tiny, 1 byte, 1 element, depth 1, lines of 1, values of 16 bytes; 3: bulks of 0, 1,048,576
/// elements, depth 64); 0x04 build mode: the rest is a script of values (below) the harness encodes,
/// with attributes before some, and appends in order; otherwise (raw mode) the rest is the stream.
///
/// Build mode, so that the fuzzer reaches deep, valid structures: each value is one byte `op % 16`
/// and its operands (0 simple string, 1 error: a length byte % 40 and bytes, CR and LF made spaces;
/// 2 integer: 8 bytes; 3 bulk string, 10 bulk error: a length byte % 80 and bytes; 4 null bulk string;
/// 5 null array; 6 null; 7 boolean; 8 double: 8 bytes of bit pattern; 9 big number: a length byte and
/// as many digits; 11 verbatim string: 3 format bytes, a length byte % 40, bytes; 12 to 14 array, set
/// or push, 15 map: a count byte % 5 and that many values, or entries; beyond depth 6, a null) and,
/// when the op's high bit is set, an attribute of one entry before it.
///
/// Invariants, after every call: when it returns nil, the decoder holds at most one line and one bulk
/// string (its header, `maxLineLength` + 3, and `maxBulkLength` + 2); never more open aggregates than `maxDepth`, no more bytes
/// for the value being read than `maxValueBytes`; an error's offset is a byte of the input. The input
/// whole, at the split, byte by byte and in pieces of 1 to 64 bytes from the seed gives the same
/// values (compared by their encoding), error and partial state. Every decoded value re-encodes to
/// bytes that decode (default limits) to one value that encodes the same. With the default limits,
/// `RESPReference`, a recursive decoder written apart, reads the same values from the whole input and
/// agrees on how it ends (cleanly, inside a value, or failed). In build mode with the
/// default limits, the stream decodes to exactly the values built, attributes skipped. The Pub/Sub
/// classifier and a handshake waiting for its subscriptions take every decoded value without trapping.
/// A ready `RedisClient`, subscriber and publisher, fed the stream whole and in the pieces gives the
/// same events, nothing after `.failed`, and never queues output in answer to input.
public enum RESPTarget {
    struct Fed: Equatable {
        var values: [[UInt8]] = []
        var error: RESPError?
        var partial = false
    }

    static let limitSets: [RESPDecoder.Limits] = [
        RESPDecoder.Limits(),
        RESPDecoder.Limits(maxBulkLength: 64, maxElementCount: 8, maxDepth: 4, maxLineLength: 32, maxValueBytes: 512),
        RESPDecoder.Limits(maxBulkLength: 1, maxElementCount: 1, maxDepth: 1, maxLineLength: 1, maxValueBytes: 16),
        RESPDecoder.Limits(maxBulkLength: 0, maxElementCount: 1 << 20, maxDepth: 64),
    ]

    public static func run(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let control = input.byte()
        let seed = Int(input.uint16())
        let limits = limitSets[Int(control & 0x03)]
        var wire: [UInt8]
        var built: [[UInt8]]?
        if control & 0x04 != 0 {
            var script = FuzzInput(input.rest())
            var expected: [[UInt8]] = []
            wire = []
            while !script.isAtEnd && expected.count < 16 {
                let value = build(&script, depth: 0, wire: &wire)
                expected.append(encode(value))
            }
            built = expected
        } else {
            wire = input.rest()
        }

        let whole = feed(wire, pieces: [wire.count], limits: limits)
        let cut = seed % (wire.count + 1)
        let split = feed(wire, pieces: [cut, wire.count - cut], limits: limits)
        guard split == whole else { fuzzFailure("split at \(cut) of \(wire.count): \(split) against \(whole)") }
        if wire.count <= 4096 {
            let bytewise = feed(wire, pieces: Array(repeating: 1, count: wire.count), limits: limits)
            guard bytewise == whole else { fuzzFailure("byte by byte: \(bytewise) against \(whole)") }
        }
        var pieces: [Int] = []
        var left = wire.count
        var state = UInt32(truncatingIfNeeded: seed) &* 2_654_435_761 | 1
        while left > 0 {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let piece = min(left, Int(state % 64) + 1)
            pieces.append(piece)
            left -= piece
        }
        let random = feed(wire, pieces: pieces, limits: limits)
        guard random == whole else { fuzzFailure("pieces \(pieces): \(random) against \(whole)") }

        if let error = whole.error, error.offset < 0 || error.offset >= wire.count {
            fuzzFailure("error offset \(error.offset) outside the \(wire.count) bytes: \(error)")
        }
        if control & 0x03 == 0 {
            let reference = RESPReference.decode(wire)
            let end: RESPReference.End = whole.error != nil ? .failed : whole.partial ? .partial : .clean
            guard reference.values.map(encode) == whole.values, reference.end == end else {
                fuzzFailure("the reference decoder read \(reference.values.count) values, \(reference.end); the decoder \(whole)")
            }
        }
        for role in [RedisClient.Role.subscriber, .publisher] {
            let wholeEvents = clientEvents(wire, pieces: [wire.count], role: role)
            let pieceEvents = clientEvents(wire, pieces: pieces, role: role)
            guard wholeEvents == pieceEvents else {
                fuzzFailure("RedisClient (\(role)) in pieces \(pieces): \(pieceEvents) against \(wholeEvents)")
            }
        }
        if let built, control & 0x03 == 0 {
            guard whole.error == nil, !whole.partial, whole.values == built else {
                fuzzFailure("built values \(built) decoded as \(whole)")
            }
        }
    }

    /// A ready `RedisClient`, a subscriber to `a` and `b` or a publisher awaiting the replies to two
    /// publishes and a ping, fed the wire in pieces: its events. Checks that nothing comes after
    /// `.failed`, and that input never makes it queue output (it answers nothing a server sends).
    /// (The decoder's default limits: the scripted start needs them; the limit sets are the decoder's
    /// own checks' business.)
    static func clientEvents(_ wire: [UInt8], pieces: [Int], role: RedisClient.Role) -> [RedisClient.Event] {
        var client = RedisClient(endpoint: RedisEndpoint(address: .unix(path: "/r")), role: role,
                                 channels: role == .subscriber ? ["a", "b"] : [],
                                 limits: RedisClient.Limits(maxPendingReplies: 8, maxOutputBytes: 4096))
        client.start()
        client.receive(Array("%0\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n".utf8)
                           .prefix(role == .subscriber ? .max : 4))
        if role == .publisher {
            try? client.publish(channel: "a", payload: [1])
            try? client.ping()
            try? client.publish(channel: "b", payload: [])
        }
        guard client.nextEvent() == .ready(protocolVersion: 3), client.nextEvent() == nil else {
            fuzzFailure("RedisClient (\(role)) not ready after its scripted start")
        }
        _ = client.takeOutput()
        var events: [RedisClient.Event] = []
        var offset = 0
        for piece in pieces {
            client.receive(wire[offset..<(offset + piece)])
            offset += piece
            while let event = client.nextEvent() {
                if case .failed? = events.last { fuzzFailure("RedisClient (\(role)): \(event) after \(events.last!)") }
                events.append(event)
            }
            if client.pendingOutputCount != 0 { fuzzFailure("RedisClient (\(role)) queued output in answer to input") }
        }
        return events
    }

    /// Feeds the wire in pieces, pulling after each, checking the bounds after every call and the round
    /// trip of every value.
    static func feed(_ wire: [UInt8], pieces: [Int], limits: RESPDecoder.Limits) -> Fed {
        var decoder = RESPDecoder(limits: limits)
        var fed = Fed()
        var offset = 0
        var handshake = RedisSubscriberHandshake(endpoint: RedisEndpoint(address: .unix(path: "/r")), channels: ["a", "b"])
        _ = handshake.start()
        _ = try? handshake.receive(.map([]))
        for piece in pieces {
            decoder.feed(wire[offset..<(offset + piece)])
            offset += piece
            while true {
                let value: RESPValue?
                do throws(RESPError) {
                    value = try decoder.next()
                } catch {
                    fed.error = error
                    return fed
                }
                checkBounds(decoder, limits, pending: value == nil)
                guard let value else { break }
                let encoded = encode(value)
                fed.values.append(encoded)
                checkRoundTrip(encoded)
                _ = try? RedisPubSubMessage(value)
                _ = try? handshake.receive(value)
            }
        }
        fed.partial = decoder.hasPartialValue
        return fed
    }

    /// Only once the decoder is pending does what it holds have to fit in one line and one bulk string:
    /// after a value, the bytes of the values after it are still to be pulled.
    static func checkBounds(_ decoder: RESPDecoder, _ limits: RESPDecoder.Limits, pending: Bool) {
        guard !pending || decoder.bufferedByteCount <= limits.maxLineLength + 3 + limits.maxBulkLength + 2 else {
            fuzzFailure("\(decoder.bufferedByteCount) bytes held, over one line and one bulk string")
        }
        guard decoder.depth <= limits.maxDepth else { fuzzFailure("depth \(decoder.depth) over \(limits.maxDepth)") }
        guard decoder.pendingValueBytes <= limits.maxValueBytes else {
            fuzzFailure("\(decoder.pendingValueBytes) bytes for one value, over \(limits.maxValueBytes)")
        }
    }

    static func checkRoundTrip(_ encoded: [UInt8]) {
        var again = RESPDecoder()
        again.feed(encoded)
        do throws(RESPError) {
            guard let value = try again.next() else { fuzzFailure("re-encoded \(encoded) is partial") }
            guard encode(value) == encoded else { fuzzFailure("re-encoded \(encoded) decodes as \(encode(value))") }
            guard try again.next() == nil, !again.hasPartialValue else { fuzzFailure("re-encoded \(encoded) holds more") }
        } catch {
            fuzzFailure("re-encoded \(encoded) fails: \(error)")
        }
    }

    static func encode(_ value: RESPValue) -> [UInt8] {
        var output: [UInt8] = []
        RESPEncoder.append(value, to: &output)
        return output
    }

    /// One value of the script, appended to `wire` (an attribute before it when op's high bit is set).
    static func build(_ script: inout FuzzInput, depth: Int, wire: inout [UInt8]) -> RESPValue {
        let op = script.byte()
        if op & 0x80 != 0, depth < 6 {
            wire += Array("|1\r\n".utf8)
            RESPEncoder.append(.simpleString(Array("key".utf8)), to: &wire)
            var ignored: [UInt8] = []
            RESPEncoder.append(build(&script, depth: depth + 1, wire: &ignored), to: &wire)
        }
        func line() -> [UInt8] {
            script.take(Int(script.byte() % 40)).map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 }
        }
        func int64() -> Int64 { Int64(bitPattern: script.take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
        let value: RESPValue
        switch op & 0x0F {
        case 0: value = .simpleString(line())
        case 1: value = .error(line())
        case 2: value = .integer(int64())
        case 3: value = .bulkString(script.take(Int(script.byte() % 80)))
        case 4: value = .bulkString(nil)
        case 5: value = .array(nil)
        case 6: value = .null
        case 7: value = .boolean(script.byte() & 1 == 1)
        case 8: value = .double(Double(bitPattern: UInt64(bitPattern: int64())))
        case 9:
            let negative = script.byte() & 1 == 1
            // take() gives fewer bytes at the end of the input: a big number has one digit at least.
            let digits = (script.take(Int(script.byte() % 40)) + [0]).map { UInt8(ascii: "0") + $0 % 10 }
            value = .bigNumber((negative ? [UInt8(ascii: "-")] : []) + digits)
        case 10: value = .bulkError(script.take(Int(script.byte() % 80)))
        case 11:
            var format = script.take(3)
            while format.count < 3 { format.append(UInt8(ascii: "t")) }
            value = .verbatimString(format: format, text: script.take(Int(script.byte() % 40)))
        default:
            guard depth < 6 else {
                value = .null
                break
            }
            let count = Int(script.byte() % 5)
            var scratch: [UInt8] = []
            var elements: [RESPValue] = []
            for _ in 0..<(op & 0x0F == 15 ? 2 * count : count) {
                elements.append(build(&script, depth: depth + 1, wire: &scratch))
            }
            switch op & 0x0F {
            case 12: value = .array(elements)
            case 13: value = .set(elements)
            case 14: value = .push(elements)
            default:
                value = .map(stride(from: 0, to: elements.count - 1, by: 2).map {
                    RESPValue.MapEntry(key: elements[$0], value: elements[$0 + 1])
                })
            }
            // The elements' own attributes belong inside the aggregate, after its header.
            let type = ["*", "~", ">", "%"][Int(op & 0x0F) - 12]
            wire += Array("\(type)\(count)\r\n".utf8)
            wire += scratch
            return value
        }
        RESPEncoder.append(value, to: &wire)
        return value
    }
}
