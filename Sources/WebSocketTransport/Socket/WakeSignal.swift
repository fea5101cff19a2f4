// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe that wakes a thread blocked in `poll`: the waiting thread polls ``descriptor`` along
/// with its socket, and any thread calls ``signal()`` when something the waiter must see has changed
/// (a new timer deadline, a close to carry out, a server to stop).
package final class WakeSignal: Sendable {
    private let readEnd: Socket
    private let writeEnd: Socket

    package init(system: SystemCalls) throws(Errno) {
        var fds: [Int32] = [-1, -1]
        guard fds.withUnsafeMutableBufferPointer({ system.pipe($0.baseAddress!) }) == 0 else { throw .current }
        readEnd = Socket(adopting: fds[0], system: system)
        writeEnd = Socket(adopting: fds[1], system: system)
        try readEnd.makeNonBlockingAndCloseOnExec()
        try writeEnd.makeNonBlockingAndCloseOnExec()
    }

    /// The descriptor to poll for `POLLIN`.
    package var descriptor: Int32 { readEnd.descriptor }

    /// Wakes the waiter. A full pipe already holds a wake-up, so `EAGAIN` is fine.
    package func signal() {
        var byte: UInt8 = 1
        while true {
            let result = writeEnd.system.write(writeEnd.descriptor, &byte, 1)
            if result < 0 && Errno.current == .interrupted { continue }
            return
        }
    }

    /// Empties the pipe, after a wake-up was seen.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let result = buffer.withUnsafeMutableBytes { readEnd.system.read(readEnd.descriptor, $0.baseAddress!, $0.count) }
            if result > 0 { continue }
            if result < 0 && Errno.current == .interrupted { continue }
            return
        }
    }
}
