// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if os(Linux)
import Glibc
import CWebSocketSystem
import WebSocketTransport

/// The Linux backend: one epoll instance, every descriptor registered once, edge-triggered for both
/// directions (the loop remembers what is still ready, so interest never changes), and an eventfd
/// that other threads write to wake the loop.
///
/// `@unchecked Sendable`: the descriptors are constants; `events` is used by the loop's thread only.
final class EpollReadiness: Readiness, @unchecked Sendable {
    private let epoll: Int32
    private let wakeDescriptor: Int32
    private let events: UnsafeMutableBufferPointer<epoll_event>
    private static let wakeToken = UInt64.max

    init() throws(Errno) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .current }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let error = Errno.current
            _ = close(epoll)
            throw error
        }
        self.epoll = epoll
        wakeDescriptor = wake
        events = .allocate(capacity: 256)
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else {
            let error = Errno.current
            _ = close(wake)
            _ = close(epoll)
            events.deallocate()
            throw error
        }
    }

    deinit {
        _ = close(wakeDescriptor)
        _ = close(epoll)
        events.deallocate()
    }

    func register(_ descriptor: Int32, token: UInt64, interest: Interest) throws(Errno) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = token
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else { throw .current }
    }

    func update(_ descriptor: Int32, interest: Interest) {
        // Registered edge-triggered for both directions: nothing to change.
    }

    func deregister(_ descriptor: Int32, closing: Bool) {
        // The kernel removes a file from every epoll set when its last descriptor closes: a
        // descriptor about to be closed needs no `EPOLL_CTL_DEL`, one system call fewer for every
        // connection. Were the file still open elsewhere for a moment (a child between `fork` and
        // `exec`), its events would carry the socket's old token, whose generation no socket has
        // any more: dropped, as every event for a socket that has gone.
        if closing { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    func wait(timeoutMilliseconds: Int32, _ body: (UInt64, ReadinessEvents) -> Void) {
        guard let base = events.baseAddress else { return }
        let count = max(0, Int(epoll_wait(epoll, base, Int32(events.count), timeoutMilliseconds)))
        var woken = false
        // An index, not an iterator over a slice: a debug build allocates for each element read
        // through the slice's generic accessors (the allocation test runs in a debug build).
        var index = 0
        while index < count {
            let event = events[index]
            index += 1
            let token = event.data.u64
            if token == Self.wakeToken {
                woken = true
                continue
            }
            var ready: ReadinessEvents = []
            if event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 { ready.insert(.readable) }
            if event.events & EPOLLOUT.rawValue != 0 { ready.insert(.writable) }
            if event.events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { ready.insert(.failed) }
            if event.events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0 { ready.insert(.hangUp) }
            body(token, ready)
        }
        if woken {
            var value: UInt64 = 0
            _ = read(wakeDescriptor, &value, 8)
        }
    }

    func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }
}
#endif
