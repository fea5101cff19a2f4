// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error number reported by a system call (`errno`), as a typed error.
///
/// Like swift-system's `Errno`: any value can be represented, and the codes this module meets are
/// static members, so that a `switch` or `==` reads as the condition it tests:
///
/// ```swift
/// catch BlockingWebSocketError.connectFailed(_, let errno) where errno == .connectionRefused { … }
/// ```
public struct Errno: Error, RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The C `errno` value.
    public var rawValue: Int32

    /// Wraps a C `errno` value.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, read right after a failed call.
    package static var current: Errno {
        #if canImport(Glibc)
        return Errno(rawValue: Glibc.errno)
        #else
        return Errno(rawValue: Darwin.errno)
        #endif
    }

    /// `EINTR`: a signal interrupted the call; it is retried.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (`EWOULDBLOCK`): a non-blocking call would block.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EINPROGRESS`: a non-blocking connect is under way.
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    /// `EALREADY`: a connect is already under way on this socket.
    public static let alreadyInProgress = Errno(rawValue: EALREADY)
    /// `EISCONN`: the socket is already connected.
    public static let isConnected = Errno(rawValue: EISCONN)
    /// `ECONNREFUSED`: nothing listens at the address.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `ECONNRESET`: the peer reset the connection.
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    /// `ECONNABORTED`: the connection was aborted before it was accepted.
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    /// `EPIPE`: the connection is closed for writing.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ETIMEDOUT`: the kernel gave up on the connection.
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    /// `EHOSTUNREACH`: no route to the host.
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)
    /// `ENETUNREACH`: the network is unreachable.
    public static let networkUnreachable = Errno(rawValue: ENETUNREACH)
    /// `EADDRINUSE`: the address is already bound.
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    /// `EADDRNOTAVAIL`: the address is not available on this machine.
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    /// `EAFNOSUPPORT`: the address family (IPv6, say) is not supported here.
    public static let addressFamilyNotSupported = Errno(rawValue: EAFNOSUPPORT)
    /// `ENOTCONN`: the socket is not connected.
    public static let notConnected = Errno(rawValue: ENOTCONN)
    /// `EBADF`: not an open file descriptor.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EINVAL`: an invalid argument.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ENAMETOOLONG`: a Unix socket path longer than `sun_path` holds.
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `ENOENT`: no such file (a Unix socket path that does not exist).
    public static let noSuchFile = Errno(rawValue: ENOENT)
    /// `EMFILE`: the process has no file descriptor left.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)

    /// The C library's message for the code, e.g. "Connection refused".
    public var description: String {
        guard let message = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: message)
    }
}
