// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Data frames' payloads into messages (RFC 6455 §5.4, §5.6): unmasked as they are copied out of the
// input buffer (or, for a compressed message, in place there, where the inflater reads them), decoded
// by the negotiated extension, counted against the limits and checked as UTF-8 as they arrive, and
// delivered whole or as fragments.

extension Connection {
    /// Accounts for an admitted data frame in the message it starts or continues.
    mutating func startDataFrame(_ inProgress: FrameInProgress) {
        var assembly: MessageAssembly
        switch incoming {
        case .assembling(let current):
            assembly = current
        case .none:
            assembly = MessageAssembly(kind: inProgress.opcode == .text ? .text : .binary, size: 0, fragments: 0)
            assembly.isTransformed = inProgress.reservedBits != 0
            if configuration.delivery == .messages {
                messageBuffer.removeAll(keepingCapacity: true)
                // Small frames get their exact buffer at once; large ones grow as bytes arrive, so
                // that a header alone cannot make us allocate the whole limit.
                if inProgress.fin && inProgress.remaining <= Self.eagerReservation && !assembly.isTransformed {
                    messageBuffer.reserveCapacity(inProgress.remaining)
                }
            }
        }
        assembly.fragments += 1
        assembly.size += inProgress.remaining
        incoming = .assembling(assembly)
    }

    /// Frames up to this size have their payload buffer reserved from the header.
    static var eagerReservation: Int { 64 << 10 }

    /// Moves up to `take` payload bytes of a control frame into `controlBuffer`, unmasked.
    mutating func readControlPayload(_ inProgress: inout FrameInProgress, _ take: Int) {
        guard take > 0 else { return }
        let start = controlBuffer.count
        controlBuffer.append(contentsOf: inbox[inboxStart..<(inboxStart + take)])
        inboxStart += take
        inProgress.remaining -= take
        if let key = inProgress.maskingKey {
            inProgress.maskOffset = key.apply(to: &controlBuffer, range: start..<controlBuffer.count,
                                              offset: inProgress.maskOffset)
        }
    }

    /// Moves up to `take` payload bytes of a data frame out of the input, unmasked and (text)
    /// validated: into `messageBuffer` for ``Connection/Delivery/messages``, or returned as a piece for
    /// ``Connection/Delivery/fragments``.
    mutating func readDataPayload(_ inProgress: inout FrameInProgress, _ take: Int) -> Result<[UInt8], Connection.ProtocolViolation> {
        guard take > 0 else { return .success([]) }
        // A data frame is admitted into a message (`startDataFrame`); without one its bytes have
        // nowhere to go, and the frame is as unexpected as a continuation of nothing.
        guard case .assembling(var assembly) = incoming else { return .failure(Connection.ProtocolViolation(.unexpectedContinuation)) }
        let range = inboxStart..<(inboxStart + take)
        inboxStart += take
        inProgress.remaining -= take
        var valid = true
        var piece: [UInt8] = []
        if assembly.isTransformed {
            if let key = inProgress.maskingKey {
                inProgress.maskOffset = key.apply(to: &inbox, range: range, offset: inProgress.maskOffset)
            }
            let violation = decodeTransformed(range, isFinal: false, &assembly, into: &piece)
            incoming = .assembling(assembly)
            return violation.map { .failure($0) } ?? .success(piece)
        }
        switch configuration.delivery {
        case .messages:
            let start = messageBuffer.count
            reserveMessageBuffer(adding: take)
            messageBuffer.append(contentsOf: inbox[range])
            if let key = inProgress.maskingKey {
                inProgress.maskOffset = key.apply(to: &messageBuffer, range: start..<messageBuffer.count,
                                                  offset: inProgress.maskOffset)
            }
            if assembly.kind == .text {
                valid = messageBuffer.withUnsafeBytes { raw in
                    assembly.validator.validate(UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
        case .fragments:
            piece = Array(inbox[range])
            if let key = inProgress.maskingKey {
                inProgress.maskOffset = key.apply(to: &piece, range: 0..<piece.count, offset: inProgress.maskOffset)
            }
            if assembly.kind == .text { valid = assembly.validator.validate(piece[...]) }
        }
        incoming = .assembling(assembly)
        // RFC 6455 §8.1: "When an endpoint is to interpret a byte stream as UTF-8 but finds that the
        // byte stream is not, in fact, a valid UTF-8 stream, that endpoint MUST _Fail the WebSocket
        // Connection_." Checked per chunk, so the failure comes at the first invalid byte.
        return valid ? .success(piece) : .failure(Connection.ProtocolViolation(.invalidUTF8))
    }

    /// Grows the message buffer geometrically from the bytes actually received, never from what a
    /// header merely announced, and never beyond the message limit: a peer that announces 16 MiB and
    /// sends 10 bytes costs 10 bytes, and memory stays within twice what arrived.
    mutating func reserveMessageBuffer(adding count: Int) {
        let needed = messageBuffer.count + count
        guard needed > messageBuffer.capacity else { return }
        messageBuffer.reserveCapacity(min(max(needed, messageBuffer.capacity * 2), max(needed, configuration.limits.maxMessageSize)))
    }

    /// Runs the transform over payload bytes already unmasked in the input buffer (or over nothing, to
    /// end the message), and takes what it decodes: counted against the message limit chunk by chunk
    /// (a decompression bomb stops at the limit plus one chunk), validated as UTF-8 for text, stored
    /// in the message buffer or, for ``Connection/Delivery/fragments``, in `piece`.
    mutating func decodeTransformed(_ range: Range<Int>?, isFinal: Bool, _ assembly: inout MessageAssembly,
                                            into piece: inout [UInt8]) -> Connection.ProtocolViolation? {
        // The bits that mark a transformed message are admitted only with a transform negotiated.
        guard var transformer = transform.take() else { return Connection.ProtocolViolation(.invalidTransformedData) }
        var buffer: [UInt8] = []
        if configuration.delivery == .messages { swap(&buffer, &messageBuffer) } else { swap(&buffer, &piece) }
        let limit = max(0, configuration.limits.maxMessageSize)
        var violation: Connection.ProtocolViolation? = nil
        var state = assembly
        let result = inbox.withUnsafeBytes { raw in
            let input = range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return transformer.decode(input, isFinal: isFinal) { chunk in
                guard chunk.count <= limit - state.decodedSize else {
                    violation = Connection.ProtocolViolation(.messageTooLarge)
                    return false
                }
                state.decodedSize += chunk.count
                if state.kind == .text && !state.validator.validate(chunk) {
                    violation = Connection.ProtocolViolation(.invalidUTF8)
                    return false
                }
                let needed = buffer.count + chunk.count
                if needed > buffer.capacity {
                    // Never beyond the limit: the bound holds even while a bomb inflates.
                    buffer.reserveCapacity(min(max(needed, buffer.capacity * 2), limit))
                }
                buffer.append(contentsOf: chunk)
                return true
            }
        }
        transform = transformer
        assembly = state
        if configuration.delivery == .messages { swap(&buffer, &messageBuffer) } else { swap(&buffer, &piece) }
        if let violation { return violation }
        if case .failed = result { return Connection.ProtocolViolation(.invalidTransformedData) }
        return nil
    }

    /// (``Connection/Delivery/fragments``) Delivers a piece of the current message.
    mutating func deliverPiece(_ piece: [UInt8], isFinal: Bool) -> Step {
        guard case .assembling(var assembly) = incoming else { return fail(Connection.ProtocolViolation(.unexpectedContinuation)) }
        let isFirst = !assembly.hasDeliveredPiece
        if isFinal {
            incoming = .none
        } else {
            assembly.hasDeliveredPiece = true
            incoming = .assembling(assembly)
        }
        return .event(.fragment(Connection.Fragment(kind: assembly.kind, bytes: piece, isFirst: isFirst, isFinal: isFinal)))
    }

    /// Acts on a frame whose payload has been read entirely.
    mutating func completeFrame(_ completed: FrameInProgress, piece: [UInt8]) -> Step? {
        var piece = piece
        switch completed.opcode {
        case .ping:
            return receivedPing()
        case .pong:
            return receivedPong()
        case .close:
            return receivedClose()
        case .text, .binary, .continuation:
            guard case .assembling(var assembly) = incoming else { return fail(Connection.ProtocolViolation(.unexpectedContinuation)) }
            if completed.fin && assembly.isTransformed {
                if let violation = decodeTransformed(nil, isFinal: true, &assembly, into: &piece) { return fail(violation) }
                incoming = .assembling(assembly)
            }
            guard completed.fin else {
                if configuration.delivery == .fragments && !piece.isEmpty { return deliverPiece(piece, isFinal: false) }
                return nil
            }
            // RFC 6455 §8.1: a text message that ends inside a UTF-8 sequence is invalid.
            guard assembly.kind == .binary || assembly.validator.isAtCharacterBoundary else {
                return fail(Connection.ProtocolViolation(.invalidUTF8))
            }
            switch configuration.delivery {
            case .fragments:
                return deliverPiece(piece, isFinal: true)
            case .messages:
                incoming = .none
                if lendsPayloads { return .lent(assembly.kind, .messageBuffer) }
                let payload = messageBuffer
                messageBuffer = []
                switch assembly.kind {
                case .text: return .event(.text(String(decoding: payload, as: UTF8.self)))
                case .binary: return .event(.binary(payload))
                }
            }
        }
    }
}
