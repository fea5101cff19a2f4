// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts `body` on a new detached POSIX thread (the module uses no Foundation `Thread`).
///
/// - Throws: the `pthread_create` error, `EAGAIN` when the system is out of threads.
package func spawnDetachedThread(_ body: @escaping @Sendable () -> Void) throws(Errno) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    #if canImport(Glibc)
    var thread = pthread_t()
    let result = pthread_create(&thread, &attributes, { context in
        guard let context else { return nil }
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }, context)
    #else
    var thread: pthread_t? = nil
    let result = pthread_create(&thread, &attributes, { context in
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }, context)
    #endif
    if result != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        throw Errno(rawValue: result)
    }
}
