// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(Testing) import WebSocketCore

/// Stops the fuzzer on a broken invariant: the message is printed, the process traps, and libFuzzer
/// saves the input as `crash-…`.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fflush(nil)  // what Trace printed before the failure
    fatalError("FUZZ INVARIANT BROKEN: \(message)", file: file, line: line)
}

/// Checks a connection's event stream as it is pulled: `.closed` comes last and once; a protocol
/// violation is followed by `.closed` with its code, which may be sent on the wire; a failed handshake
/// by `.closed` with 1006; payloads within their limits.
public struct EventChecker {
    public let who: String
    public let limits: Connection.Limits
    /// The largest piece of ``Connection/Delivery/fragments``: a frame's payload, or what a transform decoded
    /// from one frame (the `deflate` target sets the message limit).
    public var maxPieceSize: Int
    public private(set) var events: [Connection.Event] = []
    public private(set) var closedStatus: Connection.CloseStatus?
    private var expectingClosed: Connection.CloseStatus?
    private var handshakeOutcomes = 0

    public init(who: String, limits: Connection.Limits) {
        self.who = who
        self.limits = limits
        maxPieceSize = limits.maxFrameSize
    }

    /// Pulls every event of `connection`, checking each one, then checks the state it is left in,
    /// which it returns (`state` copies the connection's phase: the checks that follow reuse it).
    @discardableResult
    public mutating func drain(_ connection: inout Connection) -> Connection.State {
        drain(&connection) { _, _ in }
    }

    /// The same, calling `act` after each event is checked (to accept a handshake request, say).
    @discardableResult
    public mutating func drain(_ connection: inout Connection, act: (Connection.Event, inout Connection) -> Void) -> Connection.State {
        while let event = connection.nextEvent() {
            record(event)
            act(event, &connection)
        }
        // `nil` means nothing more can happen without input: asking again changes nothing.
        if let late = connection.nextEvent() { fuzzFailure("\(who): nextEvent() returned \(late) after nil") }
        let state = connection.state
        checkState(state)
        return state
    }

    public mutating func record(_ event: Connection.Event) {
        if let closedStatus { fuzzFailure("\(who): \(event) after .closed(\(closedStatus))") }
        // Room for the events of a typical script at once, rather than growing from one.
        if events.capacity == 0 { events.reserveCapacity(32) }
        defer { events.append(event) }
        if let expected = expectingClosed {
            guard event == .closed(expected) else { fuzzFailure("\(who): expected .closed(\(expected)), got \(event)") }
            expectingClosed = nil
        }
        switch event {
        case .protocolViolation(let violation):
            // The connection sends this code: it must be one that may be sent (RFC 6455 §7.4).
            guard violation.closeCode.isValidOnWire else {
                fuzzFailure("\(who): violation \(violation) closes with \(violation.closeCode), not valid on the wire")
            }
            expectingClosed = Connection.CloseStatus(code: violation.closeCode, reason: violation.reason, wasClean: false,
                                          failure: .protocolViolation(violation))
        case .handshakeFailed:
            handshakeOutcomes += 1
            if handshakeOutcomes > 1 { fuzzFailure("\(who): a second handshake outcome \(event)") }
            expectingClosed = Connection.CloseStatus(code: .abnormalClosure, reason: "opening handshake failed", wasClean: false)
        case .handshakeCompleted:
            handshakeOutcomes += 1
            if handshakeOutcomes > 1 { fuzzFailure("\(who): a second handshake outcome \(event)") }
        case .handshakeRequest:
            // (Server) Once, and before any outcome.
            guard events.isEmpty else { fuzzFailure("\(who): \(event) after \(events.suffix(2))") }
        case .closed(let status):
            closedStatus = status
            switch status.failure {
            case let failure? where failure.protocolViolation != nil:
                // Only right after `.protocolViolation`, which `expectingClosed` checked.
                guard case .protocolViolation? = events.last else { fuzzFailure("\(who): \(event) without a violation") }
            case .keepaliveTimeout, .closeTimeout, .unexpectedEndOfStream, .aborted:
                guard status.code == .abnormalClosure, !status.wasClean else { fuzzFailure("\(who): \(event)") }
            case _?:
                // A failure added to the core after this harness: its invariants must be written here.
                fuzzFailure("\(who): a failure this harness does not check: \(event)")
            case nil:
                // A closing handshake (the peer's code, or 1005 when it sent none) or a handshake failure.
                guard status.code.isValidOnWire || status.code == .noStatusReceived || status.code == .abnormalClosure else {
                    fuzzFailure("\(who): \(event) reports a code that cannot have been received")
                }
            }
        case .text(let text):
            guard text.utf8.count <= limits.maxMessageSize else { fuzzFailure("\(who): text of \(text.utf8.count) bytes") }
        case .binary(let bytes):
            guard bytes.count <= limits.maxMessageSize else { fuzzFailure("\(who): binary of \(bytes.count) bytes") }
        case .fragment(let piece):
            guard piece.bytes.count <= maxPieceSize else { fuzzFailure("\(who): a piece of \(piece.bytes.count) bytes") }
        case .ping(let payload), .pong(let payload):
            guard payload.count <= 125 else { fuzzFailure("\(who): control payload of \(payload.count) bytes") }
        case .closeReceived(let frame):
            guard frame.code.isValidOnWire || frame.code == .noStatusReceived, frame.reason.utf8.count <= 123 else {
                fuzzFailure("\(who): \(event)")
            }
        }
    }

    /// The state agrees with the events: `.closed` exactly when a `.closed` event was pulled.
    public func checkState(of connection: Connection) {
        checkState(connection.state)
    }

    /// The same, for the connection's `state`.
    public func checkState(_ state: Connection.State) {
        if expectingClosed != nil { fuzzFailure("\(who): events stopped before .closed: \(events.suffix(3))") }
        // The same cases as a switch over (state, closedStatus), without copying both into a tuple
        // (this runs after every drain).
        if case .closed(let status) = state {
            guard let reported = closedStatus else { fuzzFailure("\(who): state .closed(\(status)) without a .closed event") }
            guard status == reported else { fuzzFailure("\(who): state .closed(\(status)), event .closed(\(reported))") }
        } else if let reported = closedStatus {
            fuzzFailure("\(who): state \(state) after .closed(\(reported))")
        }
    }
}

/// Turns events into ``WireItem``s: whole messages (pieces of ``Connection/Delivery/fragments`` joined, a message
/// that never finished dropped), control frames, the peer's Close frame.
public struct ItemCollector {
    public private(set) var items: [WireItem] = []
    private var pieces: [UInt8] = []

    public init() {}

    public mutating func add(_ event: Connection.Event) {
        if items.capacity == 0 { items.reserveCapacity(16) }
        switch event {
        case .text(let text): items.append(.text(Array(text.utf8)))
        case .binary(let bytes): items.append(.binary(bytes))
        case .fragment(let piece):
            if piece.isFirst { pieces = [] }  // a message a failure cut short is dropped
            pieces += piece.bytes
            if piece.isFinal {
                items.append(piece.kind == .text ? .text(pieces) : .binary(pieces))
                pieces = []
            }
        case .ping(let payload): items.append(.ping(payload))
        case .pong(let payload): items.append(.pong(payload))
        case .closeReceived(let frame):
            items.append(.close(code: frame.code == .noStatusReceived ? nil : frame.code.rawValue,
                                reason: Array(frame.reason.utf8)))
        case .handshakeRequest, .handshakeCompleted, .handshakeFailed, .protocolViolation, .closed:
            break
        }
    }
}

/// Events with the pieces of ``Connection/Delivery/fragments`` joined into whole messages, so that runs that
/// split the input differently (and so deliver different pieces) compare equal. A message that never
/// finished is dropped: where a failure cuts it depends on where the input was split.
public func normalized(_ events: [Connection.Event]) -> [Connection.Event] {
    var out: [Connection.Event] = []
    var pieces: [UInt8] = []
    for event in events {
        guard case .fragment(let piece) = event else {
            out.append(event)
            continue
        }
        if piece.isFirst { pieces = [] }
        pieces += piece.bytes
        if piece.isFinal {
            out.append(piece.kind == .text ? .text(String(decoding: pieces, as: UTF8.self)) : .binary(pieces))
            pieces = []
        }
    }
    return out
}

/// Memory bounds: what a connection holds stays within its limits plus a constant.
public enum MemoryBounds {
    /// How many times `maxHeaderBytes` the HTTP head parser may hold: once. (It releases a long line's
    /// buffer once the line is parsed, and bounds a field's decoded size before storing it.)
    public static let headFactor = 1

    /// `retainedPayloadCapacity` is within the limit of the phase (the HTTP head and a refusal's body
    /// while connecting, a message once open), plus ``FuzzConfiguration/memorySlack``.
    public static func check(_ connection: Connection, who: String) {
        check(connection, state: connection.state, limits: connection.configuration.limits, who: who)
    }

    /// The same, with the connection's `state` and limits known (the getters copy the connection's
    /// phase and configuration, which costs more than the check when it runs after every step).
    public static func check(_ connection: Connection, state: Connection.State, limits: Connection.Limits, who: String) {
        let handshake = headFactor * limits.maxHeaderBytes + limits.maxRejectionBodySize
        let frames = limits.maxMessageSize
        let bound: Int
        switch state {
        case .connecting: bound = handshake
        case .open, .closing: bound = frames
        case .closed: bound = max(handshake, frames)
        }
        let retained = connection.retainedPayloadCapacity
        guard retained <= bound + FuzzConfiguration.memorySlack else {
            fuzzFailure("\(who): retainedPayloadCapacity \(retained) > \(bound) + \(FuzzConfiguration.memorySlack) in state \(state)")
        }
        // (Not memory, but checked as often:) the stored deadline is the one the timers give.
        guard connection.nextDeadline == connection.recomputedDeadline else {
            fuzzFailure("\(who): nextDeadline \(String(describing: connection.nextDeadline)) but the timers say \(String(describing: connection.recomputedDeadline))")
        }
    }

    /// After events were pulled until `nil`, the input is parsed as far as it can be: the connection
    /// holds at most an incomplete frame header (while frames are read), nothing while a head or a
    /// body is read, nothing once closed.
    public static func checkInputDrained(_ connection: Connection, who: String) {
        checkInputDrained(connection, state: connection.state, who: who)
    }

    /// The same, with the connection's `state` known.
    public static func checkInputDrained(_ connection: Connection, state: Connection.State, who: String) {
        let buffered = connection.bufferedInputCount
        let allowed: Int
        switch state {
        case .open, .closing(initiatedBy: .local): allowed = 13  // one byte short of the largest header
        case .closing(initiatedBy: .remote): allowed = 0  // nothing after the peer's Close is ever read
        case .connecting: allowed = connection.pendingHandshakeRequest == nil ? 0 : .max
        case .closed: allowed = 0
        }
        guard buffered <= allowed else {
            fuzzFailure("\(who): bufferedInputCount \(buffered) > \(allowed) after draining, in state \(state)")
        }
    }
}

/// What a throwing call must leave unchanged (RFC-independent API contract: a `Connection.UsageError`
/// changes nothing).
public struct Snapshot: Equatable {
    var state: Connection.State
    var pendingOutput: Int
    var bufferedInput: Int
    var retained: Int
    var deadline: Connection.Instant?

    public init(_ connection: Connection) {
        state = connection.state
        pendingOutput = connection.pendingOutputCount
        bufferedInput = connection.bufferedInputCount
        retained = connection.retainedPayloadCapacity
        deadline = connection.nextDeadline
    }
}

/// Whether `sub` appears in `sequence` in order (not necessarily contiguously).
public func isSubsequence<T: Equatable>(_ sub: [T], of sequence: [T]) -> Bool {
    var index = sequence.startIndex
    for element in sub {
        guard let found = sequence[index...].firstIndex(of: element) else { return false }
        index = found + 1
    }
    return true
}

/// With WEBSOCKET_FUZZ_TRACE=1 in the environment, the targets print what each run did (events,
/// frames written): for reading a crash, or checking that a seed does what it should.
public enum Trace {
    public static let enabled: Bool = {
        guard let value = getenv("WEBSOCKET_FUZZ_TRACE") else { return false }
        return String(cString: value) != "0"
    }()

    public static func print(_ message: @autoclosure () -> String) {
        if enabled { Swift.print(message()) }
    }
}
