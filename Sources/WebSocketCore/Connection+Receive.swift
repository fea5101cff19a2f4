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
        guard header.fin, header.reservedBits == 0, header.opcodeValue == 1 || header.opcodeValue == 2,
              case .none = incoming, transformBits == 0, (header.maskingKey == nil) == isClient,
              wholeMessageLimit >= 0, header.payloadLength <= UInt64(wholeMessageLimit) else { return nil }
        let length = Int(header.payloadLength)  // fits: within the limits
        let start = inboxStart + headerSize
        guard inbox.count - start >= length else { return nil }
        let end = start + length
        inboxStart = end
        let kind: MessageKind = header.opcodeValue == 2 ? .binary : .text
        guard let key = header.maskingKey else {
            // Unmasked (a client reading a server): the payload is used where it lies.
            return deliverWholeMessage(kind, .inbox(start..<end))
        }
        // Masked: unmask while copying, into the reusable scratch buffer when lending, or straight
        // into the message's own array. The input buffer is never written, so that it can share its
        // storage with the array the caller passed to receive(_:).
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
        guard validator.validate(payload), validator.isAtCharacterBoundary else { return fail(ProtocolViolation(.invalidUTF8)) }
        return .event(.text(String(decoding: payload, as: UTF8.self)))
    }

    /// A whole message whose payload lies unmasked in the input buffer or the scratch buffer: checked
    /// (text), then lent or copied into its event.
    @inline(__always)
    private mutating func deliverWholeMessage(_ kind: MessageKind, _ payload: LentPayload) -> Step {
        if kind == .text {
            var validator = UTF8Validator()
            let valid = withLentBytes(payload) { validator.validate($0) } && validator.isAtCharacterBoundary
            // RFC 6455 §8.1: invalid UTF-8 fails the connection.
            guard valid else { return fail(ProtocolViolation(.invalidUTF8)) }
        }
        if lendsPayloads { return .lent(kind, payload) }
        return .event(ownedEvent(kind, payload))
    }

    /// Checks a frame header against RFC 6455 §5 and the limits, before any payload byte is stored.
    private func admit(_ header: FrameHeader) -> Result<FrameInProgress, ProtocolViolation> {
        // RFC 6455 §5.2: "If an unknown opcode is received, the receiving endpoint MUST _Fail the
        // WebSocket Connection_."
        guard let opcode = Opcode(rawValue: header.opcodeValue) else {
            return .failure(ProtocolViolation(.unknownOpcode(header.opcodeValue)))
        }
        // RFC 6455 §5.2: "If a nonzero value is received and none of the negotiated extensions defines
        // the meaning of such a nonzero value, the receiving endpoint MUST _Fail the WebSocket Connection_."
        // A transform's bits mark a message's first frame only (RFC 7692 §6: never a continuation or
        // control frame).
        let definedBits: UInt8 = opcode == .text || opcode == .binary ? transformBits : 0
        guard header.reservedBits & ~definedBits == 0 else { return .failure(ProtocolViolation(.reservedBitsSet)) }
        // RFC 6455 §5.1: "The server MUST close the connection upon receiving a frame that is not
        // masked." and "A client MUST close a connection if it detects a masked frame."
        if isClient {
            guard header.maskingKey == nil else { return .failure(ProtocolViolation(.maskedFrame)) }
        } else {
            guard header.maskingKey != nil else { return .failure(ProtocolViolation(.unmaskedFrame)) }
        }
        // RFC 6455 §5.2: "the most significant bit MUST be 0". Checked before any conversion to Int.
        guard header.payloadLength >> 63 == 0 else { return .failure(ProtocolViolation(.invalidLength)) }

        if opcode.isControl {
            // RFC 6455 §5.5: "All control frames MUST have a payload length of 125 bytes or less and
            // MUST NOT be fragmented."
            guard header.fin else { return .failure(ProtocolViolation(.fragmentedControlFrame)) }
            guard header.payloadLength <= 125 else { return .failure(ProtocolViolation(.controlFrameTooLarge)) }
            return .success(FrameInProgress(opcode: opcode, fin: true, remaining: Int(header.payloadLength),
                                            maskingKey: header.maskingKey))
        }

        let limits = configuration.limits
        guard header.payloadLength <= UInt64(max(0, limits.maxFrameSize)) else {
            return .failure(ProtocolViolation(.frameTooLarge))
        }
        let length = Int(header.payloadLength)  // fits: at most maxFrameSize
        let announced: Int
        let fragments: Int
        switch (opcode, incoming) {
        case (.continuation, .none):
            // RFC 6455 §5.4: a continuation frame continues a message; there is none.
            return .failure(ProtocolViolation(.unexpectedContinuation))
        case (.continuation, .assembling(let assembly)):
            announced = assembly.size
            fragments = assembly.fragments
        case (_, .assembling):
            // RFC 6455 §5.4: the fragments of one message MUST NOT be interleaved with another.
            return .failure(ProtocolViolation(.expectedContinuation))
        case (_, .none):
            announced = 0
            fragments = 0
        }
        guard length <= max(0, limits.maxMessageSize) - announced else {
            return .failure(ProtocolViolation(.messageTooLarge))
        }
        guard fragments < max(1, limits.maxFragmentsPerMessage) else {
            return .failure(ProtocolViolation(.tooManyFragments))
        }
        return .success(FrameInProgress(opcode: opcode, fin: header.fin, reservedBits: header.reservedBits,
                                        remaining: length, maskingKey: header.maskingKey))
    }

    /// Accounts for an admitted data frame in the message it starts or continues.
    private mutating func startDataFrame(_ inProgress: FrameInProgress) {
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
    private mutating func readControlPayload(_ inProgress: inout FrameInProgress, _ take: Int) {
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
    /// validated: into `messageBuffer` for ``Delivery/messages``, or returned as a piece for
    /// ``Delivery/fragments``.
    private mutating func readDataPayload(_ inProgress: inout FrameInProgress, _ take: Int) -> Result<[UInt8], ProtocolViolation> {
        guard take > 0 else { return .success([]) }
        // A data frame is admitted into a message (`startDataFrame`); without one its bytes have
        // nowhere to go, and the frame is as unexpected as a continuation of nothing.
        guard case .assembling(var assembly) = incoming else { return .failure(ProtocolViolation(.unexpectedContinuation)) }
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
        return valid ? .success(piece) : .failure(ProtocolViolation(.invalidUTF8))
    }

    /// Grows the message buffer geometrically from the bytes actually received, never from what a
    /// header merely announced, and never beyond the message limit: a peer that announces 16 MiB and
    /// sends 10 bytes costs 10 bytes, and memory stays within twice what arrived.
    private mutating func reserveMessageBuffer(adding count: Int) {
        let needed = messageBuffer.count + count
        guard needed > messageBuffer.capacity else { return }
        messageBuffer.reserveCapacity(min(max(needed, messageBuffer.capacity * 2), max(needed, configuration.limits.maxMessageSize)))
    }

    /// Runs the transform over payload bytes already unmasked in the input buffer (or over nothing, to
    /// end the message), and takes what it decodes: counted against the message limit chunk by chunk
    /// (a decompression bomb stops at the limit plus one chunk), validated as UTF-8 for text, stored
    /// in the message buffer or, for ``Delivery/fragments``, in `piece`.
    private mutating func decodeTransformed(_ range: Range<Int>?, isFinal: Bool, _ assembly: inout MessageAssembly,
                                            into piece: inout [UInt8]) -> ProtocolViolation? {
        // The bits that mark a transformed message are admitted only with a transform negotiated.
        guard var transformer = transform.take() else { return ProtocolViolation(.invalidTransformedData) }
        var buffer: [UInt8] = []
        if configuration.delivery == .messages { swap(&buffer, &messageBuffer) } else { swap(&buffer, &piece) }
        let limit = max(0, configuration.limits.maxMessageSize)
        var violation: ProtocolViolation? = nil
        var state = assembly
        let result = inbox.withUnsafeBytes { raw in
            let input = range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            return transformer.decode(input, isFinal: isFinal) { chunk in
                guard chunk.count <= limit - state.decodedSize else {
                    violation = ProtocolViolation(.messageTooLarge)
                    return false
                }
                state.decodedSize += chunk.count
                if state.kind == .text && !state.validator.validate(chunk) {
                    violation = ProtocolViolation(.invalidUTF8)
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
        if case .failed = result { return ProtocolViolation(.invalidTransformedData) }
        return nil
    }

    /// (``Delivery/fragments``) Delivers a piece of the current message.
    private mutating func deliverPiece(_ piece: [UInt8], isFinal: Bool) -> Step {
        guard case .assembling(var assembly) = incoming else { return fail(ProtocolViolation(.unexpectedContinuation)) }
        let isFirst = !assembly.hasDeliveredPiece
        if isFinal {
            incoming = .none
        } else {
            assembly.hasDeliveredPiece = true
            incoming = .assembling(assembly)
        }
        return .event(.fragment(Fragment(kind: assembly.kind, bytes: piece, isFirst: isFirst, isFinal: isFinal)))
    }

    /// Acts on a frame whose payload has been read entirely.
    private mutating func completeFrame(_ completed: FrameInProgress, piece: [UInt8]) -> Step? {
        var piece = piece
        switch completed.opcode {
        case .ping:
            return receivedPing()
        case .pong:
            return receivedPong()
        case .close:
            return receivedClose()
        case .text, .binary, .continuation:
            guard case .assembling(var assembly) = incoming else { return fail(ProtocolViolation(.unexpectedContinuation)) }
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
                return fail(ProtocolViolation(.invalidUTF8))
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

    private mutating func takeControlPayload() -> [UInt8] {
        let payload = controlBuffer
        controlBuffer.removeAll(keepingCapacity: true)
        return payload
    }

    private mutating func receivedPing() -> Step {
        let payload = takeControlPayload()
        // RFC 6455 §5.5.2: "Upon receipt of a Ping frame, an endpoint MUST send a Pong frame in
        // response, unless it already received a Close frame." Not after ours either: nothing follows
        // our Close. While the output is backed up the pong is skipped; §5.5.3 allows answering only
        // the latest ping.
        if configuration.respondsToPingsAutomatically, case .open = phase,
           pendingOutputCount <= configuration.limits.maxBufferedOutput {
            writeFrame(.pong, fin: true, payload: payload)
        }
        return .event(.ping(payload))
    }

    private mutating func receivedPong() -> Step {
        let payload = takeControlPayload()
        transition(.pongReceived)
        return .event(.pong(payload))
    }

    private mutating func receivedClose() -> Step {
        let payload = takeControlPayload()
        let frame: CloseFrame
        switch parseClosePayload(payload) {
        case .failure(let violation): return fail(violation)
        case .success(let parsed): frame = parsed
        }
        return progress(.closeReceived(frame))
    }

    /// Validates a Close frame's payload (RFC 6455 §5.5.1, §7.4).
    func parseClosePayload(_ payload: [UInt8]) -> Result<CloseFrame, ProtocolViolation> {
        if payload.isEmpty { return .success(CloseFrame(code: .noStatusReceived)) }
        // RFC 6455 §5.5.1: "If there is a body, the first two bytes of the body MUST be a 2-byte
        // unsigned integer".
        guard payload.count >= 2 else { return .failure(ProtocolViolation(.invalidClosePayload)) }
        let code = CloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { return .failure(ProtocolViolation(.invalidCloseCode(code.rawValue))) }
        var validator = UTF8Validator()
        let reason = payload[2...]
        guard validator.validate(reason), validator.isAtCharacterBoundary else {
            return .failure(ProtocolViolation(.invalidCloseReason))
        }
        return .success(CloseFrame(code: code, reason: String(decoding: reason, as: UTF8.self)))
    }

    /// Fails the connection for a peer's violation (RFC 6455 §7.1.7): the Close frame with the
    /// violation's code unless ours is already out, then `.protocolViolation` and `.closed`.
    mutating func fail(_ violation: ProtocolViolation) -> Step {
        progress(.violation(violation))
    }
}
