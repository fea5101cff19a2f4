// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Output: the bytes queued for the peer, lent to the caller's write or taken whole. Frames are
// written into `outbox`; prepared messages join `queuedOutput` as they are, behind what is pending,
// so that broadcast shares one copy of its frames.

extension Connection {
    /// The number of bytes queued for the peer and not yet taken (like a browser's `bufferedAmount`).
    @inlinable
    public var pendingOutputCount: Int { queuedBytes + outboxEnd - outboxStart }

    /// Whether the pending output is one contiguous piece (no prepared message queued apart from
    /// the connection's own frames): ``withPendingOutput(_:)`` then lends all of it in one call, and
    /// a plain `send` does what a gathered one would.
    @inlinable
    public var pendingOutputIsContiguous: Bool { queuedBytes == 0 }

    /// The output you took from the connection (``takeOutput()``, or pieces it lent) and still hold
    /// in buffers of your own, unwritten: a loop that drains the connection into its channel's buffer
    /// (SwiftNIO's pending writes, say) tells it here, and keeps it current as the channel writes.
    /// ``Connection/Limits/maxBufferedOutput`` counts it with ``pendingOutputCount``: sends are
    /// refused, and automatic pongs skipped, on the sum. Without it, output moved out of the
    /// connection no longer counts, and the limit never trips. Default 0; a negative value counts as 0.
    @inlinable
    public var outputHeldByCaller: Int {
        get { heldOutput }
        set { heldOutput = max(0, newValue) }
    }

    /// The output that counts against ``Connection/Limits/maxBufferedOutput``: what the connection
    /// holds and what its caller says it holds.
    var bufferedOutput: Int { pendingOutputCount &+ heldOutput }

    /// Takes all pending output, leaving the buffer empty. A prepared message that is all the output
    /// is handed over as it is (the same storage); several pieces are joined.
    public mutating func takeOutput() -> [UInt8] {
        if queuedBytes > 0 {
            if queuedOutput.count == 1, queuedStart == 0, outboxEnd == outboxStart {
                queuedBytes = 0
                return queuedOutput.removeLast()
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(pendingOutputCount)
            bytes.append(contentsOf: queuedOutput[queuedHead][queuedStart...])
            for index in (queuedHead + 1)..<queuedOutput.count { bytes.append(contentsOf: queuedOutput[index]) }
            bytes.append(contentsOf: outbox[outboxStart..<outboxEnd])
            clearQueuedOutput()
            emptyOutbox()
            return bytes
        }
        if outboxStart == 0 {
            trimOutbox()
            let bytes = outbox
            outbox = []
            outboxEnd = 0
            return bytes
        }
        let bytes = Array(outbox[outboxStart..<outboxEnd])
        emptyOutbox()
        return bytes
    }

    /// Takes all pending output into `buffer`, replacing what it held, and keeps `buffer`'s storage
    /// for the connection's next output: a loop that hands the same array back each time (after
    /// writing it) allocates nothing once both have grown, where ``takeOutput()`` gives the
    /// connection's storage away and the next send allocates anew. No byte is copied while the output
    /// is one piece (the arrays trade storage); several pieces (prepared messages) are joined into
    /// `buffer`.
    public mutating func takeOutput(into buffer: inout [UInt8]) {
        if queuedBytes == 0, outboxStart == 0 {
            // `buffer`'s old bytes become the room past `outboxEnd`: kept as they are, not zeroed.
            trimOutbox()
            swap(&outbox, &buffer)
            outboxEnd = 0
            return
        }
        buffer.removeAll(keepingCapacity: true)
        buffer.reserveCapacity(pendingOutputCount)
        if queuedBytes > 0 {
            buffer.append(contentsOf: queuedOutput[queuedHead][queuedStart...])
            for index in (queuedHead + 1)..<queuedOutput.count { buffer.append(contentsOf: queuedOutput[index]) }
            clearQueuedOutput()
        }
        buffer.append(contentsOf: outbox[outboxStart..<outboxEnd])
        emptyOutbox()
    }

    /// Lends the pending output to `write`, which returns how many bytes it wrote (a partial write is
    /// fine); those bytes are removed from the buffer. It lends one contiguous piece: the output
    /// may hold more (prepared messages are kept as they are), so call it while
    /// ``pendingOutputCount`` is above zero and `write` takes everything.
    ///
    /// Inlinable so that the caller's error type is concrete where it is called: an unspecialized
    /// generic body looked up `Result<Int, E>`'s metadata on every call, which showed in a server's
    /// profile as two metadata lookups per message.
    @inlinable
    public mutating func withPendingOutput<E: Error>(_ write: (UnsafeRawBufferPointer) throws(E) -> Int) throws(E) {
        var failure: E? = nil
        if queuedBytes == 0 {
            // Our own buffer alone, the usual case: lent here, inlined into the caller, without the
            // non-generic body's closure call.
            let range = outboxStart..<outboxEnd
            let written = outbox.withUnsafeBytes { raw in
                do throws(E) {
                    return try write(UnsafeRawBufferPointer(rebasing: raw[range]))
                } catch {
                    failure = error
                    return 0
                }
            }
            // All of it written, the usual case: emptied here, without `consumeOutput`'s call.
            if written >= outboxEnd &- outboxStart {
                emptyOutbox()
            } else {
                consumeOutput(written)
            }
            if let failure { throw failure }
            return
        }
        lendPendingOutput { bytes in
            do throws(E) {
                return try write(bytes)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
    }

    /// The non-generic body of ``withPendingOutput(_:)``.
    @usableFromInline
    internal mutating func lendPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        if queuedBytes > 0 {
            let start = queuedStart
            let written = queuedOutput[queuedHead].withUnsafeBytes { raw in
                write(UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
            consumeOutput(written)
            return
        }
        let range = outboxStart..<outboxEnd
        let written = outbox.withUnsafeBytes { raw in write(UnsafeRawBufferPointer(rebasing: raw[range])) }
        consumeOutput(written)
    }

    /// Lends up to `maxPieces` pieces of the pending output, in order, for one gathered write
    /// (`writev`, `sendmsg`): `write` returns how many bytes it wrote from the front (a partial write
    /// is fine), and those are removed. A prepared message sent while other output was pending is a
    /// piece of its own, lent in place. Lends nothing when nothing is pending.
    public mutating func withPendingOutputPieces(upTo maxPieces: Int,
                                                 _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) -> Int) {
        let ownPending = outboxEnd > outboxStart
        if queuedBytes == 0 {
            // The usual case, one piece: lent without the nested calls (whose captured state the
            // runtime checks for exclusivity on every call).
            guard ownPending else { return }
            let range = outboxStart..<outboxEnd
            let written = outbox.withUnsafeBytes { raw in
                var piece = UnsafeRawBufferPointer(rebasing: raw[range])
                return withUnsafePointer(to: &piece) { write(UnsafeBufferPointer(start: $0, count: 1)) }
            }
            consumeOutput(written)
            return
        }
        let available = queuedOutput.count - queuedHead + (ownPending ? 1 : 0)
        let count = min(max(maxPieces, 1), available)
        guard count > 0 else { return }
        var written = 0
        withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: count) { list in
            // Each piece's storage is pinned by the closure that lends it, so the pieces are lent
            // by nested calls, one per piece (at most `maxPieces` deep).
            func lend(_ index: Int) {
                guard index < count else {
                    written = write(UnsafeBufferPointer(list))
                    return
                }
                if index < queuedOutput.count - queuedHead {
                    let start = index == 0 ? queuedStart : 0
                    queuedOutput[queuedHead + index].withUnsafeBytes { raw in
                        list[index] = UnsafeRawBufferPointer(rebasing: raw[start...])
                        lend(index + 1)
                    }
                } else {
                    let range = outboxStart..<outboxEnd
                    outbox.withUnsafeBytes { raw in
                        list[index] = UnsafeRawBufferPointer(rebasing: raw[range])
                        lend(index + 1)
                    }
                }
            }
            lend(0)
        }
        consumeOutput(written)
    }

    /// Removes the first `count` bytes of pending output, after the caller wrote them: only the
    /// lending calls above, which know what was written, may drop output.
    @usableFromInline
    internal mutating func consumeOutput(_ count: Int) {
        if queuedBytes == 0 {
            // Our own buffer alone, the usual case: no walk through the queue.
            if count >= outboxEnd &- outboxStart {
                emptyOutbox()
            } else if count > 0 {
                outboxStart += count
                compactOutbox()
            }
            return
        }
        var remaining = min(max(count, 0), pendingOutputCount)
        while remaining > 0, queuedBytes > 0 {
            let headLeft = queuedOutput[queuedHead].count - queuedStart
            let taken = min(remaining, headLeft)
            remaining -= taken
            queuedBytes -= taken
            if taken < headLeft {
                queuedStart += taken
            } else {
                // Written: released at once (a prepared message's last reference may be this one).
                queuedOutput[queuedHead] = []
                queuedHead += 1
                queuedStart = 0
                if queuedHead == queuedOutput.count { clearQueuedOutput() }
            }
        }
        guard remaining > 0 else { return }
        outboxStart += remaining
        compactOutbox()
    }

    /// Drops the written prefix `outbox[..<outboxStart]` when that is cheap: at once (two stores)
    /// when everything was written, otherwise as `compactConsumedPrefix` would (`isWorthCompacting`).
    @inline(__always)
    mutating func compactOutbox() {
        if outboxStart == outboxEnd {
            outboxStart = 0
            outboxEnd = 0
        } else if isWorthCompacting(consumed: outboxStart, of: outboxEnd) {
            let (start, end) = (outboxStart, outboxEnd)
            outbox.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                base.copyMemory(from: base + start, byteCount: end - start)
            }
            outboxEnd = end - start
            outboxStart = 0
        }
    }

    /// Empties our own buffer, keeping its storage as room for the next frames.
    @inlinable @inline(__always)
    mutating func emptyOutbox() {
        outboxStart = 0
        outboxEnd = 0
    }

    /// Cuts the array down to the bytes it holds (`outbox[..<outboxEnd]`), before it is handed out
    /// or appended to as an array.
    @inline(__always)
    mutating func trimOutbox() {
        if outbox.count > outboxEnd { dropOutboxRoom() }
    }

    @inline(never)
    private mutating func dropOutboxRoom() {
        outbox.removeSubrange(outboxEnd...)
    }

    /// Appends bytes to the output as they are (a handshake's HTTP answer): not the framing path.
    /// A server's answer is its first output: the buffer has no storage yet, and the answer's own
    /// array becomes it (with the room its writer reserved, which the first frames then use),
    /// instead of being copied into a new one.
    mutating func appendOutput(contentsOf bytes: [UInt8]) {
        guard outboxEnd == 0, outbox.capacity == 0 else {
            appendOutputCopying(bytes)
            return
        }
        outbox = bytes
        outboxStart = 0
        outboxEnd = bytes.count
    }

    /// ``appendOutput(contentsOf:)``, copying.
    mutating func appendOutputCopying(_ bytes: some Collection<UInt8>) {
        trimOutbox()
        outbox.append(contentsOf: bytes)
        outboxEnd = outbox.count
    }

    /// Empties the queue, keeping its capacity.
    mutating func clearQueuedOutput() {
        queuedOutput.removeAll(keepingCapacity: true)
        queuedHead = 0
        queuedStart = 0
        queuedBytes = 0
    }

    /// Makes room for `count` more bytes of output at once past `outboxEnd`, when the room past it
    /// is too small: the array is cut to its pending bytes, with capacity for `count` more
    /// (geometric growth, for frames queued without the output being taken). Returns whether the
    /// bytes must be appended (`false`: they fit in place, from `outboxEnd`).
    @inline(__always)
    mutating func makeRoomForOutput(_ count: Int) -> Bool {
        if outbox.count &- outboxEnd >= count { return false }
        trimOutbox()
        let needed = outboxEnd + count
        if needed > outbox.capacity { outbox.reserveCapacity(max(needed, 2 * outbox.capacity)) }
        return true
    }

    /// Appends `bytes` (a prepared message's frames) to the output without copying them: queued as
    /// they are, after what is pending in `outbox` (whose array moves to the queue).
    mutating func appendSharedOutput(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if outboxEnd > outboxStart {
            if queuedBytes == 0 {
                clearQueuedOutput()
                queuedStart = outboxStart
            }
            queuedBytes += outboxEnd - outboxStart
            trimOutbox()
            queuedOutput.append(outbox)
            outbox = []
            emptyOutbox()
        }
        queuedOutput.append(bytes)
        queuedBytes += bytes.count
    }
}
