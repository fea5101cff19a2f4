// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

extension Connection {
    /// Sends a text message, split into frames of ``Connection/Configuration/fragmentationSize`` if set.
    ///
    /// - Parameters:
    ///   - text: the message; it is UTF-8 by construction, so it is never refused as invalid.
    ///   - compress: whether the negotiated payload transform (permessage-deflate) may apply
    ///   to this message. Default `true`; pass `false` for data that is already compressed or secret
    ///   (compression next to attacker-chosen data leaks it, as CRIME and BREACH showed).
    /// - Throws: ``Connection/UsageError/notOpen``, ``Connection/UsageError/closeAlreadySent``,
    ///   ``Connection/UsageError/messageInProgress`` while a fragmented message is being sent,
    ///   ``Connection/UsageError/outputBufferFull``.
    ///
    /// RFC 6455 §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public mutating func send(text: String, compress: Bool = true) throws(Connection.UsageError) {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(Connection.UsageError) in try sendMessage(.text, UnsafeRawBufferPointer(bytes), compress: compress) }
        }
        try result.get()
    }

    /// Sends a binary message, split into frames of ``Connection/Configuration/fragmentationSize`` if set.
    ///
    /// - Throws: as ``send(text:compress:)``.
    @inlinable @inline(__always)  // specialized and inlined where called: [UInt8] and slices go straight to their storage
    public mutating func send(binary: some Collection<UInt8>, compress: Bool = true) throws(Connection.UsageError) {
        let result = binary.withContiguousStorageIfAvailable { bytes in
            Result { () throws(Connection.UsageError) in try sendMessage(.binary, UnsafeRawBufferPointer(bytes), compress: compress) }
        } ?? Array(binary).withUnsafeBytes { bytes in
            Result { () throws(Connection.UsageError) in try sendMessage(.binary, bytes, compress: compress) }
        }
        try result.get()
    }

    /// Sends a text message whose UTF-8 bytes you hold (a text payload you read and forward, bytes
    /// your code encoded), split into frames as ``send(text:compress:)`` splits: validated once, here,
    /// by the validator that checks received text, and never made into a `String`.
    ///
    /// - Throws: ``Connection/UsageError/invalidUTF8`` when `utf8` is not valid UTF-8 (nothing is sent);
    ///   otherwise as ``send(text:compress:)``.
    @inlinable  // as send(binary:)
    public mutating func send(textUTF8 utf8: some Collection<UInt8>, compress: Bool = true) throws(Connection.UsageError) {
        let result = utf8.withContiguousStorageIfAvailable { bytes in
            Result { () throws(Connection.UsageError) in try sendUTF8Text(UnsafeRawBufferPointer(bytes), compress: compress) }
        } ?? Array(utf8).withUnsafeBytes { bytes in
            Result { () throws(Connection.UsageError) in try sendUTF8Text(bytes, compress: compress) }
        }
        try result.get()
    }

    @usableFromInline
    internal mutating func sendUTF8Text(_ payload: UnsafeRawBufferPointer, compress: Bool) throws(Connection.UsageError) {
        guard Self.isWholeText(payload) else { throw .invalidUTF8 }
        try sendMessage(.text, payload, compress: compress)
    }

    /// Sends a message prepared once for many server connections: appends its frames to the output.
    /// When nothing else is pending, the output adopts the prepared bytes themselves (shared,
    /// copy-on-write) instead of copying them, and ``takeOutput()`` returns that same storage.
    ///
    /// The frames go out as they were prepared: no extension transforms them, and with
    /// permessage-deflate negotiated they are valid uncompressed messages (RSV1 clear, RFC 7692 §6),
    /// as with ``send(text:compress:)`` and `compress: false`. Only a server may send one; the state
    /// checks are those of ``send(text:compress:)``. Throwing leaves the connection unchanged.
    ///
    /// - Throws: ``Connection/UsageError/preparedMessageFromClient`` for a client (its frames must be
    ///   masked, each with a fresh key); ``Connection/UsageError/notOpen``,
    ///   ``Connection/UsageError/closeAlreadySent``, ``Connection/UsageError/messageInProgress`` while a
    ///   fragmented message is being sent, ``Connection/UsageError/outputBufferFull``;
    ///   ``Connection/UsageError/preparedFrameTooLarge(_:)`` when ``Connection/Configuration/fragmentationSize`` is
    ///   set and one of the message's frames holds more payload than it (prepare the message with
    ///   that `fragmentationSize`).
    ///
    /// RFC 6455 §5.1, §6.1: <https://www.rfc-editor.org/rfc/rfc6455#section-6.1>
    public mutating func send(_ prepared: Connection.PreparedMessage) throws(Connection.UsageError) {
        guard !isClient else { throw .preparedMessageFromClient }
        try checkCanSendMessage()
        if configuration.fragmentationSize != nil, prepared.largestFramePayload > Self.frameSize(configuration.fragmentationSize) {
            throw .preparedFrameTooLarge(prepared.largestFramePayload)
        }
        appendSharedOutput(prepared.wireBytes)
    }

    @usableFromInline
    internal mutating func sendMessage(_ kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer, compress: Bool) throws(Connection.UsageError) {
        try checkCanSendMessage()
        if compress, var transformer = transform.take() {
            defer { transform = transformer }
            if transformer.shouldEncode(messageOfSize: payload.count) {
                // RFC 7692 §6.1: the whole message is compressed once, then fragmented; RSV1 goes on
                // the first frame only.
                let encoded = transformer.encode(payload, isFinal: true)
                encoded.withUnsafeBytes { writeMessageFrames(kind, $0, reservedBits: transformer.reservedBits) }
                return
            }
        }
        // The usual message, one frame: written here rather than in a call more.
        if payload.count <= Self.frameSize(configuration.fragmentationSize) {
            writeFrameInline(kind.opcode, fin: true, reservedBits: 0, payload: payload)
            return
        }
        writeMessageFrames(kind, payload, reservedBits: 0)
    }

    /// Writes a whole message's payload, split at ``Connection/Configuration/fragmentationSize``.
    private mutating func writeMessageFrames(_ kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer, reservedBits: UInt8) {
        let size = Self.frameSize(configuration.fragmentationSize)
        if payload.count <= size {
            writeFrameInline(kind.opcode, fin: true, reservedBits: reservedBits, payload: payload)
            return
        }
        Self.forEachFrame(of: kind, payload, reservedBits: reservedBits, size: size) { opcode, fin, bits, piece in
            writeFrame(opcode, fin: fin, reservedBits: bits, payload: piece)
        }
    }

    /// The most payload bytes per frame for a ``Connection/Configuration/fragmentationSize`` (at least 1).
    static func frameSize(_ fragmentationSize: Int?) -> Int { max(1, fragmentationSize ?? Int.max) }

    /// Cuts a whole message's payload into frames of at most `size` bytes (one frame, possibly empty,
    /// when it fits): calls `body` with each frame's opcode, FIN bit, reserved bits (`reservedBits` on
    /// the first frame only, RFC 7692 §6.1) and payload, in order. Sends and prepared messages both
    /// frame their messages here.
    static func forEachFrame(of kind: Connection.MessageKind, _ payload: UnsafeRawBufferPointer, reservedBits: UInt8, size: Int,
                             _ body: (Opcode, Bool, UInt8, UnsafeRawBufferPointer) -> Void) {
        if payload.count <= size {
            body(kind.opcode, true, reservedBits, payload)
            return
        }
        var offset = 0
        while offset < payload.count {
            let end = payload.count - offset <= size ? payload.count : offset + size
            body(offset == 0 ? kind.opcode : .continuation, end == payload.count, offset == 0 ? reservedBits : 0,
                 UnsafeRawBufferPointer(rebasing: payload[offset..<end]))
            offset = end
        }
    }

    /// Sends one fragment of a message you stream yourself: the first call starts a message of
    /// `kind`, the call with `isFinal: true` ends it. Control frames may be sent in between.
    ///
    /// Text fragments may split UTF-8 sequences, but together they must be valid UTF-8: a fragment that
    /// makes the message invalid (or a final one that leaves a sequence unfinished) throws
    /// ``Connection/UsageError/invalidUTF8`` and sends nothing.
    ///
    /// - Parameters:
    ///   - bytes: this fragment's payload (it may be empty).
    ///   - kind: text or binary; read on the first fragment, then checked against the message's.
    ///   - isFinal: whether this fragment ends the message (the FIN bit, RFC 6455 §5.2).
    ///   - compress: read on the first fragment only: whether the negotiated transform may
    ///   apply to the message; each fragment is then compressed as it is sent.
    /// - Throws: ``Connection/UsageError/fragmentKindMismatch`` when `kind` differs from the message's,
    ///   ``Connection/UsageError/invalidUTF8``, and the errors of ``send(text:compress:)``.
    ///
    /// RFC 6455 §5.4: <https://www.rfc-editor.org/rfc/rfc6455#section-5.4>
    @inlinable  // as send(binary:)
    public mutating func sendFragment(_ bytes: some Collection<UInt8>, kind: Connection.MessageKind, isFinal: Bool,
                                      compress: Bool = true) throws(Connection.UsageError) {
        let result = bytes.withContiguousStorageIfAvailable { raw in
            Result { () throws(Connection.UsageError) in
                try sendFragment(UnsafeRawBufferPointer(raw), kind: kind, isFinal: isFinal, compress: compress)
            }
        } ?? Array(bytes).withUnsafeBytes { raw in
            Result { () throws(Connection.UsageError) in try sendFragment(raw, kind: kind, isFinal: isFinal, compress: compress) }
        }
        try result.get()
    }

    @usableFromInline
    internal mutating func sendFragment(_ payload: UnsafeRawBufferPointer, kind: Connection.MessageKind, isFinal: Bool,
                                        compress: Bool) throws(Connection.UsageError) {
        var validator: UTF8Validator
        let opcode: Opcode
        let isTransformed: Bool
        switch outgoing {
        case .none:
            try checkPermission(.startMessage)
            try checkOutputRoom()
            validator = UTF8Validator()
            opcode = kind.opcode
            isTransformed = compress && (transform?.shouldEncode(messageOfSize: nil) ?? false)
        case .sending(let current, let state, let transformed):
            try checkPermission(.continueMessage)
            try checkOutputRoom()
            guard current == kind else { throw .fragmentKindMismatch }
            validator = state
            opcode = .continuation
            isTransformed = transformed
        }
        if kind == .text {
            guard validator.validate(payload), !isFinal || validator.isAtCharacterBoundary else { throw .invalidUTF8 }
        }
        if isTransformed, var transformer = transform.take() {
            let encoded = transformer.encode(payload, isFinal: isFinal)
            let bits = opcode == .continuation ? 0 : transformer.reservedBits
            transform = transformer
            encoded.withUnsafeBytes { writeFrame(opcode, fin: isFinal, reservedBits: bits, payload: $0) }
        } else {
            writeFrame(opcode, fin: isFinal, payload: payload)
        }
        outgoing = isFinal ? .none : .sending(kind, validator, isTransformed: isTransformed)
        if isFinal { transition(.messageSent) }
    }

    /// Sends a ping (at most 125 bytes of payload). The pong comes back as ``Connection/Event/pong(_:)``.
    ///
    /// RFC 6455 §5.5.2: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.2>
    public mutating func ping(_ payload: some Collection<UInt8> = [UInt8]()) throws(Connection.UsageError) {
        try sendControl(.ping, Array(payload))
    }

    /// Sends an unsolicited pong, or a pong you answer a ping with when automatic pongs are off
    /// (at most 125 bytes of payload).
    ///
    /// RFC 6455 §5.5.3: <https://www.rfc-editor.org/rfc/rfc6455#section-5.5.3>
    public mutating func pong(_ payload: some Collection<UInt8> = [UInt8]()) throws(Connection.UsageError) {
        try sendControl(.pong, Array(payload))
    }

    private mutating func sendControl(_ opcode: Opcode, _ payload: [UInt8]) throws(Connection.UsageError) {
        try checkCanSendControl(payloadCount: payload.count)
        writeFrame(opcode, fin: true, payload: payload)
    }

    /// Starts the closing handshake (or, after the peer's Close, answers it): queues a Close frame
    /// with `code` and `reason`. The connection is closed when the peer's Close frame arrives, or when
    /// ``Connection/Timeouts/close`` runs out.
    ///
    /// - Parameters:
    ///   - code: a code that may be sent (RFC 6455 §7.4); default 1000.
    ///   - reason: at most 123 bytes of UTF-8.
    /// - Throws: ``Connection/UsageError/invalidCloseCode(_:)``, ``Connection/UsageError/closeReasonTooLong``,
    ///   ``Connection/UsageError/closeAlreadySent`` for a second close, ``Connection/UsageError/notOpen`` before the
    ///   handshake completes.
    ///
    /// RFC 6455 §7.1.2: <https://www.rfc-editor.org/rfc/rfc6455#section-7.1.2>
    public mutating func close(code: Connection.CloseCode = .normalClosure, reason: String = "") throws(Connection.UsageError) {
        try Connection.CloseFrame(code: code, reason: reason).checkSendable()
        try checkPermission(.close)
        transition(.closeCalled(Connection.CloseFrame(code: code, reason: reason)))
    }

    // MARK: Checks

    /// The checks before a whole message (a send or a prepared message): the phase allows a message,
    /// there is room for it, and no fragmented message of ours is unfinished.
    @inline(__always)  // every message sent asks: a call less for each
    func checkCanSendMessage() throws(Connection.UsageError) {
        // Open, every local action is allowed (``checkPermission(_:)``'s first case): the call into
        // the permissions is made only for the other phases.
        if case .open = phase {} else { try checkPermission(.startMessage) }
        try checkOutputRoom()
        guard case .none = outgoing else { throw .messageInProgress }
    }

    /// The checks before a ping or a pong (awaited or not): the phase allows one, its payload fits a
    /// control frame, and there is room for it.
    func checkCanSendControl(payloadCount: Int) throws(Connection.UsageError) {
        try checkPermission(.sendControl)
        try Self.checkControlPayload(count: payloadCount)
        try checkOutputRoom()
    }

    /// RFC 6455 §5.5: "All control frames MUST have a payload length of 125 bytes or less".
    package static func checkControlPayload(count: Int) throws(Connection.UsageError) {
        guard count <= 125 else { throw .controlPayloadTooLarge }
    }

    /// Sends are refused once the pending output, with what the caller holds (``outputHeldByCaller``),
    /// reaches ``Connection/Limits/maxBufferedOutput``; memory is then bounded by the limit plus one message.
    @inline(__always)
    private func checkOutputRoom() throws(Connection.UsageError) {
        guard bufferedOutput < max(0, configuration.limits.maxBufferedOutput) else { throw .outputBufferFull }
    }

    // MARK: Writing frames

    /// The reply to the peer's Close frame: RFC 6455 §5.5.1, "the endpoint typically echos the status
    /// code it received". An empty Close is answered with an empty one.
    mutating func writeCloseReply(to received: Connection.CloseFrame) {
        if received.code == .noStatusReceived {
            closeCodeSent = .noStatusReceived
            writeFrame(.close, fin: true, payload: [UInt8]())
        } else {
            writeClose(Connection.CloseFrame(code: received.code))
        }
    }

    mutating func writeClose(_ frame: Connection.CloseFrame) {
        closeCodeSent = frame.code
        // The payload (at most 125 bytes) built on the stack: an array for it was an allocation
        // in every connection's closing handshake.
        withUnsafeTemporaryAllocation(byteCount: 125, alignment: 1) { buffer in
            buffer[0] = UInt8(truncatingIfNeeded: frame.code.rawValue >> 8)
            buffer[1] = UInt8(truncatingIfNeeded: frame.code.rawValue)
            var count = 2
            // Nearly every Close has no reason: no pass over the empty one's bytes (a prefix of its
            // UTF-8 view cost about 100 instructions per closing handshake).
            if !frame.reason.isEmpty {
                for byte in frame.reason.utf8.prefix(123) {
                    buffer[count] = byte
                    count += 1
                }
            }
            writeFrame(.close, fin: true, payload: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
    }

    mutating func writeFrame(_ opcode: Opcode, fin: Bool, payload: [UInt8]) {
        payload.withUnsafeBytes { writeFrame(opcode, fin: fin, payload: $0) }
    }

    /// Appends one frame to the output; a client masks it with a fresh key (RFC 6455 §5.3: "The
    /// masking key MUST be derived from a strong source of entropy").
    mutating func writeFrame(_ opcode: Opcode, fin: Bool, reservedBits: UInt8 = 0, payload: UnsafeRawBufferPointer) {
        writeFrameInline(opcode, fin: fin, reservedBits: reservedBits, payload: payload)
    }

    /// ``writeFrame(_:fin:reservedBits:payload:)``, inlined where a whole message's only frame is
    /// written (a call more per message sent cost about 30 instructions).
    @inline(__always)
    mutating func writeFrameInline(_ opcode: Opcode, fin: Bool, reservedBits: UInt8, payload: UnsafeRawBufferPointer) {
        // Two copies of the writer, each with its key known: in the server's, the key is `nil`
        // where the header is built, stored and the payload masked, and all of that folds away.
        if isClient {
            writeFrameInline(opcode, fin: fin, reservedBits: reservedBits, payload: payload, key: MaskingKey(random: random.next()))
        } else {
            writeFrameInline(opcode, fin: fin, reservedBits: reservedBits, payload: payload, key: nil)
        }
    }

    @inline(__always)
    private mutating func writeFrameInline(_ opcode: Opcode, fin: Bool, reservedBits: UInt8, payload: UnsafeRawBufferPointer,
                                           key: MaskingKey?) {
        let header = FrameHeader(fin: fin, reservedBits: reservedBits, opcodeValue: opcode.rawValue, maskingKey: key,
                                 payloadLength: UInt64(payload.count))
        let headerSize = header.encodedSize
        let total = headerSize + payload.count
        // Room for the whole frame at once: after `takeOutput()` the output is a new, empty array, and
        // growing it for the header and again for the payload cost two allocations per frame sent.
        if makeRoomForOutput(total) {
            Self.appendFrame(header, headerSize: headerSize, key: key, payload: payload, to: &outbox)
            outboxEnd = outbox.count
            return
        }
        // In the room past `outboxEnd`: written out earlier, kept (the steady state of a loop).
        let start = outboxEnd
        outbox.withUnsafeMutableBytes { raw in
            let frame = UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + total)])
            Self.storeFrame(header, headerSize: headerSize, key: key, payload: payload, into: frame)
        }
        outboxEnd = start + total
    }

    /// Writes one frame into `frame` (exactly its size): `header`, then the payload, masked with
    /// `key` as it is copied if there is one.
    @inline(__always)
    static func storeFrame(_ header: FrameHeader, headerSize: Int, key: MaskingKey?, payload: UnsafeRawBufferPointer,
                           into frame: UnsafeMutableRawBufferPointer) {
        header.store(into: frame)
        let body = UnsafeMutableRawBufferPointer(rebasing: frame[headerSize...])
        if let key {
            // One pass: a copy and then a pass masking in place read and wrote each byte twice
            // (about 30 instructions more per 256-byte message). The payload is the caller's,
            // never this frame's bytes, so the two buffers are apart.
            key.apply(from: payload, to: body, offset: 0)
        } else if let source = payload.baseAddress, let target = body.baseAddress {
            target.copyMemory(from: source, byteCount: payload.count)
        }
    }

    /// Appends one frame to `output`: its header, then the payload, masked in place with `key` if
    /// there is one.
    @inline(__always)
    static func appendFrame(_ opcode: Opcode, fin: Bool, reservedBits: UInt8, key: MaskingKey?,
                            payload: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let header = FrameHeader(fin: fin, reservedBits: reservedBits, opcodeValue: opcode.rawValue, maskingKey: key,
                                 payloadLength: UInt64(payload.count))
        appendFrame(header, headerSize: header.encodedSize, key: key, payload: payload, to: &output)
    }

    /// ``appendFrame(_:fin:reservedBits:key:payload:to:)`` with the header made.
    @inline(__always)
    static func appendFrame(_ header: FrameHeader, headerSize: Int, key: MaskingKey?, payload: UnsafeRawBufferPointer,
                            to output: inout [UInt8]) {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            // One pass into the array's spare capacity: header, payload, mask. Appending the header
            // byte by byte and then the payload checked the array's uniqueness and capacity each time
            // (about 80 instructions a frame).
            let total = headerSize + payload.count
            output.append(addingCapacity: total) { span in
                span.withUnsafeMutableBufferPointer { buffer, count in
                    let frame = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[..<total])
                    storeFrame(header, headerSize: headerSize, key: key, payload: payload, into: frame)
                    count = total
                }
            }
            return
        }
        header.write(into: &output)
        let start = output.count
        output.append(contentsOf: payload)
        if let key {
            // `withUnsafeMutableBytes` inside: the array is unique by then (it was just appended to).
            _ = key.apply(to: &output, range: start..<output.count, offset: 0)
        }
    }
}
