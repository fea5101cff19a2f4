// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

/// The portable backend: `poll(2)` over exactly the stated ``Interest`` (see ``Readiness``), and a
/// pipe that other threads write to wake the loop. Each wait costs a pass over the watched
/// descriptors, which is what `poll` costs anywhere; a kqueue backend would not.
///
/// `@unchecked Sendable`: the pipe's descriptors are constants; everything else is used by the
/// loop's thread only.
final class PollReadiness: Readiness, @unchecked Sendable {
    /// Entry 0 is the wake pipe's read end; the others are the registered descriptors, in no order.
    /// An entry without interest holds -1, which `poll` skips: a hang-up it reports whatever the
    /// interest would otherwise wake the loop again and again while it wants nothing of the socket.
    private var fds: [pollfd]
    private var descriptors: [Int32]
    private var tokens: [UInt64]
    /// The ready entries of one wait, collected before any is handled (handling registers and
    /// deregisters).
    private var ready: [(UInt64, ReadinessEvents)] = []
    /// Where each descriptor's entry is, by descriptor number (-1: not registered).
    private var entryOfDescriptor: [Int] = []
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .current }
        for end in ends {
            let flags = fcntl(end, F_GETFL, 0)
            _ = fcntl(end, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        fds = [pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
        descriptors = [ends[0]]
        tokens = [0]
    }

    deinit {
        _ = close(wakeRead)
        _ = close(wakeWrite)
    }

    private static func events(for interest: Interest) -> Int16 {
        var events: Int16 = 0
        if interest.contains(.readable) { events |= Int16(POLLIN) }
        if interest.contains(.writable) { events |= Int16(POLLOUT) }
        return events
    }

    func register(_ descriptor: Int32, token: UInt64, interest: Interest) throws(Errno) {
        guard descriptor >= 0 else { throw .badFileDescriptor }
        let slot = Int(descriptor)
        if slot >= entryOfDescriptor.count {
            entryOfDescriptor.append(contentsOf: repeatElement(-1, count: slot + 1 - entryOfDescriptor.count))
        }
        guard entryOfDescriptor[slot] < 0 else { throw Errno(rawValue: EEXIST) }
        entryOfDescriptor[slot] = fds.count
        fds.append(pollfd(fd: interest.isEmpty ? -1 : descriptor, events: Self.events(for: interest), revents: 0))
        descriptors.append(descriptor)
        tokens.append(token)
    }

    func update(_ descriptor: Int32, interest: Interest) {
        guard let entry = entry(of: descriptor) else { return }
        fds[entry].fd = interest.isEmpty ? -1 : descriptor
        fds[entry].events = Self.events(for: interest)
    }

    func deregister(_ descriptor: Int32, closing: Bool) {
        guard let entry = entry(of: descriptor) else { return }
        entryOfDescriptor[Int(descriptor)] = -1
        let last = fds.count - 1
        if entry != last {
            fds[entry] = fds[last]
            descriptors[entry] = descriptors[last]
            tokens[entry] = tokens[last]
            entryOfDescriptor[Int(descriptors[entry])] = entry
        }
        fds.removeLast()
        descriptors.removeLast()
        tokens.removeLast()
    }

    private func entry(of descriptor: Int32) -> Int? {
        guard descriptor >= 0, Int(descriptor) < entryOfDescriptor.count else { return nil }
        let entry = entryOfDescriptor[Int(descriptor)]
        return entry > 0 ? entry : nil
    }

    func wait(timeoutMilliseconds: Int32, _ body: (UInt64, ReadinessEvents) -> Void) {
        let count = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress!, nfds_t(buffer.count), timeoutMilliseconds)
        }
        guard count > 0 else { return }
        if fds[0].revents != 0 {
            fds[0].revents = 0
            var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            while withUnsafeMutableBytes(of: &buffer, { read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
        }
        ready.removeAll(keepingCapacity: true)
        for entry in 1..<fds.count where fds[entry].revents != 0 {
            let revents = fds[entry].revents
            fds[entry].revents = 0
            var events: ReadinessEvents = []
            if revents & Int16(POLLIN) != 0 { events.insert(.readable) }
            if revents & Int16(POLLOUT) != 0 { events.insert(.writable) }
            if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { events.insert(.failed) }
            if revents & Int16(POLLHUP) != 0 { events.insert(.hangUp) }
            ready.append((tokens[entry], events))
        }
        // Indexed, not iterated: see EpollReadiness.wait.
        var index = 0
        while index < ready.count {
            let (token, events) = ready[index]
            index += 1
            body(token, events)
        }
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }
}
