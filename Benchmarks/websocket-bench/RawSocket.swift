// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import EchoServerSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain blocking TCP over 127.0.0.1 for the echo baseline: the system calls and nothing else. Every
/// failure ends the benchmark (``fail(_:)``).
enum RawSocket {
    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// A listening socket on 127.0.0.1 and the port the system chose.
    static func listener() -> (fd: Int32, port: UInt16) {
        let fd = stream()
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { fail("raw TCP listen: \(lastError())") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts a connection (with `TCP_NODELAY`), or `nil` when none arrives within `milliseconds`.
    static func accepted(from listener: Int32, waitingAtMost milliseconds: Int32) -> Int32? {
        var pending = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&pending, 1, milliseconds) > 0 else { return nil }
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        configure(fd)
        return fd
    }

    /// A connection to 127.0.0.1:`port`, with `TCP_NODELAY`.
    /// A thread that accepts connections on `listener` until `stopping` is raised, serving each on a
    /// thread of its own with `serve`, then closes the listener and waits for every connection (each
    /// ends when its client closes).
    static func acceptLoop(_ listener: Int32, until stopping: StopFlag,
                           serve: @escaping @Sendable (Int32) -> Void) -> JoinableThread {
        JoinableThread {
            var connections: [JoinableThread] = []
            while !stopping.isRaised {
                guard let fd = accepted(from: listener, waitingAtMost: 20) else { continue }
                connections.append(JoinableThread { serve(fd) })
            }
            closeDescriptor(listener)
            for connection in connections { connection.join() }
        }
    }

    static func connected(port: UInt16) -> Int32 {
        let fd = stream()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { fail("raw TCP connect: \(lastError())") }
        configure(fd)
        return fd
    }

    /// Writes all of `bytes`; `false` when the peer is gone.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = send(fd, bytes.baseAddress! + done, bytes.count - done, sendFlags)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// Reads exactly `buffer.count` bytes; `false` at end of stream or on an error.
    static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = recv(fd, buffer.baseAddress! + done, buffer.count - done, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    private static func stream() -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { fail("raw TCP socket: \(lastError())") }
        return fd
    }

    private static func configure(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
