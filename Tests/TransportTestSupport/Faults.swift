// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

/// Faults a test wants some system calls to report, consumed one per call, then the real call.
package final class Faults: Sendable {
    package enum Call: Hashable, Sendable { case receive, send, connect, accept, poll }
    package enum Fault: Sendable {
        /// Fail with EINTR (connect: after really starting it, as a signal arriving mid-call does).
        case interrupt
        /// Fail with EAGAIN without calling.
        case wouldBlock
        /// Send at most this many bytes.
        case short(Int)
        /// Report a timeout (poll) or EINPROGRESS (connect) without calling.
        case stall
        /// Fail with this error without calling (ECONNRESET, EPIPE…).
        case error(Errno)
    }

    private let planned = Locked<[Call: [Fault]]>([:])
    private let counts = Locked<[Call: Int]>([:])
    /// When set, every call of these kinds draws this fault forever.
    private let always = Locked<[Call: Fault]>([:])

    /// The descriptors opened through ``system`` and not closed yet.
    private let descriptors = Locked<Set<Int32>>([])

    package init() {}

    /// The descriptors opened through ``system`` (sockets, accepted connections, pipe ends) that are
    /// not closed yet: a leak check that other tests running at the same time cannot disturb.
    package var openDescriptors: Set<Int32> { descriptors.withLock { $0 } }

    /// Waits (for at most `timeout`) until every descriptor opened through ``system`` is closed
    /// (sockets close on other threads and queues after a test's last event); returns those still
    /// open. Each close through ``system`` wakes the wait.
    package func waitForDescriptorsClosed(timeout: Duration = .seconds(60)) -> Set<Int32> {
        let now = SystemCalls.live.monotonicNow
        _ = descriptors.wait(until: { $0.isEmpty }, deadline: now() + timeout, now: now)
        return openDescriptors
    }

    package func plan(_ call: Call, _ faults: [Fault]) { planned.withLock { $0[call, default: []] += faults } }
    package func always(_ call: Call, _ fault: Fault?) { always.withLock { $0[call] = fault } }
    package func calls(_ call: Call) -> Int { counts.withLock { $0[call, default: 0] } }

    private func next(_ call: Call) -> Fault? {
        counts.withLock { $0[call, default: 0] += 1 }
        if let fault = always.withLock({ $0[call] }) { return fault }
        return planned.withLock { plans in
            guard var list = plans[call], !list.isEmpty else { return nil }
            let fault = list.removeFirst()
            plans[call] = list
            return fault
        }
    }

    /// The live system calls, with these faults injected.
    package var system: SystemCalls {
        let live = SystemCalls.live
        var system = live
        let descriptors = self.descriptors
        system.socket = { domain, type, proto in
            let fd = live.socket(domain, type, proto)
            if fd >= 0 { descriptors.withLock { _ = $0.insert(fd) } }
            return fd
        }
        system.pipe = { fds in
            let result = live.pipe(fds)
            if result == 0 { descriptors.withLock { $0.insert(fds[0]); $0.insert(fds[1]) } }
            return result
        }
        system.close = { fd in
            descriptors.withLock { _ = $0.remove(fd) }
            descriptors.broadcast()
            return live.close(fd)
        }
        system.receive = { [self] fd, buffer, count in
            switch next(.receive) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short(let limit)?: return live.receive(fd, buffer, min(count, limit))
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .stall?, nil: return live.receive(fd, buffer, count)
            }
        }
        system.send = { [self] fd, buffer, count in
            switch next(.send) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short(let limit)?: return live.send(fd, buffer, min(count, limit))
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .stall?, nil: return live.send(fd, buffer, count)
            }
        }
        // A gathered send is a send: the same script applies (a short one sends part of the first piece).
        system.sendPieces = { [self] fd, pieces, count in
            switch next(.send) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .short(let limit)?:
                guard count > 0, let base = pieces[0].iov_base else { return 0 }
                return live.send(fd, base, min(pieces[0].iov_len, limit))
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .stall?, nil: return live.sendPieces(fd, pieces, count)
            }
        }
        system.connect = { [self] fd, address, length in
            switch next(.connect) {
            case .interrupt?:
                _ = live.connect(fd, address, length)
                SystemCalls.setErrno(.interrupted)
                return -1
            case .stall?: SystemCalls.setErrno(.inProgress); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .short?, nil: return live.connect(fd, address, length)
            }
        }
        system.accept = { [self] fd, address, length in
            switch next(.accept) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .wouldBlock?: SystemCalls.setErrno(.wouldBlock); return -1
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .short?, .stall?, nil:
                let accepted = live.accept(fd, address, length)
                if accepted >= 0 { descriptors.withLock { _ = $0.insert(accepted) } }
                return accepted
            }
        }
        system.poll = { [self] fds, count, timeout in
            switch next(.poll) {
            case .interrupt?: SystemCalls.setErrno(.interrupted); return -1
            case .stall?: return 0
            case .wouldBlock?:
                // "Ready" at once, whatever the truth: the caller's next call finds out.
                for index in 0..<Int(count) { fds[index].revents = fds[index].events }
                return Int32(count)
            case .error(let errno)?: SystemCalls.setErrno(errno); return -1
            case .short?, nil: return live.poll(fds, count, timeout)
            }
        }
        return system
    }
}

/// A connected pair of Unix stream sockets, the first one with `system`.
package func socketPair(system: SystemCalls) throws -> (Socket, Socket) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, SocketConstants.stream, 0, &fds) == 0 else { throw Errno.current }
    let first = Socket(adopting: fds[0], system: system)
    let second = Socket(adopting: fds[1], system: .live)
    try first.configureNewDescriptor()
    try second.configureNewDescriptor()
    return (first, second)
}

