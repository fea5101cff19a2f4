// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread that runs `body` and is joined by its creator (no Foundation `Thread`).
///
/// `@unchecked Sendable`: the only state is the `pthread_t` handle, set in `init` and never changed;
/// ``join()`` is called once, by the creator.
package final class JoinableThread: @unchecked Sendable {
    #if canImport(Glibc)
    private var thread = pthread_t()
    #else
    private var thread: pthread_t? = nil
    #endif

    package init(_ body: @escaping @Sendable () -> Void) {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
        #else
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, context)
        #endif
        if result != 0 { fail("pthread_create: \(String(cString: strerror(result)))") }
    }

    /// Waits for the thread to end.
    package func join() {
        #if canImport(Glibc)
        pthread_join(thread, nil)
        #else
        if let thread { pthread_join(thread, nil) }
        #endif
    }
}

/// Sleeps the calling thread for `seconds`.
package func sleep(seconds: Double) {
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// Raises the soft limit on open descriptors to at least `count` (up to the hard limit): the
/// many-connection workloads hold about six descriptors per connection (two sockets, two self-pipes).
package func raiseDescriptorLimit(to count: Int) {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
    limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
    _ = setrlimit(resource, &limit)
}

/// Writes why the benchmark cannot go on to standard error, and exits with status 1.
package func fail(_ message: String) -> Never {
    let line = Array("websocket-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}
