import Dispatch
import WebSocketTransport

/// The read and write `DispatchSource`s of one non-blocking ``Socket``.
///
/// Each source is resumed only while it is wanted (a level-triggered source that nobody drains would
/// fire without end), and the descriptor is closed only after both sources have been cancelled, as
/// libdispatch requires.
///
/// `@unchecked Sendable`: the object is created on its queue and every method and stored property is
/// used only on that serial queue (the event and cancel handlers run there too); it crosses threads
/// only as a reference captured by those handlers.
final class SocketSources: @unchecked Sendable {
    let socket: Socket
    private let readSource: any DispatchSourceRead
    private let writeSource: any DispatchSourceWrite
    private var isReading = false
    private var isWriting = false
    private var isCancelled = false
    private var sourcesLeft = 2

    /// Creates both sources on `queue`, suspended; `onReadable` and `onWritable` run on `queue`.
    init(socket: Socket, queue: DispatchQueue, onReadable: @escaping @Sendable () -> Void,
         onWritable: @escaping @Sendable () -> Void) {
        self.socket = socket
        readSource = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: socket.descriptor, queue: queue)
        readSource.setEventHandler(handler: onReadable)
        writeSource.setEventHandler(handler: onWritable)
    }

    /// Resumes or suspends the read source.
    func setReading(_ wanted: Bool) {
        guard wanted != isReading, !isCancelled else { return }
        isReading = wanted
        if wanted { readSource.resume() } else { readSource.suspend() }
    }

    /// Resumes or suspends the write source.
    func setWriting(_ wanted: Bool) {
        guard wanted != isWriting, !isCancelled else { return }
        isWriting = wanted
        if wanted { writeSource.resume() } else { writeSource.suspend() }
    }

    /// Cancels both sources, closes the socket once both are done, then calls `completion` (on the
    /// queue). Calling it again does nothing.
    func close(then completion: @escaping @Sendable () -> Void) {
        guard !isCancelled else { return }
        isCancelled = true
        let done: @Sendable () -> Void = { [self] in
            sourcesLeft -= 1
            guard sourcesLeft == 0 else { return }
            socket.close()
            completion()
        }
        readSource.setCancelHandler(handler: done)
        writeSource.setCancelHandler(handler: done)
        readSource.cancel()
        writeSource.cancel()
        // A suspended source runs its cancel handler only once resumed; cancelled, it delivers no
        // more events.
        if !isReading { readSource.resume() }
        if !isWriting { writeSource.resume() }
    }
}
