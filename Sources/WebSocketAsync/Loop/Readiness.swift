// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WebSocketTransport

/// What a loop asks the kernel to watch a descriptor for.
struct Interest: OptionSet, Sendable {
    let rawValue: UInt8
    static let readable = Interest(rawValue: 1 << 0)
    static let writable = Interest(rawValue: 1 << 1)
}

/// What the kernel reported for one descriptor.
struct ReadinessEvents: OptionSet, Sendable {
    let rawValue: UInt8
    static let readable = ReadinessEvents(rawValue: 1 << 0)
    static let writable = ReadinessEvents(rawValue: 1 << 1)
    /// An error or a hang-up: the next read or write finds out which.
    static let failed = ReadinessEvents(rawValue: 1 << 2)
    /// The peer ended its sending side (or the connection is gone): the end of the stream waits
    /// behind whatever bytes are left, so a short read no longer means the socket has nothing more.
    static let hangUp = ReadinessEvents(rawValue: 1 << 3)
}

/// How an event loop learns which descriptors are ready: the one place that speaks to the kernel's
/// readiness API. Two backends: epoll (Linux) and `poll(2)` (every POSIX system, and Linux when
/// `WEBSOCKET_READINESS=poll` asks for it, so that the code other platforms run is code that ran).
///
/// The contract is edge-like whatever the backend: a loop is told a descriptor is readable (or
/// writable) once, then uses that up (reads until `EAGAIN` or a short read) and remembers what is
/// still ready; it states its ``Interest`` as what it *waits* for (readable while it wants input and
/// knows of none, writable while output waits and the socket took no more). epoll registers both
/// directions edge-triggered once and needs no update; `poll` watches exactly the stated interest,
/// so that a level-triggered descriptor the loop does not want now cannot wake it again and again.
///
/// Every descriptor carries a 64-bit token, never a pointer (for a socket, its slot and generation
/// in the loop): an event for a socket that has gone finds a newer generation in its slot and is
/// dropped.
///
/// Used on the loop's thread only, but for ``wake()``.
protocol Readiness: AnyObject, Sendable {
    /// Starts watching `descriptor` for `interest`.
    func register(_ descriptor: Int32, token: UInt64, interest: Interest) throws(Errno)
    /// Changes what `descriptor` is watched for.
    func update(_ descriptor: Int32, interest: Interest)
    /// Stops watching `descriptor`. `closing`: the caller closes it right after, and nothing else
    /// holds it open (the loop's sockets are never duplicated, and are closed on exec).
    func deregister(_ descriptor: Int32, closing: Bool)
    /// Waits up to `timeoutMilliseconds` (-1: no limit; 0: not at all) for readiness, and reports
    /// each ready descriptor's token and events to `body`. A ``wake()`` since the last wait is
    /// consumed.
    func wait(timeoutMilliseconds: Int32, _ body: (UInt64, ReadinessEvents) -> Void)
    /// Wakes the loop from any thread.
    func wake()
}

/// The readiness backend the loops use: epoll on Linux unless `WEBSOCKET_READINESS=poll`; `poll`
/// elsewhere.
enum ReadinessBackend: String, Sendable {
    case epoll
    case poll

    /// The backend the process's loops use, read once.
    static let selected: ReadinessBackend = {
        #if os(Linux)
        if let value = getenv("WEBSOCKET_READINESS"), String(cString: value) == "poll" { return .poll }
        return .epoll
        #else
        return .poll
        #endif
    }()

    /// A new instance of this backend.
    func make() throws(Errno) -> any Readiness {
        #if os(Linux)
        if self == .epoll { return try EpollReadiness() }
        #endif
        return try PollReadiness()
    }
}
