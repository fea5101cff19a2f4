// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// Theory of operation
//
// A `ConnectionPipeline` is everything between one socket and one WebSocket `Connection`: the
// connection itself and the transport layers under it (TLS, a proxy tunnel), as one value. Both
// adapters drive the same pipeline, so every decision about the transport is made here, once:
//
// 1. Bytes read from the socket go up through the layers, each layer's decoded bytes into the next,
//    the top layer's into the connection. A layer's end of stream becomes the next one's; the top
//    one's becomes `Connection.receiveEOF()`.
// 2. Output goes down: the connection's into the top layer, each layer's into the one below, the
//    bottom one's to the socket. A layer takes bytes from above only once it is established (its own
//    handshake output goes first) and while it holds less than `layerOutputMark` unsent, so that
//    the connection's own buffer, which the adapters use for backpressure, holds the rest.
// 3. A transport failure aborts the connection (`Connection.abort()`): a socket call that failed,
//    a write that timed out, a layer that failed. The first failure is kept as `failure`; a failed
//    socket writes nothing more, while a failed layer's last words (a TLS alert) still go out.
// 4. What the socket does next is `socketDirective`, from the connection's `transportDirective`
//    (RFC 6455 §7.1.1): stay open; once the connection closed, end the layers' streams (TLS
//    close_notify), write everything, shut down the sending side and drain until the peer closes or
//    the linger deadline; or close now.
// 5. Nothing happens between calls: after every input the adapter calls `update()`, pulls the
//    connection's events, writes `withSocketOutput`, and obeys `socketDirective`.

/// A WebSocket connection and the transport layers under it, between one socket and its adapter.
package struct ConnectionPipeline: Sendable {
    /// What the socket should do next (see ``socketDirective``).
    package enum SocketDirective: Sendable, Hashable {
        /// Read, and write the output.
        case open
        /// Everything is written: shut down the socket's sending side now, then call
        /// ``didShutDownWrite()``.
        case shutDownWrite
        /// The sending side is shut down: keep reading (what arrives is discarded) until the end of
        /// the stream or `deadline`, when the directive becomes ``close``.
        case drain(deadline: Connection.Instant?)
        /// Close the socket, after writing what the socket takes without waiting.
        case close
    }

    /// The WebSocket connection. Adapters pull its events and call its send, close and decision
    /// methods directly; bytes and time go through the pipeline.
    package var connection: Connection
    /// The layers, the socket's side first.
    private var layers: [any TransportLayer]
    /// For each layer, whether its end of stream has been passed up.
    private var endPassedUp: [Bool]
    /// How many layers, from the top, have been told that everything above them was sent.
    private var layersFinished = 0
    /// The first transport failure; it aborted the connection.
    package private(set) var failure: WebSocketError?
    /// Whether ``failure`` is set: read on every input, and cheaper than looking into the optional
    /// error (a large enum, copied to be compared).
    package private(set) var hasFailed = false
    /// Whether the socket can still take bytes: not after a socket failure.
    private var socketWritable = true
    /// Whether the adapter has shut down the socket's sending side.
    package private(set) var isWriteShutDown = false
    /// Decoded bytes on their way up between layers.
    private var scratch: [UInt8] = []

    /// A layer takes more bytes from above only while it holds less than this unsent.
    package static let layerOutputMark = 64 << 10
    /// The size of one move of decoded bytes between layers.
    static let scratchSize = 16 << 10

    /// A pipeline over `connection`, with `layers` under it (the socket's side first).
    package init(connection: consuming Connection, layers: [any TransportLayer] = []) {
        // Moved in, not copied: a copy of a connection retains every reference it holds.
        self.connection = consume connection
        self.layers = layers
        endPassedUp = Array(repeating: false, count: layers.count)
    }

    /// Whether there are layers between the socket and the connection.
    package var hasLayers: Bool { !layers.isEmpty }

    // MARK: Input

    /// Takes bytes read from the socket.
    package mutating func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !hasFailed else { return }
        guard !layers.isEmpty else {
            connection.receive(bytes)
            return
        }
        layers[0].receive(bytes)
        passUp()
    }

    /// ``receive(_:)``, a head at the start of `bytes` read where it lies when no layer stands
    /// between the socket and the connection
    /// (``WebSocketCore/Connection/receive(readingHeadFrom:)``); through the layers as usual
    /// otherwise.
    package mutating func receive(readingHeadFrom bytes: UnsafeRawBufferPointer) {
        guard !hasFailed else { return }
        guard !layers.isEmpty else {
            connection.receive(readingHeadFrom: bytes)
            return
        }
        receive(bytes)
    }

    /// The socket's input ended (a read returned 0).
    package mutating func receiveEOF() {
        guard !hasFailed else { return }
        guard !layers.isEmpty else {
            connection.receiveEOF()
            return
        }
        layers[0].receiveEOF()
        passUp()
    }

    /// A socket call failed: the connection is aborted and nothing more is written.
    package mutating func fail(_ error: WebSocketError) {
        socketWritable = false
        recordFailure(error)
    }

    private mutating func recordFailure(_ error: WebSocketError) {
        if !hasFailed {
            failure = error
            hasFailed = true
        }
        connection.abort()
    }

    /// Moves what each layer decoded into the one above it, and the top layer's into the connection.
    private mutating func passUp() {
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: Self.scratchSize) }
        for index in layers.indices {
            while true {
                let count = scratch.withUnsafeMutableBytes { layers[index].read(into: $0) }
                guard count > 0 else { break }
                scratch.withUnsafeBytes { raw in
                    let chunk = UnsafeRawBufferPointer(rebasing: raw[..<count])
                    if index + 1 < layers.count {
                        layers[index + 1].receive(chunk)
                    } else {
                        connection.receive(chunk)
                    }
                }
            }
            switch layers[index].status {
            case .failed(let error):
                recordFailure(error)
                return
            case .ended where !endPassedUp[index]:
                endPassedUp[index] = true
                if index + 1 < layers.count {
                    layers[index + 1].receiveEOF()
                } else {
                    connection.receiveEOF()
                }
            case .ended, .establishing, .established:
                break
            }
        }
    }

    // MARK: Output

    /// Moves output down toward the socket and, once the connection is closed, ends the layers'
    /// streams. Call it after every change (input, a send, a close, time) before writing or reading
    /// ``socketDirective``.
    package mutating func update() {
        guard !layers.isEmpty else { return }
        var layers = self.layers
        self.layers = []
        defer { self.layers = layers }
        let top = layers.count - 1
        let finishing = !hasFailed && connection.transportDirective != .keepOpen
            && connection.transportDirective != .awaitPeerClose
        // Into the top layer from the connection.
        // The connection lends its output a piece at a time (prepared messages stay separate arrays).
        while !hasFailed, layers[top].status.takesOutput, connection.pendingOutputCount > 0 {
            let room = Self.layerOutputMark - layers[top].pendingOutputCount
            guard room > 0 else { break }
            connection.withPendingOutput { bytes in
                let count = min(bytes.count, room)
                layers[top].send(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                return count
            }
        }
        if finishing, layersFinished == 0, connection.pendingOutputCount == 0 {
            layers[top].finishSending()
            layersFinished = 1
        }
        // Down through the layers.
        var index = top
        while index > 0 {
            let below = index - 1
            if layers[below].status.takesOutput, layers[index].pendingOutputCount > 0 {
                let room = Self.layerOutputMark - layers[below].pendingOutputCount
                if room > 0 {
                    // Two elements of one array, each changed in place: through a buffer pointer,
                    // since the array cannot be borrowed twice.
                    layers.withUnsafeMutableBufferPointer { buffer in
                        buffer[index].withPendingOutput { bytes in
                            let count = min(bytes.count, room)
                            buffer[below].send(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                            return count
                        }
                    }
                }
            }
            if finishing, layersFinished == top - below, layers[index].pendingOutputCount == 0 {
                layers[below].finishSending()
                layersFinished += 1
            }
            index = below
        }
    }

    /// All output not yet written to the socket: the connection's and the layers'.
    package var pendingOutputCount: Int {
        guard socketWritable else { return 0 }
        var count = connection.pendingOutputCount
        for layer in layers { count += layer.pendingOutputCount }
        return count
    }

    /// The bytes ready for the socket now.
    package var socketOutputCount: Int {
        @inline(__always) get {
            guard socketWritable else { return 0 }
            // Not `layers.first`: an optional existential costs more than the check, on every write.
            return layers.isEmpty ? connection.pendingOutputCount : layers[0].pendingOutputCount
        }
    }

    /// Lends the bytes ready for the socket to `write`, which returns how many it wrote.
    ///
    /// Not generic over the error on purpose: both adapters write with `Errno`, and a generic body
    /// (not specialized across the module boundary) looked up `Optional<E>`'s metadata on every
    /// write.
    package mutating func withSocketOutput(_ write: (UnsafeRawBufferPointer) throws(Errno) -> Int) throws(Errno) {
        var failure: Errno? = nil
        withSocketOutput { (bytes: UnsafeRawBufferPointer) -> Int in
            do throws(Errno) {
                return try write(bytes)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
    }

    /// Lends the bytes ready for the socket to `write`, which returns how many it wrote.
    package mutating func withSocketOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        guard socketWritable else { return }
        guard !layers.isEmpty else {
            connection.withPendingOutput(write)
            return
        }
        layers[0].withPendingOutput(write)
    }

    /// Lends up to `maxPieces` pieces of the bytes ready for the socket, for one gathered send
    /// (``Socket/writeSome(pieces:)``); `write` returns how many bytes it wrote. Without transport
    /// layers these are the connection's pieces (prepared messages in place); a layer's output is
    /// one piece.
    package mutating func withSocketOutputPieces(upTo maxPieces: Int,
                                                 _ write: (UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Errno) -> Int) throws(Errno) {
        guard socketWritable else { return }
        var failure: Errno? = nil
        if layers.isEmpty {
            connection.withPendingOutputPieces(upTo: maxPieces) { pieces in
                do throws(Errno) {
                    return try write(pieces)
                } catch {
                    failure = error
                    return 0
                }
            }
        } else {
            layers[0].withPendingOutput { bytes in
                var piece = bytes
                return withUnsafePointer(to: &piece) { pointer in
                    do throws(Errno) {
                        return try write(UnsafeBufferPointer(start: pointer, count: 1))
                    } catch {
                        failure = error
                        return 0
                    }
                }
            }
        }
        if let failure { throw failure }
    }

    /// Takes the bytes ready for the socket, for a writer that writes them outside a lock.
    package mutating func takeSocketOutput() -> [UInt8] {
        guard socketWritable else { return [] }
        guard !layers.isEmpty else { return connection.takeOutput() }
        var bytes: [UInt8] = []
        layers[0].withPendingOutput { chunk in
            bytes = Array(chunk)
            return chunk.count
        }
        return bytes
    }

    // MARK: The socket's next step

    /// What the socket should do now; see ``SocketDirective``. Read after ``update()``.
    package var socketDirective: SocketDirective {
        if hasFailed { return .close }
        switch connection.transportDirective {
        case .keepOpen, .awaitPeerClose:
            return .open
        case .halfCloseAndDrain(let deadline):
            if isWriteShutDown { return .drain(deadline: deadline) }
            return pendingOutputCount == 0 && layersFinished == layers.count ? .shutDownWrite : .open
        case .close:
            return .close
        }
    }

    /// The adapter shut down the socket's sending side (after ``SocketDirective/shutDownWrite``).
    package mutating func didShutDownWrite() {
        isWriteShutDown = true
    }

    // MARK: Time

    /// The earliest instant at which ``advanceTime(to:)`` has something to do.
    package var nextDeadline: Connection.Instant? { connection.nextDeadline }

    /// Reports the time to the connection's timers.
    package mutating func advanceTime(to now: Connection.Instant) {
        connection.advanceTime(to: now)
    }

    // MARK: The end

    /// How the connection ended: its status once closed; otherwise (the transport was closed under
    /// a connection that is not, which the adapters never do) a lost connection.
    package var closeStatus: Connection.CloseStatus {
        if case .closed(let status) = connection.state { return status }
        return Connection.CloseStatus(code: .abnormalClosure, reason: "connection lost", wasClean: false, failure: .aborted)
    }
}

extension TransportLayerStatus {
    /// Whether the layer takes bytes from above: once established, and still after its input ended
    /// (a reply to a peer that ended only its own direction).
    var takesOutput: Bool {
        switch self {
        case .established, .ended: return true
        case .establishing, .failed: return false
        }
    }
}
