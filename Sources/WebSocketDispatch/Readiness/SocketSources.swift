import Dispatch
import WebSocketTransport

/// Readiness of one non-blocking ``Socket`` for the Dispatch adapter: `onReadable` and `onWritable`
/// run on the socket's queue while reading or writing is wanted (``setInterest(reading:writing:)``),
/// and ``close(then:)`` stops them before it closes the descriptor.
///
/// On Linux readiness comes from ``EpollLoop`` (one-shot registrations re-armed here after each
/// event); elsewhere from a pair of `DispatchSource`s, resumed only while wanted (a level-triggered
/// source that nobody drains would fire without end).
///
/// `@unchecked Sendable`: the object is created on its queue and every method and stored property is
/// used only on that serial queue (the event handlers run there too); it crosses threads only as a
/// reference captured by those handlers.
final class SocketSources: @unchecked Sendable {
    let socket: Socket
    private let onReadable: @Sendable () -> Void
    private let onWritable: @Sendable () -> Void
    private var wantsReading = false
    private var wantsWriting = false
    private var isCancelled = false
    #if os(Linux)
    private let loop: EpollLoop
    private var registration: UInt64 = 0
    /// An event was handed out and its re-arm is still to come.
    private var isArmed = false
    private var inEpoll = false
    #else
    private let readSource: any DispatchSourceRead
    private let writeSource: any DispatchSourceWrite
    private var isReadSourceResumed = false
    private var isWriteSourceResumed = false
    private var sourcesLeft = 2
    #endif

    /// Watches `socket`; nothing is wanted until ``setInterest(reading:writing:)``.
    ///
    /// - Throws: the error that kept the readiness loop from starting (Linux; no descriptor or thread
    ///   was left when the first socket was made).
    init(socket: Socket, queue: DispatchQueue, onReadable: @escaping @Sendable () -> Void,
         onWritable: @escaping @Sendable () -> Void) throws(Errno) {
        self.socket = socket
        self.onReadable = onReadable
        self.onWritable = onWritable
        #if os(Linux)
        loop = try EpollLoop.shared.get()
        // The loop holds this object until close(then:) forgets the registration, as a dispatch
        // source holds its handlers until it is cancelled. No event comes before the first arm.
        registration = loop.add(queue: queue) { [self] readiness in deliver(readiness) }
        #else
        readSource = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: socket.descriptor, queue: queue)
        readSource.setEventHandler(handler: onReadable)
        writeSource.setEventHandler(handler: onWritable)
        #endif
    }

    /// Says what the socket waits for now.
    func setInterest(reading: Bool, writing: Bool) {
        guard !isCancelled else { return }
        let changed = reading != wantsReading || writing != wantsWriting
        wantsReading = reading
        wantsWriting = writing
        #if os(Linux)
        if changed || !isArmed { rearm() }
        #else
        if changed {
            if reading != isReadSourceResumed {
                isReadSourceResumed = reading
                if reading { readSource.resume() } else { readSource.suspend() }
            }
            if writing != isWriteSourceResumed {
                isWriteSourceResumed = writing
                if writing { writeSource.resume() } else { writeSource.suspend() }
            }
        }
        #endif
    }

    #if os(Linux)
    private func rearm() {
        loop.arm(registration, descriptor: socket.descriptor, reading: wantsReading, writing: wantsWriting,
                             inEpoll: &inEpoll)
        isArmed = wantsReading || wantsWriting
    }

    /// One event from the loop, on the queue: the registration is disarmed until re-armed here.
    private func deliver(_ readiness: EpollLoop.Readiness) {
        guard !isCancelled else { return }
        isArmed = false
        if wantsReading, !readiness.isDisjoint(with: [.readable, .failed]) { onReadable() }
        if !isCancelled, wantsWriting, !readiness.isDisjoint(with: [.writable, .failed]) { onWritable() }
        // The handlers set the interest again (which re-arms); if they did not, re-arm as it was.
        if !isCancelled, !isArmed { rearm() }
    }
    #endif

    /// Stops the readiness handlers, closes the socket, then calls `completion` (on the queue).
    /// Calling it again does nothing.
    func close(then completion: @escaping @Sendable () -> Void) {
        guard !isCancelled else { return }
        isCancelled = true
        #if os(Linux)
        // Forgotten before the descriptor closes: a late event for it, or for a new socket given the
        // same number, finds no registration.
        loop.remove(registration, descriptor: socket.descriptor, inEpoll: inEpoll)
        inEpoll = false
        socket.close()
        completion()
        #else
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
        if !isReadSourceResumed { readSource.resume() }
        if !isWriteSourceResumed { writeSource.resume() }
        #endif
    }
}
