// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new detached thread: for work that blocks for as long as a connection lives
/// (a command's output), which Dispatch's bounded pool must not be asked to hold.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {   // @unchecked: handed from one thread to the next, once
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let result = pthread_create(&thread, nil, { pointer in
        let box = Unmanaged<Box>.fromOpaque(pointer!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    guard result == 0 else {
        // No thread: run it here rather than drop it.
        Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        return
    }
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    pthread_detach(thread!)
    #endif
}
