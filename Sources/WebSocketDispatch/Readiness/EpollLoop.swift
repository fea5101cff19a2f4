#if os(Linux)
import Glibc
import CWebSocketSystem
import Dispatch
import WebSocketTransport

/// Readiness notification for the Dispatch adapter's sockets on Linux: one thread waiting in
/// `epoll_wait` for every socket of the process, handing each readiness to the socket's own queue.
///
/// Why not `DispatchSource`s: libdispatch's Linux backend frees a descriptor's bookkeeping (its
/// "muxnote") on the thread that cancels the source, while its manager thread may hold an
/// `epoll_wait` result that still points at it; under load, with connections opening and closing
/// quickly, the manager thread then dereferences freed memory and the process crashes
/// (swift-corelibs-libdispatch#949, reproduced here by the burst tests on a busy machine). This loop
/// puts a registration number, never a pointer, in each epoll event: an event for a registration that
/// is gone, or whose descriptor number was reused since, finds no entry and is dropped.
///
/// Every registration is one-shot (`EPOLLONESHOT`): an event disarms it until its owner re-arms it
/// after handling the event, on its queue, so that at most one event per socket is in flight and a
/// socket that stops reading (flow control) is not woken again. A registration with no interest is
/// removed from the epoll set, so that a hang-up cannot wake it either.
///
/// `@unchecked Sendable`: `entries` is guarded by its lock; the epoll descriptor is used only through
/// `epoll_ctl` and `epoll_wait`, which the kernel makes safe from any thread.
final class EpollLoop: @unchecked Sendable {
    /// The loop of the process, started on first use, or why it could not be (no descriptor or
    /// thread left at that moment): then no socket of this adapter can be watched, and each reports
    /// why instead of trapping.
    static let shared: Result<EpollLoop, Errno> = {
        let descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { return .failure(.current) }
        let loop = EpollLoop(epollDescriptor: descriptor)
        let entries = loop.entries
        do throws(Errno) {
            try spawnDetachedThread { EpollLoop.run(epoll: descriptor, entries: entries) }
        } catch {
            _ = close(descriptor)
            return .failure(error)
        }
        return .success(loop)
    }()

    /// What the kernel reported for a registration.
    struct Readiness: OptionSet, Sendable {
        let rawValue: UInt32
        static let readable = Readiness(rawValue: 1 << 0)
        static let writable = Readiness(rawValue: 1 << 1)
        /// An error or a hang-up: a read or write finds out which.
        static let failed = Readiness(rawValue: 1 << 2)
    }

    struct Entry {
        var queue: DispatchQueue
        var handler: @Sendable (Readiness) -> Void
    }

    private let epollDescriptor: Int32
    private let entries = Locked<[UInt64: Entry]>([:])
    private let nextID = Locked<UInt64>(1)

    private init(epollDescriptor: Int32) {
        self.epollDescriptor = epollDescriptor
    }

    /// Watches nothing yet: returns the registration number that ``update(_:descriptor:reading:writing:isArmed:)``
    /// and ``remove(_:descriptor:isArmed:)`` take. `handler` runs on `queue`.
    func add(queue: DispatchQueue, handler: @escaping @Sendable (Readiness) -> Void) -> UInt64 {
        let id = nextID.withLock { value in
            defer { value &+= 1 }
            return value
        }
        entries.withLock { $0[id] = Entry(queue: queue, handler: handler) }
        return id
    }

    /// Arms registration `id` on `descriptor` for one event of the given interest, or removes it from
    /// the epoll set when there is none. `inEpoll` says whether the descriptor is in the set now, and
    /// is updated.
    func arm(_ id: UInt64, descriptor: Int32, reading: Bool, writing: Bool, inEpoll: inout Bool) {
        guard reading || writing else {
            if inEpoll {
                _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
                inEpoll = false
            }
            return
        }
        var flags = EPOLLONESHOT.rawValue
        if reading { flags |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if writing { flags |= EPOLLOUT.rawValue }
        var event = epoll_event()
        event.events = flags
        event.data.u64 = id
        if inEpoll, epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event) == 0 { return }
        if epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 {
            inEpoll = true
        } else if Errno.current == Errno(rawValue: EEXIST) {
            _ = epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event)
            inEpoll = true
        }
    }

    /// Forgets registration `id`: later events for it are dropped. Call before closing the descriptor.
    func remove(_ id: UInt64, descriptor: Int32, inEpoll: Bool) {
        if inEpoll { _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil) }
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }

    private static func run(epoll: Int32, entries: Locked<[UInt64: Entry]>) {
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while true {
            let count = epoll_wait(epoll, events, Int32(capacity), -1)
            guard count > 0 else { continue }  // EINTR, or nothing
            for index in 0..<Int(count) {
                let event = events[index]
                let id = event.data.u64
                guard let entry = entries.withLock({ $0[id] }) else { continue }
                var readiness: Readiness = []
                if event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 { readiness.insert(.readable) }
                if event.events & EPOLLOUT.rawValue != 0 { readiness.insert(.writable) }
                if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { readiness.insert(.failed) }
                let (handler, ready) = (entry.handler, readiness)
                entry.queue.async { handler(ready) }
            }
        }
    }
}
#endif
