#if os(Linux)
import Glibc
import CWebSocketSystem
import WebSocketTransport

/// A thin typed wrapper over one epoll instance: the descriptor, and the three calls the loop makes.
///
/// Every registration carries a 64-bit token, never a pointer: an event for a socket that has gone
/// finds no live token and is dropped (see `EventLoop.Token`).
struct Epoll: ~Copyable {
    let descriptor: Int32

    /// What the kernel reported for one registration.
    struct Readiness: OptionSet {
        let rawValue: UInt32
        static let readable = Readiness(rawValue: 1 << 0)
        static let writable = Readiness(rawValue: 1 << 1)
        /// An error or a hang-up: the next read or write finds out which.
        static let failed = Readiness(rawValue: 1 << 2)

        init(rawValue: UInt32) { self.rawValue = rawValue }

        init(events: UInt32) {
            var readiness: Readiness = []
            if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 { readiness.insert(.readable) }
            if events & EPOLLOUT.rawValue != 0 { readiness.insert(.writable) }
            if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { readiness.insert(.failed) }
            self = readiness
        }
    }

    /// How a descriptor is watched.
    enum Interest {
        /// A connection: readable and writable, edge-triggered, registered once for its lifetime. The
        /// owner reads and writes until `EAGAIN` and remembers what is still ready.
        case connection
        /// A listening socket: readable, edge-triggered. `exclusive` for a socket that several loops
        /// watch, so that one connection wakes one loop.
        case listener(exclusive: Bool)
        /// The loop's wake-up descriptor: readable, level-triggered.
        case wake

        var events: UInt32 {
            switch self {
            case .connection:
                return EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
            case .listener(let exclusive):
                return EPOLLIN.rawValue | EPOLLET.rawValue | (exclusive ? EPOLLEXCLUSIVE.rawValue : 0)
            case .wake:
                return EPOLLIN.rawValue
            }
        }
    }

    init() throws(Errno) {
        let descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw .current }
        self.descriptor = descriptor
    }

    deinit { _ = close(descriptor) }

    func add(_ fd: Int32, interest: Interest, token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = interest.events
        event.data.u64 = token
        guard epoll_ctl(descriptor, EPOLL_CTL_ADD, fd, &event) == 0 else { throw .current }
    }

    /// Stops watching `fd` (closing it does too, unless another descriptor shares its file).
    func remove(_ fd: Int32) {
        _ = epoll_ctl(descriptor, EPOLL_CTL_DEL, fd, nil)
    }

    /// Waits up to `timeoutMilliseconds` (-1: no limit) for events, into `events`. Returns how many
    /// came; an interrupted wait returns 0.
    func wait(into events: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32) -> Int {
        guard let base = events.baseAddress else { return 0 }
        return max(0, Int(epoll_wait(descriptor, base, Int32(events.count), timeoutMilliseconds)))
    }
}

/// An `eventfd`: other threads wake the loop by writing to it.
struct WakeFD: ~Copyable {
    let descriptor: Int32

    init() throws(Errno) {
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else { throw .current }
        self.descriptor = descriptor
    }

    deinit { _ = close(descriptor) }

    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, 8)
    }
}
#endif
