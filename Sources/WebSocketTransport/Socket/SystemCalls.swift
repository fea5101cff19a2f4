// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
#if os(Linux)
import CWebSocketSystem
#endif

/// The system calls this module makes, as replaceable closures: every socket, poll, pipe and clock
/// call goes through one of these, so that tests can force `EINTR`, `EAGAIN` and short writes (as
/// swift-system's mocking does) while the code under test stays the production code.
///
/// Each closure behaves exactly like the C function it names: it returns the C result and, on
/// failure, leaves the reason in `errno`. ``live`` calls the C library; a test copies it and wraps
/// the calls it wants to disturb.
package struct SystemCalls: Sendable {
    /// The closures, shared: a copy of the calls (one per socket, one per connection) is one
    /// reference, where 21 closures copied apart cost 21 retains (and as many releases) per accepted
    /// connection and 336 bytes in each of its two objects. Replacing a call makes a table of one's
    /// own (copy on write), so a test's change reaches only the copy it made.
    private var box: Box

    private final class Box: Sendable {
        let table: Table
        init(_ table: Table) { self.table = table }
    }

    /// The calls of `table`.
    package init(_ table: Table) { box = Box(table) }

    private mutating func change(_ body: (inout Table) -> Void) {
        var table = box.table
        body(&table)
        box = Box(table)
    }

    /// The closures themselves.
    package struct Table: Sendable {
        package var socket: @Sendable (_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32
        package var connect: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32
        package var bind: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32
        package var listen: @Sendable (_ fd: Int32, _ backlog: Int32) -> Int32
        package var accept: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32
        package var receive: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
        package var send: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int
        package var sendPieces: @Sendable (_ fd: Int32, _ pieces: UnsafePointer<iovec>, _ count: Int32) -> Int
        package var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int
        package var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int
        package var poll: @Sendable (_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeoutMilliseconds: Int32) -> Int32
        package var close: @Sendable (_ fd: Int32) -> Int32
        package var shutdown: @Sendable (_ fd: Int32, _ how: Int32) -> Int32
        package var setsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer, _ length: socklen_t) -> Int32
        package var getsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer, _ length: UnsafeMutablePointer<socklen_t>) -> Int32
        package var getsockname: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32
        package var getpeername: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32
        package var fcntl: @Sendable (_ fd: Int32, _ command: Int32, _ argument: Int32) -> Int32
        package var pipe: @Sendable (_ fds: UnsafeMutablePointer<Int32>) -> Int32
        package var unlink: @Sendable (_ path: UnsafePointer<CChar>) -> Int32
        package var monotonicNow: @Sendable () -> Connection.Instant
    }

    package var socket: @Sendable (_ domain: Int32, _ type: Int32, _ protocol: Int32) -> Int32 {
        get { box.table.socket }
        set { change { $0.socket = newValue } }
    }
    package var connect: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        get { box.table.connect }
        set { change { $0.connect = newValue } }
    }
    package var bind: @Sendable (_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        get { box.table.bind }
        set { change { $0.bind = newValue } }
    }
    package var listen: @Sendable (_ fd: Int32, _ backlog: Int32) -> Int32 {
        get { box.table.listen }
        set { change { $0.listen = newValue } }
    }
    /// `accept`; on Linux `accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC)`, so that the new
    /// descriptor needs no `fcntl` calls (``Socket/acceptedDescriptorsAreConfigured``).
    package var accept: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        get { box.table.accept }
        set { change { $0.accept = newValue } }
    }
    /// `recv(fd, buffer, count, 0)`.
    package var receive: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        get { box.table.receive }
        set { change { $0.receive = newValue } }
    }
    /// `send(fd, buffer, count, MSG_NOSIGNAL)` on Linux; `send(..., 0)` where `SO_NOSIGPIPE` does the job.
    package var send: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        get { box.table.send }
        set { change { $0.send = newValue } }
    }
    /// `sendmsg(fd, {pieces, count}, MSG_NOSIGNAL)` on Linux (flags 0 elsewhere): a gathered send
    /// (`writev` with `send`'s flags).
    package var sendPieces: @Sendable (_ fd: Int32, _ pieces: UnsafePointer<iovec>, _ count: Int32) -> Int {
        get { box.table.sendPieces }
        set { change { $0.sendPieces = newValue } }
    }
    package var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        get { box.table.read }
        set { change { $0.read = newValue } }
    }
    package var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        get { box.table.write }
        set { change { $0.write = newValue } }
    }
    package var poll: @Sendable (_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeoutMilliseconds: Int32) -> Int32 {
        get { box.table.poll }
        set { change { $0.poll = newValue } }
    }
    package var close: @Sendable (_ fd: Int32) -> Int32 {
        get { box.table.close }
        set { change { $0.close = newValue } }
    }
    package var shutdown: @Sendable (_ fd: Int32, _ how: Int32) -> Int32 {
        get { box.table.shutdown }
        set { change { $0.shutdown = newValue } }
    }
    package var setsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer, _ length: socklen_t) -> Int32 {
        get { box.table.setsockopt }
        set { change { $0.setsockopt = newValue } }
    }
    package var getsockopt: @Sendable (_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        get { box.table.getsockopt }
        set { change { $0.getsockopt = newValue } }
    }
    package var getsockname: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        get { box.table.getsockname }
        set { change { $0.getsockname = newValue } }
    }
    package var getpeername: @Sendable (_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
        get { box.table.getpeername }
        set { change { $0.getpeername = newValue } }
    }
    /// `fcntl(fd, F_GETFL)` / `fcntl(fd, F_SETFL, flags)`, and the same for `F_GETFD`/`F_SETFD`.
    package var fcntl: @Sendable (_ fd: Int32, _ command: Int32, _ argument: Int32) -> Int32 {
        get { box.table.fcntl }
        set { change { $0.fcntl = newValue } }
    }
    package var pipe: @Sendable (_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
        get { box.table.pipe }
        set { change { $0.pipe = newValue } }
    }
    package var unlink: @Sendable (_ path: UnsafePointer<CChar>) -> Int32 {
        get { box.table.unlink }
        set { change { $0.unlink = newValue } }
    }
    /// `clock_gettime(CLOCK_MONOTONIC)`, as an ``Connection/Instant`` since the clock's origin.
    package var monotonicNow: @Sendable () -> Connection.Instant {
        get { box.table.monotonicNow }
        set { change { $0.monotonicNow = newValue } }
    }

    /// The C library's functions.
    package static let live = SystemCalls(Table(
        socket: { sys_socket($0, $1, $2) },
        connect: { sys_connect($0, $1, $2) },
        bind: { sys_bind($0, $1, $2) },
        listen: { sys_listen($0, $1) },
        accept: { sys_accept($0, $1, $2) },
        receive: { sys_recv($0, $1, $2, 0) },
        send: { sys_send($0, $1, $2, sendFlags) },
        sendPieces: { sys_sendPieces($0, $1, $2, sendFlags) },
        read: { sys_read($0, $1, $2) },
        write: { sys_write($0, $1, $2) },
        poll: { sys_poll($0, $1, $2) },
        close: { sys_close($0) },
        shutdown: { sys_shutdown($0, $1) },
        setsockopt: { sys_setsockopt($0, $1, $2, $3, $4) },
        getsockopt: { sys_getsockopt($0, $1, $2, $3, $4) },
        getsockname: { sys_getsockname($0, $1, $2) },
        getpeername: { sys_getpeername($0, $1, $2) },
        fcntl: { sys_fcntl($0, $1, $2) },
        pipe: { sys_pipe($0) },
        unlink: { sys_unlink($0) },
        monotonicNow: {
            var now = timespec()
            // CLOCK_MONOTONIC cannot fail with a valid pointer; it never jumps with the wall clock.
            _ = clock_gettime(CLOCK_MONOTONIC, &now)
            return Connection.Instant(seconds: Int64(now.tv_sec), nanoseconds: Int64(now.tv_nsec))
        }
    ))

    /// Sets `errno`, for shims that fake a failure.
    package static func setErrno(_ value: Errno) {
        #if canImport(Glibc)
        Glibc.errno = value.rawValue
        #else
        Darwin.errno = value.rawValue
        #endif
    }
}

#if canImport(Glibc)
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
// SIGPIPE is turned off per socket with SO_NOSIGPIPE (see Socket.init).
private let sendFlags: Int32 = 0
#endif

// File-scope forwarders: here the C names are not shadowed by the properties of `SystemCalls`.
private func sys_socket(_ d: Int32, _ t: Int32, _ p: Int32) -> Int32 { socket(d, t, p) }
private func sys_connect(_ fd: Int32, _ a: UnsafePointer<sockaddr>, _ l: socklen_t) -> Int32 { connect(fd, a, l) }
private func sys_bind(_ fd: Int32, _ a: UnsafePointer<sockaddr>, _ l: socklen_t) -> Int32 { bind(fd, a, l) }
private func sys_listen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func sys_accept(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: UnsafeMutablePointer<socklen_t>) -> Int32 {
    #if os(Linux)
    cwebsocket_accept_configured(fd, a, l)
    #else
    accept(fd, a, l)
    #endif
}
private func sys_recv(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ n: Int, _ flags: Int32) -> Int {
    #if os(Linux)
    cwebsocket_recv(fd, b, n, flags)  // not a cancellation point: see CWebSocketSystem.c
    #else
    recv(fd, b, n, flags)
    #endif
}
private func sys_send(_ fd: Int32, _ b: UnsafeRawPointer, _ n: Int, _ flags: Int32) -> Int {
    #if os(Linux)
    cwebsocket_send(fd, b, n, flags)
    #else
    send(fd, b, n, flags)
    #endif
}
private func sys_sendPieces(_ fd: Int32, _ pieces: UnsafePointer<iovec>, _ count: Int32, _ flags: Int32) -> Int {
    var message = msghdr()
    message.msg_iov = UnsafeMutablePointer(mutating: pieces)
    #if canImport(Glibc)
    message.msg_iovlen = Int(count)
    #else
    message.msg_iovlen = count
    #endif
    #if os(Linux)
    return cwebsocket_sendmsg(fd, &message, flags)
    #else
    return sendmsg(fd, &message, flags)
    #endif
}
private func sys_read(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, b, n) }
private func sys_write(_ fd: Int32, _ b: UnsafeRawPointer, _ n: Int) -> Int { write(fd, b, n) }
private func sys_poll(_ fds: UnsafeMutablePointer<pollfd>, _ n: nfds_t, _ timeout: Int32) -> Int32 { poll(fds, n, timeout) }
private func sys_close(_ fd: Int32) -> Int32 { close(fd) }
private func sys_shutdown(_ fd: Int32, _ how: Int32) -> Int32 { shutdown(fd, how) }
private func sys_setsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ v: UnsafeRawPointer, _ l: socklen_t) -> Int32 {
    setsockopt(fd, level, name, v, l)
}
private func sys_getsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ v: UnsafeMutableRawPointer,
                            _ l: UnsafeMutablePointer<socklen_t>) -> Int32 {
    getsockopt(fd, level, name, v, l)
}
private func sys_getsockname(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: UnsafeMutablePointer<socklen_t>) -> Int32 {
    getsockname(fd, a, l)
}
private func sys_getpeername(_ fd: Int32, _ a: UnsafeMutablePointer<sockaddr>, _ l: UnsafeMutablePointer<socklen_t>) -> Int32 {
    getpeername(fd, a, l)
}
private func sys_fcntl(_ fd: Int32, _ command: Int32, _ argument: Int32) -> Int32 { fcntl(fd, command, argument) }
private func sys_pipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 { pipe(fds) }
private func sys_unlink(_ path: UnsafePointer<CChar>) -> Int32 { unlink(path) }

/// Platform spellings of the constants the socket layer uses.
package enum SocketConstants {
    #if canImport(Glibc)
    package static let stream = Int32(SOCK_STREAM.rawValue)
    package static let tcpProtocol = Int32(IPPROTO_TCP)
    package static let ipv6Protocol = Int32(IPPROTO_IPV6)
    package static let shutdownWrite = Int32(SHUT_WR)
    package static let shutdownBoth = Int32(SHUT_RDWR)
    #else
    package static let stream = SOCK_STREAM
    package static let tcpProtocol = IPPROTO_TCP
    package static let ipv6Protocol = IPPROTO_IPV6
    package static let shutdownWrite = SHUT_WR
    package static let shutdownBoth = SHUT_RDWR
    #endif
}
