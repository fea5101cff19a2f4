import Dispatch
import WebSocketTransport

extension WebSocket {
    /// The sources of `socket`, whose handlers run on the socket's queue. A handler ignores events
    /// from a socket the WebSocket no longer uses (a failed connect attempt's).
    func makeSources(_ socket: Socket) throws(Errno) -> SocketSources {
        let descriptor = socket.descriptor
        return try SocketSources(socket: socket, queue: queue,
                             onReadable: { [self] in handleReadable(descriptor: descriptor) },
                             onWritable: { [self] in handleWritable(descriptor: descriptor) })
    }

    /// At most this many reads per readable event, so that one busy socket cannot hold its queue.
    static var readsPerEvent: Int { 16 }

    func handleReadable(descriptor: Int32) {
        guard let sources, sources.socket.descriptor == descriptor else { return }
        switch transport {
        case .open:
            readIntoPipeline(sources.socket)
            pump()
        case .idle, .connecting, .closing, .closed:
            sources.setInterest(reading: false, writing: false)
        }
    }

    /// Reads into the pipeline, pulling events after each read so that the connection parses as
    /// bytes arrive and reading stops as soon as the consumer holds enough.
    private func readIntoPipeline(_ socket: Socket) {
        for _ in 0..<Self.readsPerEvent {
            let outcome: Socket.ReadOutcome
            do throws(Errno) {
                // The thread's buffer, for this read and the pipeline's copy of it.
                outcome = try ReadScratch.with(size: options.effectiveReadBufferSize) { (buffer) throws(Errno) in
                    let outcome = try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<options.effectiveReadBufferSize]))
                    if case .bytes(let count) = outcome { pipeline.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
                    return outcome
                }
            } catch {
                // A reset or another read error: the transport failed (RFC 6455 §7.1.5 reports
                // 1006 unless the closing handshake was over).
                inputEnded = true
                pipeline.fail(.transport(error))
                return
            }
            switch outcome {
            case .bytes:
                pullEvents()
                if heldInputBytes >= max(1, options.maxUndeliveredBytes) { return }
                if peek({ $0.connection.pendingHandshakeRequest != nil }) { return }
            case .nothing:
                return
            case .endOfStream:
                inputEnded = true
                pipeline.receiveEOF()
                return
            }
        }
    }

    func handleWritable(descriptor: Int32) {
        guard let sources, sources.socket.descriptor == descriptor else { return }
        switch transport {
        case .connecting:
            finishConnectAttempt()
        case .open:
            pump()
        case .idle, .closing, .closed:
            sources.setInterest(reading: false, writing: false)
        }
    }

    /// Writes the pipeline's output until it is empty or the socket would block. A write error
    /// means the peer is gone: the pipeline aborts the connection.
    func writeOutput() {
        guard let sources else { return }
        let socket = sources.socket
        while peek({ $0.socketOutputCount }) > 0 {
            var written = 0
            do throws(Errno) {
                try pipeline.withSocketOutput { (bytes) throws(Errno) -> Int in
                    written = try socket.writeSome(bytes)
                    return written
                }
            } catch {
                pipeline.fail(.transport(error))
                return
            }
            if written == 0 {
                if writeStalledSince == nil { writeStalledSince = system.monotonicNow() }
                return
            }
            writeStalledSince = nil
            pipeline.update()
        }
        writeStalledSince = nil
    }

    /// The earliest instant at which a stalled write fails the connection.
    var writeStallDeadline: Connection.Instant? {
        guard let since = writeStalledSince, let timeout = options.writeTimeout else { return nil }
        return since + timeout
    }
}
