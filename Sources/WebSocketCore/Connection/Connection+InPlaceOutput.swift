// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Replies framed in the caller's own buffer: with input read in place, an echo (or a part of a
// message) goes out from the bytes it arrived in, its header written over the frame's own header,
// and the output is lent to the caller's gathered write as pieces, some in its buffer, some in ours.

/// A piece of the output while ``Connection/receiveAndAnswer(lending:writingOutput:_:)`` runs.
enum OutputSegment: Sendable, Hashable {
    /// Bytes of the connection's output buffer.
    case outbox(Range<Int>)
    /// Bytes of the caller's lent buffer: a reply framed in place.
    case caller(Range<Int>)

    var count: Int {
        switch self {
        case .outbox(let range), .caller(let range): return range.count
        }
    }
}

/// The output of one call, in order: the pieces recorded so far, and where the output buffer's bytes
/// not yet recorded begin.
struct InPlaceOutput {
    /// The pieces, `segments[..<count]`; the array is reused from call to call and never emptied
    /// (emptying an array costs about 60 instructions, more than the rest of a piece's bookkeeping).
    var segments: [OutputSegment]
    var count = 0
    /// The output buffer's bytes from here on are not in `segments` yet.
    var mark: Int
    /// The bytes framed in place, counted as output the caller holds while the call runs.
    var held = 0

    init(segments: [OutputSegment], mark: Int) {
        self.segments = segments
        self.mark = mark
    }

    mutating func append(_ segment: OutputSegment) {
        if count < segments.count { segments[count] = segment } else { segments.append(segment) }
        count += 1
    }
}

extension Connection {
    /// ``receiveAndAnswer(lending:_:)``, with the output written by `write` before the call returns,
    /// and replies framed where their bytes lie: in `bytes`.
    ///
    /// A reply made of a whole message's bytes (`.echo`, or a part of the message) gets its frame
    /// header written into `bytes`, over the message's own frame header, and goes out from there: with
    /// a gathered write (`writev`, `sendmsg`) from `write`, an echo costs no copy in user space, only
    /// the kernel's. This is a server's: a client's frames are masked with a fresh key each, and
    /// compressed replies (permessage-deflate) are new bytes, so those replies, and any that
    /// ``Connection/Configuration/fragmentationSize`` would split, are framed into the connection's
    /// output as ``receiveAndAnswer(lending:_:)`` frames them.
    ///
    /// `write` is called when the call ends (also when a reply throws) with every byte of pending
    /// output in order (what was pending before the call, the replies, automatic pongs, a Close
    /// reply) as pieces, at most 32 at a time, and returns how many bytes it took from the front: all
    /// of them when it copies them into a buffer of its own (a `ByteBuffer`), what `writev` wrote for
    /// a socket. It is called again with the next pieces while it takes every byte it is given. The
    /// pieces are valid only during `write`. What it did not take stays pending in the connection
    /// (copied out of `bytes`), for ``withPendingOutputPieces(upTo:_:)`` or ``takeOutput()``. It is not
    /// called when nothing is pending.
    ///
    /// ```swift
    /// try connection.receiveAndAnswer(lending: bytes, writingOutput: { pieces in
    ///     socket.writev(pieces)          // returns the bytes written
    /// }) { _ in .echo }
    /// ```
    ///
    /// - Throws: what ``answerNextEvent(_:)`` throws, after `write` has had the output.
    public mutating func receiveAndAnswer(lending bytes: UnsafeMutableRawBufferPointer,
                                          writingOutput write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int,
                                          _ body: (Connection.EventView) -> Connection.LentReply) throws(Connection.UsageError) {
        var output = InPlaceOutput(segments: [], mark: outboxStart)
        swap(&output.segments, &outputSegments)  // reused: no allocation per call
        // Prepared messages queued before the call go out first, from arrays of their own: replies
        // are framed into the output then, after them.
        let inPlace = queuedBytes == 0
        var failure: Connection.UsageError? = nil
        do throws(Connection.UsageError) {
            try receiveInPlace(bytes, pull: { (connection) throws(Connection.UsageError) in try connection.answerNextEvent(body) },
                               lent: { (connection, kind, frame) throws(Connection.UsageError) in
                let reply = body(kind == .text ? .text(frame.bytes) : .binary(frame.bytes))
                if inPlace, try connection.replyInPlace(reply, to: kind, frame, &output) { return }
                try connection.sendReply(reply, to: kind, from: frame.bytes, at: 0..<frame.payload.count)
            })
        } catch {
            failure = error
        }
        writeInPlaceOutput(&output, bytes, write)
        swap(&output.segments, &outputSegments)
        if let failure { throw failure }
    }

    /// Frames `reply` in `frame`'s own bytes, when it can be: returns `false` when it must be framed
    /// into the output instead (a client's reply, a compressed one, one that would be fragmented).
    private mutating func replyInPlace(_ reply: Connection.LentReply, to kind: Connection.MessageKind, _ frame: InPlaceFrame,
                                       _ output: inout InPlaceOutput) throws(Connection.UsageError) -> Bool {
        guard !isClient, transform == nil else { return false }
        guard let resolved = Self.resolve(reply, to: kind, lent: frame.payload) else { return true }
        let part = resolved.part
        guard part.count <= Self.frameSize(configuration.fragmentationSize) else { return false }
        let start = part.lowerBound
        let headerSize = FrameHeader.unmaskedSize(payloadCount: part.count)
        // Always room: a masked header is at least 4 bytes longer than the unmasked one of the same
        // length, and a part is no longer than the message.
        guard start - headerSize >= frame.frameStart else { return false }
        // The checks of a send, in its order: text first, then the state and the room.
        if resolved.kind == .text, !resolved.validated, !Self.isWholeText(UnsafeRawBufferPointer(rebasing: frame.buffer[part])) {
            throw .invalidUTF8
        }
        try checkCanSendMessage()
        FrameHeader.storeUnmasked(opcode: resolved.kind.opcode.rawValue, payloadCount: part.count,
                                  into: UnsafeMutableRawBufferPointer(rebasing: frame.buffer[(start - headerSize)..<start]))
        if output.mark < outboxEnd { output.append(.outbox(output.mark..<outboxEnd)) }
        output.mark = outboxEnd
        output.append(.caller((start - headerSize)..<part.upperBound))
        // Counted as output the caller holds until `write` has had it: the limits see it. (Wrapping:
        // `outputHeldByCaller` is the caller's to set, to any value; the same amount is taken back.)
        output.held += headerSize + part.count
        heldOutput &+= headerSize + part.count
        return true
    }

    /// The most pieces one call of the writer receives (32, a 512-byte list on the stack; `writev`
    /// takes up to 1,024).
    static var piecesPerWrite: Int { 32 }

    /// Lends the call's output to `write`, in order, and keeps what it did not take.
    private mutating func writeInPlaceOutput(_ output: inout InPlaceOutput, _ bytes: UnsafeMutableRawBufferPointer,
                                             _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int) {
        heldOutput = max(0, heldOutput &- output.held)
        guard output.count > 0 else {
            // Nothing framed in place: the pending output, as withPendingOutputPieces lends it.
            if pendingOutputCount > 0 { withPendingOutputPieces(upTo: Int.max, write) }
            return
        }
        // The connection dropped its output meanwhile (it was aborted): the replies go with it.
        guard output.mark <= outboxEnd else { return }
        if output.mark < outboxEnd { output.append(.outbox(output.mark..<outboxEnd)) }
        let count = output.count
        let written: Int
        var total = 0
        if count == 1, case .caller(let range) = output.segments[0] {
            // The steady state of an echo server: one reply, all of it in the caller's buffer.
            total = range.count
            var piece = UnsafeRawBufferPointer(rebasing: bytes[range])
            written = withUnsafePointer(to: &piece) { write(UnsafeBufferPointer(start: $0, count: 1)) }
        } else {
            for index in 0..<count { total += output.segments[index].count }
            var taken = 0
            outbox.withUnsafeBytes { own in
                output.segments.withUnsafeBufferPointer { segments in
                    // Batches of at most `Self.piecesPerWrite`, so that the list stays on the stack
                    // (a read of small echoes holds hundreds); a batch not taken whole ends the writing.
                    withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: Self.piecesPerWrite) { list in
                        var index = 0
                        while index < count {
                            let batch = min(Self.piecesPerWrite, count - index)
                            var batchBytes = 0
                            for slot in 0..<batch {
                                switch segments[index + slot] {
                                case .outbox(let range): list[slot] = UnsafeRawBufferPointer(rebasing: own[range])
                                case .caller(let range): list[slot] = UnsafeRawBufferPointer(rebasing: bytes[range])
                                }
                                batchBytes += list[slot].count
                            }
                            let took = min(max(write(UnsafeBufferPointer(rebasing: list[0..<batch])), 0), batchBytes)
                            taken += took
                            index += batch
                            if took < batchBytes { break }
                        }
                    }
                }
            }
            written = taken
        }
        var skip = min(max(written, 0), total)
        guard skip < total else {
            // All written.
            emptyOutbox()
            return
        }
        // What was not written stays pending, in order, in our own buffer (`bytes` goes back).
        var rest: [UInt8] = []
        rest.reserveCapacity(total - skip)
        outbox.withUnsafeBytes { own in
            for segment in output.segments[..<count] {
                let piece: UnsafeRawBufferPointer
                switch segment {
                case .outbox(let range): piece = UnsafeRawBufferPointer(rebasing: own[range])
                case .caller(let range): piece = UnsafeRawBufferPointer(rebasing: bytes[range])
                }
                if skip >= piece.count {
                    skip -= piece.count
                    continue
                }
                rest.append(contentsOf: UnsafeRawBufferPointer(rebasing: piece[skip...]))
                skip = 0
            }
        }
        outboxEnd = rest.count
        outbox = rest
        outboxStart = 0
    }
}
