import Dispatch
import WebSocketCore

extension WebSocket {
    /// The sources of `fd`, whose handlers run on the socket's queue. A handler ignores events from a
    /// descriptor the socket no longer uses (a failed connect attempt's).
    func makeSources(fd: Int32) -> SocketSources {
        SocketSources(fd: fd, queue: queue,
                      onReadable: { [self] in handleReadable(fd: fd) },
                      onWritable: { [self] in handleWritable(fd: fd) })
    }

    /// At most this many reads per readable event, so that one busy socket cannot hold its queue.
    static var readsPerEvent: Int { 16 }

    func handleReadable(fd: Int32) {
        guard let sources, sources.fd == fd else { return }
        switch transport {
        case .open:
            readIntoConnection(fd: fd)
            pump()
        case .flushing, .draining:
            discardInput(fd: fd)
            if inputEnded, case .draining = transport {
                closeSocket()
            } else {
                pump()
            }
        case .idle, .connecting, .closing, .closed:
            sources.setReading(false)
        }
    }

    /// Reads into the core, pulling events after each read so that the core parses as bytes arrive
    /// and reading stops as soon as the consumer holds enough.
    private func readIntoConnection(fd: Int32) {
        for _ in 0..<Self.readsPerEvent {
            let result = readBuffer.withUnsafeMutableBytes { Socket.receive(fd, into: $0) }
            switch result {
            case .bytes(let count):
                connection.receive(readBuffer[..<count])
                pullEvents()
                if heldInputBytes >= max(1, options.maxUndeliveredBytes) { return }
                if connection.pendingHandshakeRequest != nil { return }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                // A reset or another read error ends the transport like end of stream: the core
                // reports 1006 (RFC 6455 §7.1.5) if no closing handshake finished.
                inputEnded = true
                connection.receiveEOF()
                return
            }
        }
    }

    /// After the core said to close the transport: reads and drops whatever the peer still sends,
    /// watching for its end of stream.
    private func discardInput(fd: Int32) {
        for _ in 0..<Self.readsPerEvent {
            let result = readBuffer.withUnsafeMutableBytes { Socket.receive(fd, into: $0) }
            switch result {
            case .bytes:
                continue
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                inputEnded = true
                connection.receiveEOF()
                return
            }
        }
    }

    func handleWritable(fd: Int32) {
        guard let sources, sources.fd == fd else { return }
        switch transport {
        case .connecting:
            let error = Socket.pendingError(fd)
            if error == 0 {
                didConnect()
            } else {
                abandonAttempt(.connectFailed(SystemError(error)))
            }
        case .open, .flushing:
            pump()
        case .idle, .draining, .closing, .closed:
            sources.setWriting(false)
        }
    }

    /// Writes the core's output until it is empty or the socket would block. A write error means the
    /// peer is gone: the core is told the transport ended.
    func writeOutput() {
        guard let sources, !writeFailed else { return }
        let fd = sources.fd
        while connection.pendingOutputCount > 0 {
            var outcome = Socket.IOResult.wouldBlock
            connection.withPendingOutput { buffer in
                outcome = Socket.send(fd, buffer)
                if case .bytes(let count) = outcome { return count }
                return 0
            }
            switch outcome {
            case .bytes:
                continue
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                writeFailed = true
                inputEnded = true
                connection.receiveEOF()
                return
            }
        }
    }
}
