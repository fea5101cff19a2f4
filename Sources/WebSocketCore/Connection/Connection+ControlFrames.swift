// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Control frames as they complete (RFC 6455 §5.5): the automatic pong, the Close frame's payload
// checks (§5.5.1, §7.4), and failing the connection for a peer's violation (§7.1.7).

extension Connection {
    /// The control frame's payload, moved out: the event takes the buffer itself. (Emptied with
    /// its capacity kept, the buffer, shared with the event, was copied into a new allocation.)
    mutating func takeControlPayload() -> [UInt8] {
        var payload: [UInt8] = []
        swap(&payload, &controlBuffer)
        return payload
    }

    mutating func receivedPing() -> Step {
        receivedPing(takeControlPayload())
    }

    /// A whole ping, its payload taken from wherever it was read.
    mutating func receivedPing(_ payload: [UInt8]) -> Step {
        // RFC 6455 §5.5.2: "Upon receipt of a Ping frame, an endpoint MUST send a Pong frame in
        // response, unless it already received a Close frame." Not after ours either: nothing follows
        // our Close. While the output is backed up the pong is skipped; §5.5.3 allows answering only
        // the latest ping.
        if configuration.respondsToPingsAutomatically, case .open = phase,
           bufferedOutput <= configuration.limits.maxBufferedOutput {
            writeFrame(.pong, fin: true, payload: payload)
        }
        return .event(.ping(payload))
    }

    mutating func receivedPong() -> Step {
        receivedPong(takeControlPayload())
    }

    /// A whole pong, its payload taken from wherever it was read.
    mutating func receivedPong(_ payload: [UInt8]) -> Step {
        transition(.pongReceived)
        answerAwaitedPings(payload)
        return .event(.pong(payload))
    }

    mutating func receivedClose() -> Step {
        // Parsed where it lies: taking the payload out (``takeControlPayload()``) would leave the
        // buffer shared, and emptying it then allocates a new one, for a frame that is the last.
        let parsed = controlBuffer.withUnsafeBytes { Self.parseClosePayload($0) }
        controlBuffer.removeAll(keepingCapacity: true)
        return receivedClose(parsed)
    }

    /// A whole Close frame, its payload parsed (``parseClosePayload(_:)``) wherever it was read.
    mutating func receivedClose(_ parsed: Result<Connection.CloseFrame, Connection.ProtocolViolation>) -> Step {
        switch parsed {
        case .failure(let violation): return fail(violation)
        case .success(let frame): return progress(.closeReceived(frame))
        }
    }

    /// Validates a Close frame's payload (RFC 6455 §5.5.1, §7.4).
    static func parseClosePayload(_ payload: UnsafeRawBufferPointer) -> Result<Connection.CloseFrame, Connection.ProtocolViolation> {
        if payload.isEmpty { return .success(Connection.CloseFrame(code: .noStatusReceived)) }
        // RFC 6455 §5.5.1: "If there is a body, the first two bytes of the body MUST be a 2-byte
        // unsigned integer".
        guard payload.count >= 2 else { return .failure(Connection.ProtocolViolation(.invalidClosePayload)) }
        let code = Connection.CloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { return .failure(Connection.ProtocolViolation(.invalidCloseCode(code.rawValue))) }
        var validator = UTF8Validator()
        let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
        guard validator.validate(reason), validator.isAtCharacterBoundary else {
            return .failure(Connection.ProtocolViolation(.invalidCloseReason))
        }
        // Most Close frames carry no reason: the empty literal, without the decoder's call.
        return .success(Connection.CloseFrame(code: code, reason: reason.isEmpty ? "" : String(decoding: reason, as: UTF8.self)))
    }

    /// Fails the connection for a peer's violation (RFC 6455 §7.1.7): the Close frame with the
    /// violation's code unless ours is already out, then `.protocolViolation` and `.closed`.
    mutating func fail(_ violation: Connection.ProtocolViolation) -> Step {
        progress(.violation(violation))
    }
}
