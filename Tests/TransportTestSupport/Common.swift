#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import WebSocketTransport

/// The monotonic clock the socket layer uses.
package func now() -> Instant { SystemCalls.live.monotonicNow() }

/// A value handed from one thread to another, waited for with a timeout.
package final class Mailbox<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    package init() {}
    package func put(_ newValue: Value) {
        value.withLock { $0 = newValue }
        value.broadcast()
    }
    /// The value, once put; `nil` after `timeout`.
    package func take(timeout: Duration = .seconds(10)) -> Value? {
        guard value.wait(until: { $0 != nil }, deadline: now() + timeout, now: now) else { return nil }
        return value.withLock { $0 }
    }
}

/// Bytes of a deterministic pattern.
package func pattern(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}


/// The number of file descriptors this process has open, for leak checks around a test (Linux:
/// the entries of /proc/self/fd; elsewhere the descriptors below 4096 that `fcntl` knows).
package func openDescriptorCount() -> Int {
    #if os(Linux)
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while readdir(directory) != nil { count += 1 }
    // ".", "..", and the descriptor of the directory stream itself.
    return count - 3
    #else
    return (0..<4096).filter { fcntl(Int32($0), F_GETFD) >= 0 }.count
    #endif
}

/// Raises the soft descriptor limit to the hard one (at most `wanted`), for tests with many sockets.
package func raiseDescriptorLimit(to wanted: Int = 16_384) {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0 else { return }
    let target = min(limit.rlim_max, rlim_t(wanted))
    if limit.rlim_cur < target {
        limit.rlim_cur = target
        _ = setrlimit(resource, &limit)
    }
}

/// Waits, checking every few milliseconds, until the descriptor count is back to `count` or below
/// (sockets close on other threads and queues after the test's last event), for at most `timeout`.
/// Returns the last count seen.
package func waitForDescriptors(toReturnTo count: Int, timeout: Duration = .seconds(10)) -> Int {
    let deadline = now() + timeout
    var current = openDescriptorCount()
    while current > count, now() < deadline {
        usleep(5_000)
        current = openDescriptorCount()
    }
    return current
}
