// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketCore
import CWebSocketSystem

/// An owned, non-blocking socket descriptor: closed by ``close()`` or when the last reference goes.
///
/// A thin typed layer over the system calls of ``SystemCalls``: results are Swift values, failures
/// are ``Errno``, `EINTR` is retried everywhere, writes are completed, and every wait is a `poll`
/// bounded by a deadline on the monotonic clock. A timed-out wait is an outcome, not an error.
///
/// The descriptor number never changes. ``close()`` is idempotent; callers must not close while
/// another thread is inside a call on the same socket (``ConnectionDriver`` closes only while it
/// holds both its read and its write role).
package final class Socket: Sendable {
    package let descriptor: Int32
    package let system: SystemCalls
    // The calls of every read and write, held here as well: called from the socket's own fields, a
    // closure is called as it lies, where one read out of the shared table is retained and released
    // around each call (about 40 instructions per echoed message).
    private let receive: @Sendable (Int32, UnsafeMutableRawPointer, Int) -> Int
    private let send: @Sendable (Int32, UnsafeRawPointer, Int) -> Int
    private let sendPieces: @Sendable (Int32, UnsafePointer<iovec>, Int32) -> Int
    /// 1 while open, 0 once closed: atomic, since any thread may close while another checks.
    private nonisolated(unsafe) let openFlag: UnsafeMutablePointer<Int32>

    /// Takes ownership of `descriptor`.
    package init(adopting descriptor: Int32, system: SystemCalls) {
        self.descriptor = descriptor
        self.system = system
        receive = system.receive
        send = system.send
        sendPieces = system.sendPieces
        openFlag = PinnedMemory.allocate(CInt.self)
        openFlag.initialize(to: 1)
    }

    deinit {
        close()
        PinnedMemory.deallocate(openFlag)
    }

    /// Creates a non-blocking, close-on-exec stream socket of `family` (`AF_INET`, `AF_INET6`,
    /// `AF_UNIX`), with SIGPIPE off on platforms that need a socket option for it.
    package static func stream(family: Int32, system: SystemCalls) throws(Errno) -> Socket {
        let fd = system.socket(family, SocketConstants.stream, 0)
        guard fd >= 0 else { throw .current }
        let socket = Socket(adopting: fd, system: system)
        try socket.configureNewDescriptor()
        return socket
    }

    /// Non-blocking and close-on-exec; on Darwin no SIGPIPE (Linux passes `MSG_NOSIGNAL` to `send`).
    package func configureNewDescriptor() throws(Errno) {
        try makeNonBlockingAndCloseOnExec()
        #if canImport(Darwin)
        try setOption(level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1)
        #endif
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC` (for any descriptor: sockets and pipe ends).
    package func makeNonBlockingAndCloseOnExec() throws(Errno) {
        let flags = system.fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, system.fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) >= 0 else { throw .current }
        let descriptorFlags = system.fcntl(descriptor, F_GETFD, 0)
        guard descriptorFlags >= 0, system.fcntl(descriptor, F_SETFD, descriptorFlags | FD_CLOEXEC) >= 0 else {
            throw .current
        }
    }

    /// Closes the descriptor once; later calls do nothing. `close` is not retried on `EINTR`: on
    /// Linux the descriptor is released anyway, and a retry could close a reused number.
    package func close() {
        if cwebsocket_atomic_exchange(openFlag, 0) == 1 { _ = system.close(descriptor) }
    }

    /// Whether ``close()`` has not run yet.
    package var isClosed: Bool { cwebsocket_atomic_load(openFlag) == 0 }

    /// Shuts down one or both directions (`SHUT_WR`, `SHUT_RDWR`). Errors (`ENOTCONN` when the peer
    /// is already gone) are ignored: the goal, no more traffic that way, holds either way.
    package func shutdown(_ how: Int32) {
        guard !isClosed else { return }
        _ = system.shutdown(descriptor, how)
    }

    /// Applies what `options` asks of a newly connected or accepted socket: `TCP_NODELAY` when
    /// ``TransportOptions/noDelay`` is set and the socket is TCP (a Unix domain socket has no
    /// Nagle's algorithm). A failure changes nothing but latency, so it is not reported.
    package func applyConnectedOptions(_ options: TransportOptions, isUnixSocket: Bool) {
        guard options.noDelay, !isUnixSocket else { return }
        try? setOption(level: SocketConstants.tcpProtocol, name: TCP_NODELAY, value: 1)
    }

    /// Sets an integer socket option.
    package func setOption(level: Int32, name: Int32, value: Int32) throws(Errno) {
        var value = value
        guard system.setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .current
        }
    }

    /// The socket's pending error (`SO_ERROR`), which also clears it; `nil` when there is none.
    package func takePendingError() throws(Errno) -> Errno? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard system.getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { throw .current }
        return value == 0 ? nil : Errno(rawValue: value)
    }

    /// The address the socket is bound to.
    package var localAddress: SocketAddress? { address(system.getsockname) }

    /// The address of the connected peer.
    package var peerAddress: SocketAddress? { address(system.getpeername) }

    private func address(_ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32)
        -> SocketAddress?
    {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                guard call(descriptor, address, &length) == 0 else { return nil }
                return SocketAddress(address, length: min(length, socklen_t(MemoryLayout<sockaddr_storage>.size)))
            }
        }
    }

    // MARK: Reading

    /// What one read gave.
    package enum ReadOutcome: Equatable {
        /// This many bytes (at least one) were read.
        case bytes(Int)
        /// The peer closed its side: no more bytes will come.
        case endOfStream
        /// Nothing to read now (`EAGAIN`), or, for a timed read, nothing before the deadline.
        case nothing
    }

    /// Reads what is available now, without waiting. `EINTR` is retried.
    @inline(__always)
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> ReadOutcome {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .nothing }
        guard !isClosed else { throw .badFileDescriptor }
        guard let count = try Self.withoutWaiting({ receive(descriptor, base, buffer.count) }) else {
            return .nothing
        }
        return count > 0 ? .bytes(count) : .endOfStream
    }

    /// Runs a non-blocking system call that returns a count or -1 with `errno`: the count, `nil` for
    /// `EAGAIN`; `EINTR` is retried, every other error thrown.
    @inline(__always)
    private static func withoutWaiting(_ call: () -> Int) throws(Errno) -> Int? {
        while true {
            let count = call()
            if count >= 0 { return count }
            let error = Errno.current
            switch error {
            case .interrupted: continue
            case .wouldBlock: return nil
            default: throw error
            }
        }
    }

    /// Waits until bytes arrive or `deadline` passes (`nil`: no limit), then reads them. A readiness
    /// that turns out spurious (`EAGAIN`) waits again; reaching the deadline gives ``ReadOutcome/nothing``.
    package func read(into buffer: UnsafeMutableRawBufferPointer, deadline: Connection.Instant?) throws(Errno) -> ReadOutcome {
        while true {
            let outcome = try read(into: buffer)
            guard outcome == .nothing else { return outcome }
            // Checked here too, not only by poll: readiness that keeps turning out spurious must not
            // keep the read going past its deadline.
            if let deadline, system.monotonicNow() >= deadline { return .nothing }
            guard try wait(for: Int16(POLLIN), deadline: deadline) else { return .nothing }
        }
    }

    // MARK: Writing

    /// How a write ended.
    package enum WriteOutcome: Equatable {
        /// Every byte was handed to the kernel.
        case completed
        /// The peer accepted no byte for the whole idle timeout; `written` bytes had gone out.
        case timedOut(written: Int)
    }

    /// Writes what the kernel takes now, without waiting: the number of bytes written, 0 when its
    /// buffer is full (`EAGAIN`). `EINTR` is retried.
    @inline(__always)
    package func writeSome(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        guard !isClosed else { throw .badFileDescriptor }
        return try Self.withoutWaiting({ send(descriptor, base, bytes.count) }) ?? 0
    }

    /// Writes what the kernel takes now of `pieces`, in order, in one gathered send (at most
    /// ``maxPieces`` of them); 0 when its buffer is full (`EAGAIN`). `EINTR` is retried.
    package func writeSome(pieces: UnsafeBufferPointer<UnsafeRawBufferPointer>) throws(Errno) -> Int {
        let count = min(pieces.count, Self.maxPieces)
        guard count > 0 else { return 0 }
        if count == 1 { return try writeSome(pieces[0]) }
        guard !isClosed else { throw .badFileDescriptor }
        return try withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { (vectors) throws(Errno) -> Int in
            guard let base = vectors.baseAddress else { return 0 }
            for index in 0..<count {
                vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: pieces[index].baseAddress),
                                       iov_len: pieces[index].count)
            }
            return try Self.withoutWaiting({ sendPieces(descriptor, UnsafePointer(base), Int32(count)) }) ?? 0
        }
    }

    /// The most pieces one gathered send takes (the kernel's limit, `IOV_MAX`, is 1,024).
    package static let maxPieces = 64

    /// Writes every byte, however many calls it takes (short writes are continued, `EINTR` retried).
    /// When the kernel's buffer is full it waits for room, at most `idleTimeout` at a time
    /// (`nil`: no limit): a peer that keeps reading, however slowly, never times out a write.
    package func write(_ bytes: UnsafeRawBufferPointer, idleTimeout: Duration?) throws(Errno) -> WriteOutcome {
        var written = 0
        // Set when a wait for room starts; cleared by progress.
        var idleDeadline: Connection.Instant? = nil
        while written < bytes.count {
            let count = try writeSome(UnsafeRawBufferPointer(rebasing: bytes[written...]))
            if count > 0 {
                written += count
                idleDeadline = nil
                continue
            }
            let now = system.monotonicNow()
            if idleDeadline == nil { idleDeadline = idleTimeout.map { now + $0 } }
            if let idleDeadline, now >= idleDeadline { return .timedOut(written: written) }
            guard try wait(for: Int16(POLLOUT), deadline: idleDeadline) else { return .timedOut(written: written) }
        }
        return .completed
    }

    // MARK: Waiting

    /// Waits until the socket is ready for `events` (`POLLIN`, `POLLOUT`) or reports an error or
    /// hang-up, or until `deadline`. Returns `false` at the deadline.
    package func wait(for events: Int16, deadline: Connection.Instant?) throws(Errno) -> Bool {
        var fds = [pollfd(fd: descriptor, events: events, revents: 0)]
        return try Poller.poll(&fds, deadline: deadline, system: system) > 0
    }
}
