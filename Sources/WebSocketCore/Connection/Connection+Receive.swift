// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Reads frames from the buffered input until one makes an event or the input runs out.
    mutating func stepFrames() -> Step {
        while true {
            switch frame {
            case .header:
                let start = inboxStart
                let parsed = inbox.withUnsafeBytes { raw in
                    FrameHeader.parse(UnsafeRawBufferPointer(start: raw.baseAddress.map { $0 + start }, count: raw.count - start))
                }
                switch parsed {
                case .needMore:
                    return inputEnded ? progress(.endOfStream) : .needInput
                case .header(let header, let size):
                    if let step = readWholeMessageFrame(header, headerSize: size) { return step }
                    inboxStart += size
                    switch admit(header) {
                    case .failure(let violation):
                        return fail(violation)
                    case .success(let inProgress):
                        if !inProgress.opcode.isControl { startDataFrame(inProgress) }
                        frame = .payload(inProgress)
                    }
                }
            case .payload(var inProgress):
                let take = min(inbox.count - inboxStart, inProgress.remaining)
                var piece: [UInt8] = []
                if inProgress.opcode.isControl {
                    readControlPayload(&inProgress, take)
                } else {
                    switch readDataPayload(&inProgress, take) {
                    case .failure(let violation): return fail(violation)
                    case .success(let bytes): piece = bytes
                    }
                }
                guard inProgress.remaining == 0 else {
                    frame = .payload(inProgress)
                    if !piece.isEmpty { return deliverPiece(piece, isFinal: false) }
                    return inputEnded ? progress(.endOfStream) : .needInput
                }
                frame = .header
                if let step = completeFrame(inProgress, piece: piece) { return step }
            }
        }
    }

    /// The common case in one step: an unfragmented, untransformed text or binary frame whose whole
    /// payload is already buffered, delivered as a message. Anything else (or anything the checks in
    /// ``admit(_:)`` would refuse) returns `nil` and takes the general path, which decides it.
    @inline(__always)
    private mutating func readWholeMessageFrame(_ header: FrameHeader, headerSize: Int) -> Step? {
        guard let length = wholeMessageLength(header) else { return nil }
        let start = inboxStart + headerSize
        guard inbox.count - start >= length else { return nil }
        let end = start + length
        inboxStart = end
        let kind: Connection.MessageKind = header.opcodeValue == 2 ? .binary : .text
        guard let key = header.maskingKey else {
            // Unmasked (a client reading a server): the payload is used where it lies.
            return deliverWholeMessage(kind, .inbox(start..<end))
        }
        // Masked: unmask while copying, into the reusable scratch buffer when lending, or straight
        // into the message's own array. This path leaves the input buffer as it is, so that an array
        // adopted from receive(_:) stays shared with the caller's and is never copied. (A compressed
        // message is unmasked in place instead, in readDataPayload, before the inflater reads it.)
        if lendsPayloads {
            if lendScratch.count < length {
                lendScratch.append(contentsOf: repeatElement(0, count: length - lendScratch.count))
            }
            lendScratch.withUnsafeMutableBytes { dst in
                inbox.withUnsafeBytes { src in
                    _ = key.apply(from: UnsafeRawBufferPointer(rebasing: src[start..<end]),
                                  to: UnsafeMutableRawBufferPointer(rebasing: dst[0..<length]), offset: 0)
                }
            }
            return deliverWholeMessage(kind, .scratch(length))
        }
        let payload = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            inbox.withUnsafeBytes { src in
                _ = key.apply(from: UnsafeRawBufferPointer(rebasing: src[start..<end]),
                              to: UnsafeMutableRawBufferPointer(buffer), offset: 0)
            }
            count = length
        }
        if kind == .binary { return .event(.binary(payload)) }
        var validator = UTF8Validator()
        // RFC 6455 §8.1: invalid UTF-8 fails the connection.
        guard validator.validate(payload), validator.isAtCharacterBoundary else { return fail(Connection.ProtocolViolation(.invalidUTF8)) }
        return .event(.text(String(decoding: payload, as: UTF8.self)))
    }

    /// The payload length of the frame `header` starts when the whole-message path may take it: an
    /// unfragmented, untransformed text or binary frame, masked as the role wants, within the limits,
    /// with no message in progress. `nil` for anything else, which the general path decides.
    @inline(__always)
    func wholeMessageLength(_ header: FrameHeader) -> Int? {
        guard header.fin, header.reservedBits == 0, header.opcodeValue == 1 || header.opcodeValue == 2,
              case .none = incoming, transformBits == 0, (header.maskingKey == nil) == isClient,
              wholeMessageLimit >= 0, header.payloadLength <= UInt64(wholeMessageLimit) else { return nil }
        return Int(header.payloadLength)  // fits: within the limits
    }

    /// A whole message whose payload lies unmasked in the input buffer or the scratch buffer: checked
    /// (text), then lent or copied into its event.
    @inline(__always)
    private mutating func deliverWholeMessage(_ kind: Connection.MessageKind, _ payload: LentPayload) -> Step {
        // RFC 6455 §8.1: invalid UTF-8 fails the connection.
        if kind == .text, !withLentBytes(payload, Self.isWholeText) { return fail(Connection.ProtocolViolation(.invalidUTF8)) }
        if lendsPayloads { return .lent(kind, payload) }
        return .event(ownedEvent(kind, payload))
    }

    /// Whether `bytes` are a whole text message's: valid UTF-8, ending at a character boundary.
    @inline(__always)
    static func isWholeText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }

    /// Checks a frame header against RFC 6455 §5 and the limits, before any payload byte is stored.
    func admit(_ header: FrameHeader) -> Result<FrameInProgress, Connection.ProtocolViolation> {
        // RFC 6455 §5.2: "If an unknown opcode is received, the receiving endpoint MUST _Fail the
        // WebSocket Connection_."
        guard let opcode = Opcode(rawValue: header.opcodeValue) else {
            return .failure(Connection.ProtocolViolation(.unknownOpcode(header.opcodeValue)))
        }
        // RFC 6455 §5.2: "If a nonzero value is received and none of the negotiated extensions defines
        // the meaning of such a nonzero value, the receiving endpoint MUST _Fail the WebSocket Connection_."
        // A transform's bits mark a message's first frame only (RFC 7692 §6: never a continuation or
        // control frame).
        let definedBits: UInt8 = opcode == .text || opcode == .binary ? transformBits : 0
        guard header.reservedBits & ~definedBits == 0 else { return .failure(Connection.ProtocolViolation(.reservedBitsSet)) }
        // RFC 6455 §5.1: "The server MUST close the connection upon receiving a frame that is not
        // masked." and "A client MUST close a connection if it detects a masked frame."
        if isClient {
            guard header.maskingKey == nil else { return .failure(Connection.ProtocolViolation(.maskedFrame)) }
        } else {
            guard header.maskingKey != nil else { return .failure(Connection.ProtocolViolation(.unmaskedFrame)) }
        }
        // RFC 6455 §5.2: "the most significant bit MUST be 0". Checked before any conversion to Int.
        guard header.payloadLength >> 63 == 0 else { return .failure(Connection.ProtocolViolation(.invalidLength)) }

        if opcode.isControl {
            // RFC 6455 §5.5: "All control frames MUST have a payload length of 125 bytes or less and
            // MUST NOT be fragmented."
            guard header.fin else { return .failure(Connection.ProtocolViolation(.fragmentedControlFrame)) }
            guard header.payloadLength <= 125 else { return .failure(Connection.ProtocolViolation(.controlFrameTooLarge)) }
            return .success(FrameInProgress(opcode: opcode, fin: true, remaining: Int(header.payloadLength),
                                            maskingKey: header.maskingKey))
        }

        let limits = configuration.limits
        guard header.payloadLength <= UInt64(max(0, limits.maxFrameSize)) else {
            return .failure(Connection.ProtocolViolation(.frameTooLarge))
        }
        let length = Int(header.payloadLength)  // fits: at most maxFrameSize
        let announced: Int
        let fragments: Int
        switch (opcode, incoming) {
        case (.continuation, .none):
            // RFC 6455 §5.4: a continuation frame continues a message; there is none.
            return .failure(Connection.ProtocolViolation(.unexpectedContinuation))
        case (.continuation, .assembling(let assembly)):
            announced = assembly.size
            fragments = assembly.fragments
        case (_, .assembling):
            // RFC 6455 §5.4: the fragments of one message MUST NOT be interleaved with another.
            return .failure(Connection.ProtocolViolation(.expectedContinuation))
        case (_, .none):
            announced = 0
            fragments = 0
        }
        guard length <= max(0, limits.maxMessageSize) - announced else {
            return .failure(Connection.ProtocolViolation(.messageTooLarge))
        }
        guard fragments < max(1, limits.maxFragmentsPerMessage) else {
            return .failure(Connection.ProtocolViolation(.tooManyFragments))
        }
        return .success(FrameInProgress(opcode: opcode, fin: header.fin, reservedBits: header.reservedBits,
                                        remaining: length, maskingKey: header.maskingKey))
    }

}
