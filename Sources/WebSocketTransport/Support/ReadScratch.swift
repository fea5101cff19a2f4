// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One read buffer per thread, for adapters whose sockets are read on whatever thread runs their
/// queue: a socket needs a buffer only for the length of one read and the pipeline's copy of it, so
/// an idle connection holds none (a buffer per connection cost 64 KiB each, resident from the start).
///
/// The buffer is allocated on a thread's first read and freed when the thread ends. Not reentrant:
/// `body` must not read through `ReadScratch` again (it never does: it reads and hands the bytes to
/// a pipeline).
package enum ReadScratch {
    private final class Buffer {
        let bytes: UnsafeMutableRawBufferPointer
        init(size: Int) { bytes = .allocate(byteCount: size, alignment: 16) }
        deinit { bytes.deallocate() }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            #if canImport(Glibc)
            guard let pointer else { return }
            #endif
            Unmanaged<Buffer>.fromOpaque(pointer).release()
        }
        precondition(result == 0, "pthread_key_create failed")
        return key
    }()

    /// Lends the calling thread's buffer, at least `size` bytes long, to `body`.
    package static func with<R, E: Error>(size: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if let pointer = pthread_getspecific(key) {
            let buffer = Unmanaged<Buffer>.fromOpaque(pointer).takeUnretainedValue()
            if buffer.bytes.count >= size { return try body(buffer.bytes) }
            Unmanaged<Buffer>.fromOpaque(pointer).release()
        }
        let buffer = Buffer(size: size)
        pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
        return try body(buffer.bytes)
    }
}
